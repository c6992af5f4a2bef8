"""The public JSON of a navigate turn: ``answer_surface`` v1, ``trace_surface`` v1, the outer verdict.

Field for field as in the grounded-navigation spec. These models are the
dashboard's display contract: they never carry source bodies, paths, raw
model output or verifier payloads. An answer citation carries its node's
title and store and, for a verbatim restatement only, the sentence restated.
Every model forbids extra fields so a projection bug cannot smuggle data out.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Verdict = Literal["answer", "abstain", "failure"]
Status = Literal["grounded", "measured", "inferred"]
HaltedReason = Literal[
    "answer",
    "abstain",
    "budget",
    "hops",
    "parse-fail",
    "validation",
    "answer-surface-invalid",
    "timeout",
    "native-crash",
    "internal-error",
]


class _Surface(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AnswerCitation(_Surface):
    """One relied-on node as a person reads it: its title and store beside the address ``get`` opens.

    ``quotes`` holds the cited sentence of each claim that restates it verbatim, and nothing else of
    the source; a paraphrase or a figure licensed by alignment quotes nothing.
    """

    address: str
    claim_ids: list[str]
    status: Status
    outdated: bool
    title: str = ""
    store: str = ""
    quotes: list[str] = []
    superseded_by: list[str] = []
    """The records that replace this one (addresses ``get`` opens); empty for a current record."""
    supersession: str | None = None
    """The status word of a record that is not current (``superseded``, ``deprecated``, ``reverted`` …)."""


class AnswerSurface(_Surface):
    version: Literal[1] = 1
    text: str
    conclusion_claim_id: str
    inference_form: str
    status: Status
    premise_claim_ids: list[str]
    citations: list[AnswerCitation]
    outdated: bool
    disclosure: str | None
    superseded: bool = False
    """A cited record is superseded, deprecated, reverted or rejected; it keeps its status."""
    superseded_disclosures: list[str] = []
    """One canonical sentence per cited record that is not current (``<address> is superseded by <address>
    (status: superseded)``): mandatory whenever ``superseded``, exactly as ``disclosure`` is for ``outdated``."""


class Flags(_Surface):
    """What a reader should know about a claim or a cited node: ``refuted`` when a verifier found its quote or
    bytes false (not ``unresolved``: the node itself resolves and ``get`` shows it)."""

    stale: bool = False
    unresolved: bool = False
    refuted: bool = False
    extrapolation: bool = False
    contested: bool = False
    outdated: bool = False
    superseded: bool = False


FLAG_NAMES: tuple[str, ...] = tuple(Flags.model_fields)
"""Every flag, in the order a card shows them: the one list the projector and the card read."""


class TraceClaim(_Surface):
    id: str
    text: str
    inference_form: str
    premise_claim_ids: list[str]
    status: Status
    flags: Flags
    citation_addresses: list[str]


class TraceCitation(_Surface):
    address: str
    claim_ids: list[str]
    status: Status
    flags: Flags


class TraceAssertion(_Surface):
    text: str
    claim_id: str


class TraceAbstention(_Surface):
    reasons: list[str]
    detail: str


class Telemetry(_Surface):
    hops: int
    renavigations: int
    parse_repairs: int
    tokens_spent: int
    loop_break: str


class TraceSurface(_Surface):
    version: Literal[1] = 1
    verdict: Verdict
    status: Status | None
    conclusion_claim_id: str | None
    claims: list[TraceClaim]
    citations: list[TraceCitation]
    assertions: list[TraceAssertion]
    disclosures: list[str]
    abstention: TraceAbstention | None
    telemetry: Telemetry


class ModelInfo(_Surface):
    provider: str
    id: str


class NavigateResult(_Surface):
    """The outer verdict of one navigate turn (the tool's and the CLI's JSON)."""

    verdict: Verdict
    status: Status | None
    reasons: list[str]
    halted_reason: HaltedReason
    conclusion: str | None
    outdated: bool
    detail: str
    answer_surface: AnswerSurface | None
    trace_surface: TraceSurface | None
    envelope: str
    hops: int
    renavigations: int
    tokens_spent: int
    loop_break: str
    model: ModelInfo
    superseded: bool = False
    """The answer cites a record that is not current; ``answer_surface.superseded_disclosures`` says which."""


def failure_result(halted_reason: HaltedReason, detail: str, model: ModelInfo) -> NavigateResult:
    """An operational failure (timeout, native crash, provider or internal error): no surfaces, no reasons."""
    return NavigateResult(
        verdict="failure",
        status=None,
        reasons=[],
        halted_reason=halted_reason,
        conclusion=None,
        outdated=False,
        detail=detail,
        answer_surface=None,
        trace_surface=None,
        envelope="",
        hops=0,
        renavigations=0,
        tokens_spent=0,
        loop_break=halted_reason,
        model=model,
    )
