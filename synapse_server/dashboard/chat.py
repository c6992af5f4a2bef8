"""The dashboard's chat agent: a configured model that talks with the user and calls the write-free tool.

With the offline ``extractive`` model there is no one to talk to, so each
message is simply asked as a navigate question. Any other model (the same
specs as navigate) gets a short system prompt naming the tool's actions and
answers either in prose or with one ``CALL {json}`` line per step; the call
runs through the write-free dispatcher (build is refused there), its result
goes back to the model, and after a few steps the model must answer.

A message is answered in the background (the app's task group), like an ask
turn: the user's line shows at once, each step joins the transcript as it
ends, and the chat page refreshes itself while the agent is busy.

The trust rule lives here: a message carries a card only through ``entry_id``,
which only this module sets, after the dispatcher ran navigate and the
history recorded it. What the model writes - even a perfect copy of an answer
card's JSON - is kept as plain text.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup

from synapse_server.dashboard.history import Entry, History
from synapse_server.dashboard.runs import navigate_once
from synapse_server.mcp.dispatch import Dispatcher
from synapse_server.models import Model, ModelError, parse_model_spec, resolve_model
from synapse_server.models.spec import NO_MODEL_OUTSIDE_NAVIGATE

log = logging.getLogger(__name__)

MAX_STEPS = 4
RESULT_CHARS = 4000
CALL_PREFIX = "CALL "
SYSTEM = (
    "You are the chat agent of a Synapse dashboard. You answer from the project's own evidence by calling the "
    "synapse tool; never answer from your own knowledge. To call it, reply with exactly one line: "
    'CALL {"action": "<name>", ...parameters}. Actions: navigate (question) for a cited answer or an abstention; '
    "search (query), get (id), frame (question), connections (id), matrix, synthesize, debate. "
    "This dashboard is write-free: build is refused. After a result, either call again or answer the user in "
    "prose; report an abstention's reason as it is."
)


@dataclass(frozen=True)
class Message:
    """One line of the transcript. ``entry_id`` (set only by the agent itself) is what makes a card."""

    role: Literal["user", "assistant", "tool"]
    text: str
    entry_id: str | None = None


class ChatAgent:
    """One chat: a transcript and the model that answers in it."""

    def __init__(
        self, spec: str, dispatcher: Dispatcher, history: History, *, cwd: Path, refusal: str | None = None
    ) -> None:
        self.spec = spec
        self.refusal = refusal
        """Why the model may not run (an untrusted config model): each message then gets this answer."""
        self.dispatcher = dispatcher
        self.history = history
        self.cwd = cwd
        self.messages: list[Message] = []
        self.group: TaskGroup | None = None
        self.doing = ""
        """What the agent is waiting for now (shown as progress while it is busy)."""
        self._model: Model | None = None
        self._idle: anyio.Event | None = None
        self._started = 0.0

    @property
    def offline(self) -> bool:
        return parse_model_spec(self.spec).provider in NO_MODEL_OUTSIDE_NAVIGATE

    @property
    def busy(self) -> bool:
        return self._idle is not None and not self._idle.is_set()

    def elapsed_s(self) -> float:
        return time.monotonic() - self._started

    def start(self, text: str) -> bool:
        """Take one message: it shows at once and is answered in the background; False while one is answered."""
        if self.busy:
            return False
        if self.group is None:
            raise RuntimeError("the dashboard's task group is not running")
        self.messages.append(Message("user", text))
        if self.refusal is not None:
            self.messages.append(Message("tool", f"the chat model is refused: {self.refusal}"))
            return True
        self._idle, self._started = anyio.Event(), time.monotonic()
        self.group.start_soon(self._answer, text)
        return True

    async def wait(self, seconds: float) -> None:
        """Until the current message is answered, or ``seconds`` pass."""
        if self._idle is not None:
            with anyio.move_on_after(seconds):
                await self._idle.wait()

    async def _answer(self, text: str) -> None:
        try:
            if self.offline:
                await self._tool({"action": "navigate", "question": text})
            else:
                await self._converse()
        finally:
            self.doing = ""
            if self._idle is not None:
                self._idle.set()

    async def _converse(self) -> None:
        for step in range(1, MAX_STEPS + 1):
            self.doing = f"waiting for the model (step {step} of {MAX_STEPS})"
            try:
                reply = await anyio.to_thread.run_sync(self._ask, self._prompt(self.messages))
            except ModelError as error:
                self.messages.append(Message("tool", f"the chat model failed: {error.kind}: {error.message}"))
                return
            call = parse_call(reply)
            if call is None:
                self.messages.append(Message("assistant", reply.strip()))
                return
            await self._tool(call)
        self.messages.append(Message("tool", f"stopped after {MAX_STEPS} tool calls without a final answer"))

    async def _tool(self, call: dict[str, Any]) -> None:
        """Run one call write-free; a navigate result becomes a recorded entry, anything else a result line."""
        self.doing = f"running {str(call.get('action'))[:40]} write-free"
        if call.get("action") == "navigate" and isinstance(call.get("question"), str):
            self.doing = "navigating in an isolated worker"
            done = await navigate_once(self.dispatcher, self.history, call["question"], "chat")
            if isinstance(done, Entry):
                self.messages.append(Message("tool", _summary(done), entry_id=done.id))
            else:
                self.messages.append(Message("tool", f"navigate refused: {done.get('kind')}: {done.get('message')}"))
            return
        outcome = await self.dispatcher.call(call)
        text = json.dumps(outcome.payload, ensure_ascii=False)
        self.messages.append(Message("tool", text if len(text) <= RESULT_CHARS else text[: RESULT_CHARS - 1] + "…"))

    def _ask(self, prompt: str) -> str:
        if self._model is None:
            self._model = resolve_model(self.spec, cwd=self.cwd)
        return self._model.complete(prompt, system=SYSTEM).text

    @staticmethod
    def _prompt(messages: Sequence[Message]) -> str:
        return "\n\n".join(f"{m.role.upper()}: {m.text}" for m in messages) + "\n\nASSISTANT:"


def parse_call(reply: str) -> dict[str, Any] | None:
    """The tool call in a reply (a line ``CALL {json object}`` with a string ``action``), else None."""
    for line in reply.splitlines():
        if not line.startswith(CALL_PREFIX):
            continue
        try:
            call = json.loads(line[len(CALL_PREFIX) :])
        except json.JSONDecodeError:
            return None
        return call if isinstance(call, dict) and isinstance(call.get("action"), str) else None
    return None


def _summary(entry: Entry) -> str:
    result = entry.result
    if result.verdict == "answer":
        return f"navigate answered ({result.status})"
    if result.verdict == "abstain":
        return f"navigate abstained ({', '.join(result.reasons) or result.halted_reason})"
    return f"navigate failed ({result.halted_reason})"
