"""The grounding router: re-derive every claim's standing from the final envelope, then decide.

The model proposed a DAG; nothing it says about certainty is read. For each
claim (premises first) the router resolves citations to rendered nodes,
propagates the weakest status, applies the inference-form cap and the
verbatim-restatement rule, and licenses the claim only when one verified node
(or one licensed premise) covers all of its numbers in a single clause. The
answer is accepted only when every prose assertion restates a licensed claim of
the conclusion closure and the whole closure is licensed; otherwise the turn
abstains with the most specific reason found.
"""

from __future__ import annotations

from collections.abc import Mapping

from memdsl import Abstention, Answer, Claim
from synapse_server.navigation.atoms import atomic_units, restatement_targets
from synapse_server.navigation.claims import (
    CAPPING_FORMS,
    CitationFinding,
    ClaimFinding,
    Decision,
    Reason,
    ordered_reasons,
)
from synapse_server.navigation.coverage import calculation_coverage, is_restatement, licensing_clause, restated_unit
from synapse_server.navigation.epistemics import Status, weakest
from synapse_server.navigation.numbers import all_numbers
from synapse_server.navigation.text import normalise_words, plain_text
from synapse_server.navigation.view import View

CLAIM_TYPES = frozenset({"claim", "finding"})
CANONICAL = frozenset({"missing-hop", "stale", "false-premise", "low-coverage"})


def route(answer: Answer, view: View, version: int) -> Decision:
    findings: dict[str, ClaimFinding] = {}
    for claim in _premises_first(answer):
        findings[claim.id] = judge_claim(claim, view, findings)
    closure = answer.closure(answer.conclusion)
    conclusion = findings[answer.conclusion]
    assertions: tuple[tuple[str, str], ...]
    if version == 1:
        assertions = ((conclusion.text, conclusion.id),)
    else:
        assertions = tuple((b.text, b.claim_id) for b in answer.bindings)
    reasons: set[str] = set()
    for cid in sorted(closure):
        reasons.update(findings[cid].reasons)
    unbound = [text for text, cid in assertions if not _restates(text, findings[cid].text)]
    answer_text = answer.prose if version == 2 else conclusion.text
    marked_up = not _markup_free(answer_text or "") or any(not _markup_free(text) for text, _ in assertions)
    if unbound or marked_up:
        reasons.add("low-coverage")
    licensed = all(findings[cid].licensed for cid in closure) and not unbound and not marked_up
    outdated = any(findings[cid].outdated for cid in closure)
    if licensed:
        return Decision(
            verdict="answer",
            status=conclusion.status,
            reasons=(),
            conclusion=conclusion.id,
            outdated=outdated,
            detail="answer licensed by verified cited claims",
            claims=findings,
            assertions=assertions,
            answer_text=answer_text,
            version=version,
        )
    ordered = ordered_reasons(frozenset(reasons)) or ("low-coverage",)
    return Decision(
        verdict="abstain",
        status=None,
        reasons=ordered,
        conclusion=conclusion.id,
        outdated=False,
        detail="the answer carries markup (a link, an image or HTML) that is not evidence"
        if marked_up
        else _detail(ordered[0], unbound),
        claims=findings,
        assertions=assertions,
        answer_text=None,
        version=version,
    )


def model_abstention(abstention: Abstention) -> Decision:
    """The model's own labelled abstention; a non-canonical label is reported as low-coverage."""
    reason: Reason = abstention.label if abstention.label in CANONICAL else "low-coverage"  # type: ignore[assignment]
    return Decision(
        verdict="abstain",
        status=None,
        reasons=(reason,),
        conclusion=None,
        outdated=False,
        detail=f"the navigator abstained ({reason})",
        claims={},
        assertions=(),
        answer_text=None,
        version=2,
    )


def judge_claim(claim: Claim, view: View, done: Mapping[str, ClaimFinding]) -> ClaimFinding:
    citations = tuple(_cite(ref, view) for ref in claim.cites)
    premises = tuple(done[p] for p in claim.premises)
    reasons: set[Reason] = set()
    for c in citations:
        if c.address is None or c.unresolved:
            reasons.add("missing-hop")
        if c.stale:
            reasons.add("stale")
        if c.refuted:
            reasons.add("false-premise")
    for p in premises:
        if not p.licensed:
            reasons.update(p.reasons or ("low-coverage",))

    statuses: list[Status] = [c.status or "inferred" for c in citations] + [p.status for p in premises]
    status = weakest(statuses) if statuses else "inferred"
    extrapolation = claim.form in CAPPING_FORMS
    if claim.form in ("restatement", "deduction", "comparison") and not _carries_over(claim, citations, premises, view):
        # Code cannot check entailment: a deduction or comparison keeps its grounds' status only when it
        # says exactly what a cited clause or a premise says; any new wording is an extrapolation.
        extrapolation = True
    if extrapolation:
        status = "inferred"

    licensed, clauses = _license(claim, citations, premises, view)
    if not licensed and not reasons:
        reasons.add("low-coverage")
    outdated = licensed and (any(c.outdated for c in citations if c.licensable) or any(p.outdated for p in premises))
    if reasons - {"low-coverage"}:
        licensed = False
    return ClaimFinding(
        id=claim.id,
        form=claim.form,
        text=claim.text,
        premises=claim.premises,
        citations=citations,
        status=status,
        licensed=licensed,
        reasons=ordered_reasons(frozenset(reasons)) if not licensed else (),
        extrapolation=extrapolation,
        outdated=outdated,
        clauses=clauses,
    )


def _cite(ref: str, view: View) -> CitationFinding:
    address = ref if view.admitted(ref) else view.address_of(ref)
    if address is None:
        return CitationFinding(ref, None, None, False, unresolved=True)
    facts = view.epistemics[address]
    taints = facts.taints
    licensable = facts.tether_status != "inferred" and not (taints - {"contested"})
    return CitationFinding(
        ref=ref,
        address=address,
        status=facts.status,
        licensable=licensable,
        stale="stale" in taints,
        unresolved="unresolved" in taints,
        refuted="refuted" in taints,
        contested="contested" in taints,
        outdated=facts.outdated,
    )


def _units_of(address: str, view: View) -> list[str]:
    """The atomic clauses of a node: what one number may be licensed by."""
    node = view.graph.nodes[address]
    units = [u.text for u in atomic_units(node.body)]
    if node.type in CLAIM_TYPES and node.title:
        units.append(node.title)
    return units


def _targets_of(address: str, view: View) -> list[str]:
    """What a restatement may copy: atomic units, whole sentences, and a claim note's own claim."""
    node = view.graph.nodes[address]
    targets = [u.text for u in restatement_targets(node.body)]
    if node.type in CLAIM_TYPES and node.title:
        targets.append(node.title)
    return targets


def _verbatim(text: str, citations: tuple[CitationFinding, ...], view: View) -> bool:
    return any(c.address is not None and is_restatement(text, _targets_of(c.address, view)) for c in citations)


def _carries_over(
    claim: Claim, citations: tuple[CitationFinding, ...], premises: tuple[ClaimFinding, ...], view: View
) -> bool:
    """The claim restates a cited clause verbatim, or (for a derived form) one of its premises."""
    if _verbatim(claim.text, citations, view):
        return True
    return claim.form != "restatement" and any(_restates(claim.text, p.text) for p in premises)


def _license(
    claim: Claim, citations: tuple[CitationFinding, ...], premises: tuple[ClaimFinding, ...], view: View
) -> tuple[bool, tuple[str, ...]]:
    """Whether the claim is licensed, and by which clause texts (never pooled across clauses)."""
    text = claim.text
    if claim.form == "calculation":
        return _license_calculation(claim, citations, premises, view)
    verified = [c for c in citations if c.licensable and c.address is not None]
    if citations:
        for c in verified:
            assert c.address is not None
            restated = restated_unit(text, _targets_of(c.address, view))
            if restated is not None:
                return True, _clauses_within(restated, c.address, view)
            clause = licensing_clause(text, _units_of(c.address, view))
            if clause is not None:
                return True, (_clause_text(clause),)
        return False, ()
    if not premises or not all(p.licensed for p in premises):
        return False, ()
    if not all_numbers(text):
        return True, tuple(c for p in premises for c in p.clauses)
    for p in premises:
        clause = licensing_clause(text, list(p.clauses))
        if clause is not None:
            return True, (_clause_text(clause),)
    return False, ()


def _clauses_within(restated: str, address: str, view: View) -> tuple[str, ...]:
    """The atomic clauses of a restated whole sentence: a later claim may take figures from one of them only."""
    body = view.graph.nodes[address].body
    for target in restatement_targets(body):
        if target.text == restated:
            inside = tuple(u.text for u in atomic_units(body) if target.start <= u.start and u.end <= target.end)
            return inside or (restated,)
    return (restated,)


def _license_calculation(
    claim: Claim, citations: tuple[CitationFinding, ...], premises: tuple[ClaimFinding, ...], view: View
) -> tuple[bool, tuple[str, ...]]:
    """A derived figure is licensed only by an evaluated derivation whose operands one clause supplies."""
    if claim.derive is None or any(not p.licensed for p in premises):
        return False, ()
    sources: list[str] = [
        u for c in citations if c.licensable and c.address is not None for u in _units_of(c.address, view)
    ]
    sources.extend(clause for p in premises for clause in p.clauses)
    for source in sources:
        if calculation_coverage(claim.text, claim.derive, source).covered:
            return True, (source,)
    return False, ()


def _clause_text(span: object) -> str:
    return span if isinstance(span, str) else str(getattr(span, "text", span))


def _markup_free(text: str) -> bool:
    """Matching ignores Markdown and HTML, so the answer itself may carry none: the projector copies it raw."""
    return " ".join(plain_text(text).split()) == " ".join(text.split())


def _restates(assertion: str, claim_text: str) -> bool:
    return normalise_words(assertion) == normalise_words(claim_text)


def _premises_first(answer: Answer) -> list[Claim]:
    by_id = {c.id: c for c in answer.claims}
    ordered: list[Claim] = []
    seen: set[str] = set()

    def visit(cid: str) -> None:
        if cid in seen:
            return
        seen.add(cid)
        for premise in by_id[cid].premises:
            visit(premise)
        ordered.append(by_id[cid])

    for claim in answer.claims:
        visit(claim.id)
    return ordered


def _detail(reason: str, unbound: list[str]) -> str:
    if unbound:
        return "a prose assertion does not restate the claim it is bound to"
    return {
        "missing-hop": "a cited address or relation is absent from the envelope",
        "stale": "a cited tether no longer verifies the bytes it pins",
        "false-premise": "a verifier refuted a cited ground",
        "low-coverage": "the conclusion is not fully licensed by verified cited material",
    }[reason]
