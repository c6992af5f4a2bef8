"""Progress notifications from a long, blocking action to the MCP client.

The server sets the call's reporter (the SDK context's ``report_progress``)
around each tool call in a context variable, so a handler that has progress to
report can find it without every handler taking a context argument; the
variable is per call, so concurrent calls never see each other's reporter.

A blocking action runs on a worker thread and may hold the shared store lock
while it reports. Its progress callback therefore never waits for the event
loop: it drops the update into a queue that an async relay drains (the relay
blocks on a second thread, so nothing polls). Waiting for the loop instead
could deadlock against a second call blocked on that same lock. A cancelled
call abandons its thread rather than wait for it (the client may be gone, and
the server must be able to stop); the thread finishes on its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from queue import SimpleQueue
from typing import TypeVar

import anyio

__all__ = ["Reporter", "Update", "current_reporter", "reporting", "run_with_progress"]

T = TypeVar("T")

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]
"""``report(progress, total, message)``: the SDK context's ``report_progress`` (a no-op without a progress token)."""

Update = Callable[[float, float | None, str], None]
"""What the blocking work calls: ``update(progress, total, message)``; returns at once."""

_REPORTER: ContextVar[Reporter | None] = ContextVar("synapse_progress_reporter", default=None)


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Make ``reporter`` the progress sink of the call running inside this block."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def current_reporter() -> Reporter | None:
    return _REPORTER.get()


async def run_with_progress(work: Callable[[Update], T]) -> T:
    """Run blocking ``work(update)`` on a worker thread, relaying each update to the call's reporter in order."""
    reporter = current_reporter()
    if reporter is None:
        return await anyio.to_thread.run_sync(work, _ignore, abandon_on_cancel=True)
    updates: SimpleQueue[tuple[float, float | None, str] | None] = SimpleQueue()

    def update(progress: float, total: float | None, message: str) -> None:
        updates.put((progress, total, message))

    def work_then_close() -> T:
        try:
            return work(update)
        finally:
            updates.put(None)

    async def relay() -> None:
        while (item := await anyio.to_thread.run_sync(updates.get, abandon_on_cancel=True)) is not None:
            await reporter(*item)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            result = await anyio.to_thread.run_sync(work_then_close, abandon_on_cancel=True)
    except BaseExceptionGroup as failed:
        # The task group wraps what the work raised; callers (the dispatcher) map the typed error itself.
        if len(failed.exceptions) == 1:
            raise failed.exceptions[0] from None
        raise
    return result


def _ignore(progress: float, total: float | None, message: str) -> None:
    """The sink when the caller asked for no progress."""
