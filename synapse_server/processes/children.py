"""Child processes that must never outlive what started them: per-call scopes and the parent-death signal.

A ``command:`` model runs as the leader of its own process group, so its own
timeout can kill it with every helper it forked (``killpg``). Being in its own
group also takes it out of reach of whoever kills *our* group, so every place
that starts such a process registers the group in the :class:`ProcessScope`
of the call it serves:

- the dispatcher opens a scope per tool call (build and the lenses run models in
  the server process): when the call ends - result, error, cancellation, the
  client leaving - every group still registered is killed and the scope refuses
  new ones, so a cancelled build cannot go on starting commands;
- a navigate turn opens one whose ``on_spawn`` tells the server each group id,
  so the server kills them beside the turn's own group on timeout, cancellation
  and crash, and the turn kills them itself when the server vanishes.

The scope travels in a context variable, which anyio copies into worker
threads, so nothing has to pass it down through the model layer. On Linux each
such child also gets ``PR_SET_PDEATHSIG`` = SIGKILL: if the process that started
it is killed outright (SIGKILL, OOM), the kernel kills the command too, and a
:class:`GroupGuard` (a tiny watcher process, ``group_guard.py``) kills the
helpers the command left in its group, which that signal does not reach.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

__all__ = [
    "GroupGuard",
    "ProcessScope",
    "arm_parent_death_signal",
    "current_scope",
    "kill_group",
    "parent_death_signal",
    "process_scope",
]

PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
_GUARD_SCRIPT = Path(__file__).with_name("group_guard.py")
_GUARD_EXIT_S = 5.0

log = logging.getLogger(__name__)


class ProcessScope:
    """The process groups one call started and has not yet seen end; thread-safe."""

    def __init__(self, on_spawn: Callable[[int], None] | None = None) -> None:
        self._on_spawn = on_spawn
        self._groups: set[int] = set()
        self._closed = False
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        return self._closed

    def add(self, pgid: int) -> bool:
        """Track ``pgid``; False (and nothing tracked) when the scope already ended: kill it yourself."""
        with self._lock:
            if self._closed:
                return False
            self._groups.add(pgid)
        if self._on_spawn is not None:
            self._on_spawn(pgid)
        return True

    def discard(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)

    def close(self) -> None:
        """Refuse new groups and SIGKILL every tracked one (safe to call twice, from any thread)."""
        with self._lock:
            self._closed = True
            groups, self._groups = self._groups, set()
        for pgid in groups:
            kill_group(pgid)


_SCOPE: ContextVar[ProcessScope | None] = ContextVar("synapse_process_scope", default=None)


def current_scope() -> ProcessScope | None:
    return _SCOPE.get()


@contextlib.contextmanager
def process_scope(on_spawn: Callable[[int], None] | None = None) -> Iterator[ProcessScope]:
    """Run the block with a fresh scope; on leaving it (any way) its remaining groups are killed."""
    scope = ProcessScope(on_spawn)
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)
        scope.close()


def kill_group(pgid: int) -> None:
    """SIGKILL process group ``pgid``; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def parent_death_signal() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel SIGKILL the child when its parent dies (Linux; None elsewhere).

    The function runs between fork and exec, so it only calls ``prctl`` and
    ``getppid`` (no locks, no allocation worth speaking of). The parent is the
    *thread* that forked; every caller here waits on the child in that thread.
    """
    if _LIBC is None:
        return None
    prctl = _LIBC.prctl
    parent = os.getpid()

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return arm


def arm_parent_death_signal() -> None:
    """Arm ``PR_SET_PDEATHSIG`` = SIGKILL for this very process (a worker started by the server)."""
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class GroupGuard:
    """A watcher process that SIGKILLs one process group if this process dies before :meth:`release`.

    Start it before the command (so no moment exists in which the command runs
    unwatched but for that moment's length), :meth:`watch` the command's group,
    and :meth:`release` it once the group has been killed and reaped here. A
    guard that cannot be started is logged and skipped: the parent-death signal
    still covers the command itself.
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(_GUARD_SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as error:
            log.warning("no guard for model commands' helpers: %s", error.strerror or type(error).__name__)

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def watch(self, pgid: int) -> None:
        self._say(f"{pgid}\n".encode())

    def release(self) -> None:
        """Tell the guard the group is dealt with and reap it (bounded; a guard that hangs is killed)."""
        if self._process is None:
            return
        self._say(b"done\n")
        process, self._process = self._process, None
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=_GUARD_EXIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _say(self, line: bytes) -> None:
        if self._process is None or self._process.stdin is None:
            return
        with contextlib.suppress(OSError):  # a guard that died cannot be told; the command is still ours to kill
            self._process.stdin.write(line)
            self._process.stdin.flush()
