"""A client-side bound on every call into PostgreSQL: a server that stops answering is cut off, not waited for.

``connect_timeout`` bounds a connection attempt and ``statement_timeout`` lets a live server cancel its
own slow statement, but a server that is stopped (SIGSTOP, a paused VM) or cut off by a partition takes
the bytes of a query and never answers, and TCP keepalives see a live kernel. So every block of work on a
connection runs under a deadline kept by one watchdog thread per store. A quick block (a search channel,
a count) past its deadline has its socket shut down, which wakes the waiting driver call with an error.
A patient block (a sync, whose one statement can rightly run for minutes at 100k rows) is cut only when
a fresh connection gets no answer either; while the server answers one, the block is given more time.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

__all__ = ["Watch", "Watchdog"]


@dataclass
class Watch:
    """One block under a deadline; ``cut`` says the watchdog shut its connection down."""

    fileno: int
    deadline: float
    patient: bool
    cut: bool = False


class Watchdog:
    """Cuts the connection of a block that outlives its deadline (see the module doc)."""

    def __init__(self, seconds: float, answers: Callable[[], bool]) -> None:
        """``answers()`` asks a fresh connection for a reply within ``seconds``: False means the server is gone."""
        self.seconds = seconds
        self._answers = answers
        self._cond = threading.Condition()
        self._armed: dict[int, Watch] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextmanager
    def watching(self, fileno: int, *, patient: bool = False) -> Iterator[Watch]:
        """Run the block under a deadline of ``seconds`` on the connection whose socket is ``fileno``."""
        watch = Watch(fileno, time.monotonic() + self.seconds, patient)
        key = next(self._ids)
        with self._cond:
            self._start()
            self._armed[key] = watch
            self._cond.notify()
        try:
            yield watch
        finally:
            with self._cond:  # once disarmed, the socket is never touched: the caller may close it
                del self._armed[key]

    def close(self) -> None:
        """Stop the thread and wait for it (a process that forks next must hold no other thread)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
            thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return  # (a forked child has the object but not the thread: it starts its own)
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="synapse-pg-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                now = time.monotonic()
                due = next(((k, w) for k, w in self._armed.items() if not w.cut and w.deadline <= now), None)
                if due is None:
                    nearest = min((w.deadline for w in self._armed.values() if not w.cut), default=None)
                    self._cond.wait(None if nearest is None else nearest - now)
                    continue
                key, watch = due
                if not watch.patient:
                    self._cut(watch)
                    continue
            alive = self._answers()  # outside the lock: blocks arm and disarm meanwhile
            with self._cond:
                if self._armed.get(key) is not watch:
                    continue  # the block finished while the server was asked
                if alive:
                    watch.deadline = time.monotonic() + self.seconds
                else:
                    self._cut(watch)

    def _cut(self, watch: Watch) -> None:
        """Shut the socket down (held under the lock, so the block cannot have closed it yet)."""
        watch.cut = True
        try:
            sock = socket.socket(fileno=os.dup(watch.fileno))
        except OSError:
            return
        with sock, suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
