"""navigate: one grounded-navigation turn, handed whole to the isolation layer.

The parent only validates (the dispatcher, through :class:`NavigateParams`), reads the
workspace config for the timeout, the concurrency cap and the configured
model, and passes the request to a fresh worker (forked from a warm template).
A call that finds ``navigate.max_concurrent`` turns already running waits in a
queue and says so in its progress notifications. Whatever comes back - an answer, a labelled
abstention, a guardrail stop, or an operational failure - is returned with a one-line summary in front
and its rendered envelope moved to a resource (``envelope_resource``), out of the caller's context.

Under ``model: host`` (``synapse serve``'s default) the call returns a pending turn instead, and the
host model continues it with ``turn`` and ``reply`` (:mod:`synapse_server.actions.host_turn`).
"""

from __future__ import annotations

import anyio
from pydantic import BaseModel, Field

from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.actions.host_turn import continue_turn, start_turn
from synapse_server.actions.navigate_output import NavigateOutput, shelved, summarize, with_summary
from synapse_server.context.progress import current_reporter
from synapse_server.errors import InvalidInput
from synapse_server.host_turns.record import MAX_REPLY_CHARS
from synapse_server.host_turns.token import MAX_TOKEN_CHARS
from synapse_server.isolation.outcomes import configured_model
from synapse_server.models import model_spec_from, parse_model_spec
from synapse_server.navigation.request import MAX_QUESTION_CHARS, NavigateRequest

__all__ = ["SPEC", "NavigateOutput", "NavigateParams", "navigate", "shelved", "summarize", "with_summary"]


class NavigateParams(NavigateRequest):
    """A question starts a turn; ``turn`` and ``reply`` continue a pending one (the host model's reply)."""

    question: str | None = Field(  # type: ignore[assignment]
        None, min_length=1, max_length=MAX_QUESTION_CHARS, description="the question to answer (starts a turn)"
    )
    turn: str | None = Field(
        None, min_length=1, max_length=MAX_TOKEN_CHARS, description="a pending turn's token, to continue it with reply"
    )
    reply: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_REPLY_CHARS,
        description="your @memdsl.out/2 artifact answering the pending turn's prompt (with turn)",
    )

    def request(self) -> NavigateRequest:
        if self.question is None:
            raise InvalidInput(
                "question is required (or turn and reply, to continue a pending turn)", parameter="question"
            )
        return NavigateRequest.model_validate(self.model_dump(exclude={"turn", "reply"}))


async def navigate(params: NavigateParams, deps: Deps) -> BaseModel:
    if params.turn is not None or params.reply is not None:
        return await continue_turn(params, deps)
    request = params.request()
    if deps.settings.model is not None and request.model is None:
        request = request.model_copy(update={"model": deps.settings.model})
    workspace = await anyio.to_thread.run_sync(deps.workspace, abandon_on_cancel=True)
    # refuses a folder that is not a workspace
    await anyio.to_thread.run_sync(lambda: workspace.cache_dir, abandon_on_cancel=True)
    # the spec in force, the server's default included; the worker is told it, so both sides agree
    spec = model_spec_from(workspace.config.model, deps.worker_env(), request.model, deps.settings.default_model)
    if parse_model_spec(spec).provider == "host":
        return await start_turn(request.model_copy(update={"model": None}), deps, workspace)
    request = request.model_copy(update={"model": spec})
    model = await anyio.to_thread.run_sync(
        lambda: configured_model(workspace.config.model, deps.worker_env(), spec, workspace.root),
        abandon_on_cancel=True,
    )
    settings = workspace.config.navigate
    result = await deps.runner.run_turn(
        request,
        timeout_s=settings.timeout_s,
        model=model,
        max_concurrent=settings.max_concurrent,
        progress=current_reporter(),
    )
    return shelved(result, deps)


SPEC = ActionSpec(
    params=NavigateParams,
    handler=navigate,
    does="Answer a question from the project's own evidence (memory, zettelkasten, pinned code, hashed runs): a "
    "cited answer whose status is grounded, measured or inferred, or a labelled abstention when the evidence does "
    "not license one. Runs in an isolated worker; reports which model reasoned. Under the host model it returns "
    'verdict "pending" with a prompt: you navigate, replying with turn= and reply=.',
    say=("answer this from the project evidence", "navigate what we know about X", "give me a grounded answer"),
    hidden=frozenset({"model"}),
    signature="question; or turn, reply",
)
