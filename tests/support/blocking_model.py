"""A ``command:`` model for tests that must catch a model call in the act.

``python blocking_model.py DIR`` reads its prompt, starts a helper process in
its own process group (as real CLIs do), then reports ``<pid> <pgid> <helper>``
by writing it into the FIFO ``DIR/started`` - opening a FIFO blocks until the
test opens the other end, which is the event the test waits on - and blocks
until the test writes to ``DIR/release``. Then it fails (exit 1), so a build
stops at its first pair; every later run fails at once without blocking. An alarm ends it after five minutes whatever happens,
so a test that fails cannot leave it behind for long.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

HELPER = "import time; time.sleep(300)"


def main() -> int:
    folder = Path(sys.argv[1])
    signal.alarm(300)
    sys.stdin.read()
    if (folder / "ran").exists():
        return 1
    (folder / "ran").touch()
    helper = subprocess.Popen(
        [sys.executable, "-c", HELPER], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    with (folder / "started").open("w", encoding="utf-8") as started:
        started.write(f"{os.getpid()} {os.getpgrp()} {helper.pid}\n")
    with (folder / "release").open(encoding="utf-8") as release:
        release.read()
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
