"""Run as a script: SIGKILL one process group unless the process that started us says it is done with it.

``PR_SET_PDEATHSIG`` has the kernel kill a ``command:`` model when the process
that started it dies outright (SIGKILL, the OOM killer), but the signal is not
inherited: the helpers the command forked live on in its process group. This
guard watches that group from outside it. The starter writes the group id on
the guard's stdin, then ``done`` once it has killed and reaped the group itself.
If stdin ends without ``done`` - the starter died, however it died, since the
kernel closes a dead process's pipes - the guard kills the group.

It runs in a session of its own and ignores the terminal's signals, so a kill
aimed at its starter's group does not take it down first; it still cannot
outlive its starter, because its stdin ends when the starter does. It imports
only a few standard-library modules and is run
by path with ``-I -S``, so it starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

DONE = b"done"


def main() -> int:
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    stdin = sys.stdin.buffer
    named = stdin.readline().strip()
    if not named.isdigit():
        return 0  # the starter ended before it had a group to guard
    said = stdin.read().strip()
    if said != DONE:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(int(named), signal.SIGKILL)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
