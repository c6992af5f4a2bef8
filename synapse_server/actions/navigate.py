"""navigate: one grounded-navigation turn, handed whole to the isolation layer.

The parent only validates (the dispatcher, through NavigateRequest), reads the
workspace config for the timeout, the concurrency cap and the configured
model, and passes the request to a fresh worker (forked from a warm template).
A call that finds ``navigate.max_concurrent`` turns already running waits in a
queue and says so in its progress notifications. Whatever comes back - an answer, a labelled
abstention, a guardrail stop, or an operational failure - is returned unchanged
with a one-line summary in front.
"""

from __future__ import annotations

import anyio

from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.actions.progress import current_reporter
from synapse_server.isolation import configured_model
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import NavigateResult

SUMMARY_CHARS = 300


class NavigateOutput(NavigateResult):
    """The public navigate JSON (NavigateResult, field for field) plus the tool's ``summary``."""

    summary: str

    @property
    def is_error(self) -> bool:
        return self.verdict == "failure"


async def navigate(params: NavigateRequest, deps: Deps) -> NavigateOutput:
    request = params
    if deps.settings.model is not None and request.model is None:
        request = request.model_copy(update={"model": deps.settings.model})
    workspace = await anyio.to_thread.run_sync(deps.workspace, abandon_on_cancel=True)
    # refuses a folder that is not a workspace
    await anyio.to_thread.run_sync(lambda: workspace.cache_dir, abandon_on_cancel=True)
    model = await anyio.to_thread.run_sync(
        configured_model,
        workspace.config.model,
        deps.worker_env(),
        request.model,
        workspace.root,
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
    return with_summary(result)


def with_summary(result: NavigateResult) -> NavigateOutput:
    return NavigateOutput(summary=summarize(result), **result.model_dump())


def summarize(result: NavigateResult) -> str:
    if result.verdict == "answer" and result.model.provider == "extractive":
        return _extractive_summary(result)
    if result.verdict == "answer":
        said = result.answer_surface.text if result.answer_surface is not None else result.conclusion
        text = f"answer ({result.status}): {said or ''}"
    elif result.verdict == "abstain" and result.reasons:
        text = f"abstained ({', '.join(result.reasons)}): {result.detail}"
    elif result.verdict == "abstain":
        text = f"stopped ({result.halted_reason}): {result.detail}"
    else:
        text = f"failure ({result.halted_reason}): {result.detail}"
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 3] + "..."


def _extractive_summary(result: NavigateResult) -> str:
    """An offline answer says it is a quote picked by word matching, so no reader takes it for reasoning.

    The note is never cut: a long quote is shortened instead.
    """
    surface = result.answer_surface
    said = (surface.text if surface is not None else result.conclusion) or ""
    sources = ", ".join(citation.address for citation in surface.citations) if surface is not None else ""
    note = f" (quoted from {sources or 'the evidence'}; chosen by the offline navigator by matching the question)"
    head = f"answer ({result.status}): "
    room = max(SUMMARY_CHARS - len(head) - len(note), 20)
    return head + (said if len(said) <= room else said[: room - 3] + "...") + note


SPEC = ActionSpec(
    params=NavigateRequest,
    handler=navigate,
    does="Answer a question from the project's own evidence (memory, zettelkasten, pinned code, hashed runs): a "
    "cited answer whose status is grounded, measured or inferred, or a labelled abstention when the evidence does "
    "not license one. Runs in an isolated worker; reports which model reasoned.",
    say=("answer this from the project evidence", "navigate what we know about X", "give me a grounded answer"),
    hidden=frozenset({"model"}),
)
