"""Navigate turns the dashboard runs in the background, so the page can show progress while the worker works.

Each turn goes through the same write-free dispatcher as the MCP tool (so the
isolated worker, its timeout and its crash mapping all apply), and its result
is recorded in the history before the page may show it: a card is drawn only
from that record.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup

from synapse_server.actions.navigate_output import result_of
from synapse_server.dashboard.history import Entry, History, Origin
from synapse_server.errors import typed
from synapse_server.mcp.dispatch import Dispatcher, error_payload
from synapse_server.navigation.surfaces import NavigateResult

MAX_RUNS_KEPT = 200


@dataclass
class Run:
    """One navigate turn: running, then done (an entry in the history) or refused (a structured error)."""

    id: str
    question: str
    started: float = field(default_factory=time.monotonic)
    state: Literal["running", "done", "error"] = "running"
    entry: Entry | None = None
    error: dict[str, Any] | None = None
    finished: anyio.Event = field(default_factory=anyio.Event)

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started


def public_result(payload: dict[str, Any]) -> NavigateResult:
    """The tool's navigate JSON back into the strict result model (its ``action`` and ``summary`` dropped)."""
    return result_of(payload)


async def navigate_once(dispatcher: Dispatcher, history: History, question: str, origin: Origin) -> Entry | dict:
    """Run one turn and record it; a refused call (invalid question, bad config) comes back as its error payload.

    So does a history the cache cannot keep safely (a symlink where its file or folder should be).
    """
    outcome = await dispatcher.call({"action": "navigate", "question": question})
    if "error" in outcome.payload:
        return dict(outcome.payload["error"])
    result = public_result(outcome.payload)
    try:
        return await anyio.to_thread.run_sync(history.record, question, result, origin)
    except Exception as exc:
        if (known := typed(exc)) is None:
            raise
        return dict(error_payload(known, "navigate")["error"])


class Runs:
    """The turns started from the ask page, by id, run in the app's task group."""

    def __init__(self, dispatcher: Dispatcher, history: History, *, concurrency: int = 2) -> None:
        self.dispatcher = dispatcher
        self.history = history
        self._runs: dict[str, Run] = {}
        self._limit = anyio.CapacityLimiter(concurrency)
        self.group: TaskGroup | None = None

    def start(self, question: str) -> Run:
        if self.group is None:
            raise RuntimeError("the dashboard's task group is not running")
        run = Run(id=secrets.token_hex(8), question=question)
        self._runs[run.id] = run
        while len(self._runs) > MAX_RUNS_KEPT:
            self._runs.pop(next(iter(self._runs)))
        self.group.start_soon(self._work, run)
        return run

    def get(self, run_id: str) -> Run | None:
        return self._runs.get(run_id)

    async def _work(self, run: Run) -> None:
        try:
            async with self._limit:
                done = await navigate_once(self.dispatcher, self.history, run.question, "ask")
            if isinstance(done, Entry):
                run.entry, run.state = done, "done"
            else:
                run.error, run.state = done, "error"
        finally:
            run.finished.set()
