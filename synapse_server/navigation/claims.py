"""Per-claim findings of the grounding router: the values the projector copies from.

Kept apart from the router's logic so the projector and the trace depend on
plain values only. ``clauses`` (the licensing clause texts) stay internal:
they are never projected into a public surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from synapse_server.navigation.epistemics import Status

Reason = Literal["missing-hop", "stale", "false-premise", "low-coverage"]
REASON_ORDER: tuple[Reason, ...] = ("missing-hop", "stale", "false-premise", "low-coverage")
CAPPING_FORMS = frozenset({"induction", "abduction", "causal", "analogy", "assumption"})
KEEPING_FORMS = frozenset({"deduction", "calculation", "comparison"})


@dataclass(frozen=True, slots=True)
class CitationFinding:
    """One ``cites`` entry resolved (or not) against the final envelope."""

    ref: str
    address: str | None
    status: Status | None
    licensable: bool
    stale: bool = False
    unresolved: bool = False
    refuted: bool = False
    contested: bool = False
    outdated: bool = False
    why: str = ""
    """What the failing tether check found (``quote not found verbatim in …``): names and hashes, never a body."""
    superseded_by: tuple[str, ...] = ()
    supersession: str | None = None
    """The status word of a record that is not current (see :mod:`synapse_server.navigation.supersession`)."""
    superseded_disclosure: str | None = None
    """The canonical sentence an answer citing this node must carry; None for a current record."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Why a claim is not licensed: the rule and the model's own tokens, safe to show the model and the trace."""

    claim_id: str
    rule: str
    detail: str

    def line(self) -> str:
        return f"{self.claim_id}: {self.rule}: {self.detail}"


@dataclass(frozen=True, slots=True)
class ClaimFinding:
    id: str
    form: str
    text: str
    premises: tuple[str, ...]
    citations: tuple[CitationFinding, ...]
    status: Status
    licensed: bool
    reasons: tuple[Reason, ...]
    extrapolation: bool
    outdated: bool
    clauses: tuple[str, ...] = field(default=(), repr=False)
    problems: tuple[Problem, ...] = ()
    """Why the claim is not licensed, one per rule broken (claim id, rule, the model's own words)."""
    joined: str | None = None
    """``strict`` or ``relative`` when the claim is a conjunction of its premises."""
    quote: tuple[str, str] | None = None
    """``(address, sentence)`` when the claim restates that cited sentence verbatim: the one source text a card may quote."""

    @property
    def cited_addresses(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.address for c in self.citations if c.address is not None))

    @property
    def stale(self) -> bool:
        """A cited node is stale (its tether no longer matches); like the three below, a citation's flag is
        the claim's."""
        return any(c.stale for c in self.citations)

    @property
    def unresolved(self) -> bool:
        return any(c.unresolved for c in self.citations)

    @property
    def refuted(self) -> bool:
        return any(c.refuted for c in self.citations)

    @property
    def contested(self) -> bool:
        return any(c.contested for c in self.citations)

    @property
    def superseded(self) -> bool:
        """A cited record is superseded, deprecated, reverted or rejected: the claim stands, with the disclosure."""
        return any(c.superseded_disclosure is not None for c in self.citations)


@dataclass(frozen=True, slots=True)
class Decision:
    """The router's verdict over one OUTPUT artifact."""

    verdict: Literal["answer", "abstain"]
    status: Status | None
    reasons: tuple[Reason, ...]
    conclusion: str | None
    outdated: bool
    detail: str
    claims: Mapping[str, ClaimFinding]
    assertions: tuple[tuple[str, str], ...]  # (exact prose span, claim id)
    answer_text: str | None
    version: int
    problems: tuple[Problem, ...] = ()
    """Per-claim refusals of an abstention: what the repair prompt and the trace show (as :attr:`problem_lines`)."""
    superseded: tuple[str, ...] = ()
    """An answer's supersession disclosures, one per cited record that is not current, in address order: the
    answer surface, the trace and every card carry them, whatever the answer's own words say."""

    @property
    def problem_lines(self) -> tuple[str, ...]:
        """Each refusal as the line the model and a person read: ``claim: rule: details``."""
        return tuple(problem.line() for problem in self.problems)


def ordered_reasons(reasons: set[str] | frozenset[str] | tuple[str, ...]) -> tuple[Reason, ...]:
    """Most specific first: missing-hop > stale > false-premise > low-coverage."""
    return tuple(r for r in REASON_ORDER if r in reasons)
