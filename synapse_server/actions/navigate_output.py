"""What a finished navigate call returns: the verdict with a one-line summary, the envelope moved to a resource.

Shared by the action (``synapse(action="navigate")``), its host-turn steps and the CLI's ``--json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from synapse_server.actions.envelopes import envelope_uri
from synapse_server.navigation.surfaces import NavigateResult

if TYPE_CHECKING:
    from synapse_server.actions.deps import Deps

SUMMARY_CHARS = 300


class NavigateOutput(NavigateResult):
    """The public navigate JSON (NavigateResult, field for field, the envelope moved out) plus the ``summary``."""

    summary: str
    envelope: str = Field("", exclude=True)
    envelope_resource: str | None = Field(
        None, description="where the rendered envelope is readable while the server runs (resources/read)"
    )

    @property
    def is_error(self) -> bool:
        return self.verdict == "failure"


def shelved(result: NavigateResult, deps: Deps, turn_id: str | None = None) -> NavigateOutput:
    """The tool's output: the envelope kept on the server's shelf and linked, the rest as it came."""
    resource = envelope_uri(deps.envelopes.put(result.envelope, turn_id)) if result.envelope else None
    return NavigateOutput(summary=summarize(result), envelope_resource=resource, **result.model_dump())


def result_of(payload: Mapping[str, Any], envelope: str = "") -> NavigateResult:
    """A navigate tool payload back into the strict result model: its action, summary and envelope link dropped
    (``envelope``, when the caller read the linked resource, is put back)."""
    fields = {k: v for k, v in payload.items() if k not in {"action", "summary", "envelope_resource"}}
    return NavigateResult.model_validate({**fields, "envelope": envelope})


def with_summary(result: NavigateResult) -> NavigateOutput:
    return NavigateOutput(summary=summarize(result), **result.model_dump())


def summarize(result: NavigateResult) -> str:
    """One line; an answer citing a superseded record ends with its disclosure, which is never cut."""
    if result.verdict == "answer" and result.model.provider == "extractive":
        return _extractive_summary(result)
    if result.verdict == "answer":
        said = result.answer_surface.text if result.answer_surface is not None else result.conclusion
        head, note = f"answer ({result.status}): ", _superseded_note(result)
        room = max(SUMMARY_CHARS - len(head) - len(note), 20)
        said = said or ""
        return head + (said if len(said) <= room else said[: room - 3] + "...") + note
    if result.verdict == "abstain" and result.reasons:
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
    note += _superseded_note(result)
    head = f"answer ({result.status}): "
    room = max(SUMMARY_CHARS - len(head) - len(note), 20)
    return head + (said if len(said) <= room else said[: room - 3] + "...") + note


def _superseded_note(result: NavigateResult) -> str:
    """`` [mem:adr:0002-… is superseded by mem:adr:0005-… (status: superseded)]`` or nothing."""
    surface = result.answer_surface
    if surface is None or not surface.superseded_disclosures:
        return ""
    return f" [{'; '.join(surface.superseded_disclosures)}]"
