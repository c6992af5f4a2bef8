"""OUTPUT values: what a navigating model proposes, as immutable, comparable data.

The parser builds these and the serializer writes them; the engine reads them.
Nothing here validates: a value is only known to be well-formed once it came
out of ``parse_output`` or went through ``serialize_output`` (which refuses
anything it could not write back unambiguously). The helpers below are the
graph questions the engine asks of every answer, so they live beside the data.
"""

from __future__ import annotations

from dataclasses import dataclass

INFERENCE_FORMS = (
    "restatement",
    "deduction",
    "induction",
    "abduction",
    "calculation",
    "comparison",
    "causal",
    "analogy",
    "assumption",
)
"""How a claim follows from its support; the engine maps each form to a status rule."""

ACTION_VERBS = ("expand", "join", "ground", "prune")
"""Registered non-terminal verbs; terminals use the ``@answer`` / ``@abstain`` markers instead."""

CANONICAL_REASONS = ("missing-hop", "stale", "false-premise", "low-coverage")
"""The router's abstention labels, most specific first; the wire label itself stays open."""

FALSE_PREMISE = "false-premise"
"""The one label whose abstention may carry claim lines: the evidence that contradicts the question."""

_PHASE = {"expand": 0, "join": 0, "ground": 1, "prune": 2}


@dataclass(frozen=True, order=True, slots=True)
class ActionCall:
    """One non-terminal action, e.g. ``ground(n1, verifier=quote)``; args are raw ref texts."""

    verb: str
    args: tuple[str, ...]
    kwargs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, order=True, slots=True)
class Claim:
    """One node of the proposed reasoning DAG.

    ``cites`` keeps each ref exactly as written (a local ref such as ``n3`` or a
    canonical address) so the engine resolves it against the envelope it rendered.
    There is deliberately no status: the engine derives it.
    """

    id: str
    form: str
    cites: tuple[str, ...]
    premises: tuple[str, ...]
    derive: str | None
    text: str


@dataclass(frozen=True, order=True, slots=True)
class Binding:
    """A ``cite`` line resolved: ``prose[start:end] == text``, asserted by claim ``claim_id``."""

    claim_id: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Answer:
    """A cited answer: the claim DAG, the public prose (v2 only), its bindings, and the conclusion."""

    claims: tuple[Claim, ...]
    prose: str | None
    bindings: tuple[Binding, ...]
    conclusion: str

    def claim(self, claim_id: str) -> Claim:
        """The claim called ``claim_id``; ``KeyError`` when the answer has none."""
        for claim in self.claims:
            if claim.id == claim_id:
                return claim
        raise KeyError(claim_id)

    def closure(self, claim_id: str) -> frozenset[str]:
        """``claim_id`` plus every claim it transitively rests on (premises of premises ...).

        Iterative, so a long chain cannot hit the recursion limit; a premise that
        names no claim is skipped (the parser never lets one through).
        """
        by_id = {claim.id: claim for claim in self.claims}
        if claim_id not in by_id:
            raise KeyError(claim_id)
        seen = {claim_id}
        stack = [claim_id]
        while stack:
            for premise in by_id[stack.pop()].premises:
                if premise in by_id and premise not in seen:
                    seen.add(premise)
                    stack.append(premise)
        return frozenset(seen)


@dataclass(frozen=True, slots=True)
class Abstention:
    """A labelled refusal: ``@abstain <label> :: <detail>``, then (false-premise, v2 only) claim lines.

    A false premise is only useful to a reader who learns what is true instead, so
    ``@abstain false-premise`` may be followed by claim lines in the answer's own
    claim syntax. They are proposals like any claim: the engine routes them and
    shows one only when it would be licensed. ``detail`` is never shown.
    """

    label: str
    detail: str
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True, slots=True)
class Output:
    """One OUTPUT artifact: its version (1 legacy, 2 current), actions, and exactly one terminal."""

    version: int
    actions: tuple[ActionCall, ...]
    terminal: Answer | Abstention

    def ordered_actions(self) -> tuple[ActionCall, ...]:
        """Actions in execution order: expand/join, then ground, then prune; stable within a phase.

        The order is fixed by the protocol, not by the model, so the graph in view
        is complete before anything is verified and nothing is pruned before use.
        """
        return tuple(sorted(self.actions, key=lambda action: _PHASE.get(action.verb, len(_PHASE))))

    @property
    def answer(self) -> Answer | None:
        """The answer terminal, or ``None`` for an abstention."""
        return self.terminal if isinstance(self.terminal, Answer) else None
