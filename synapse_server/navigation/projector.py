"""Project the router's decision into ``answer_surface`` v1 and ``trace_surface`` v1 — or fail closed.

The projector copies, it never writes: answer text is the router-approved
prose (v2) or conclusion text (legacy v1), status comes only from the
decision, citations only from the final envelope. Before anything leaves, the
surfaces are checked against the trusted structures; any disagreement raises
:class:`IntegrityError`, which the turn turns into an abstention. A cited record
that is not current (superseded, deprecated, reverted, rejected) puts its
canonical disclosure on the answer and the trace, exactly as an outdated pin
does: the disclosures are recomputed from the envelope, never taken from the
model, and a surface that drops or rewrites one fails closed. The trace is
checked separately: when only it disagrees it is withheld and the answer stands.
"""

from __future__ import annotations

from collections.abc import Iterable

from synapse_server.navigation.claims import ClaimFinding, Decision
from synapse_server.navigation.epistemics import OUTDATED_DISCLOSURE, STATUS_ORDER, NodeEpistemics, Status, weakest
from synapse_server.navigation.refusals import public_refs
from synapse_server.navigation.surfaces import (
    AnswerCitation,
    AnswerSurface,
    Flags,
    Telemetry,
    TraceAbstention,
    TraceAssertion,
    TraceCitation,
    TraceClaim,
    TraceSurface,
)
from synapse_server.navigation.view import View


class IntegrityError(Exception):
    """The decision, the DAG and the surfaces disagree: nothing may be shown as an answer."""


def answer_surface(decision: Decision, view: View, closure: frozenset[str]) -> AnswerSurface:
    if decision.verdict != "answer" or decision.conclusion is None or decision.answer_text is None:
        raise IntegrityError("an answer surface needs an accepted answer")
    conclusion = decision.claims[decision.conclusion]
    citations: dict[str, list[str]] = {}
    for cid in sorted(closure):
        for address in _relied_on(cid, decision):
            citations.setdefault(address, []).append(cid)
    rows = [_answer_citation(address, sorted(set(ids)), view, decision) for address, ids in sorted(citations.items())]
    surface = AnswerSurface(
        text=decision.answer_text,
        conclusion_claim_id=conclusion.id,
        inference_form=conclusion.form,
        status=conclusion.status,
        premise_claim_ids=list(conclusion.premises),
        citations=rows,
        outdated=decision.outdated,
        disclosure=OUTDATED_DISCLOSURE if decision.outdated else None,
        superseded=bool(decision.superseded),
        superseded_disclosures=list(decision.superseded),
    )
    check_answer(surface, decision, view, closure)
    return surface


def check_answer(surface: AnswerSurface, decision: Decision, view: View, closure: frozenset[str]) -> None:
    """Every agreement the answer surface must have with the trusted structures."""
    conclusion = decision.claims.get(surface.conclusion_claim_id)
    if conclusion is None or surface.conclusion_claim_id != decision.conclusion:
        raise IntegrityError("conclusion claim differs from the decision")
    if surface.status != decision.status or surface.status != conclusion.status:
        raise IntegrityError("status differs from the router decision")
    if not all(decision.claims[c].licensed for c in closure):
        raise IntegrityError("an unlicensed claim sits in the conclusion closure")
    if any(cid not in closure for _, cid in decision.assertions):
        raise IntegrityError("a prose assertion is bound outside the conclusion closure")
    if decision.version == 2 and "".join(t for t, _ in decision.assertions).strip() == "":
        raise IntegrityError("no bound prose")
    if decision.version == 1 and surface.text != conclusion.text:
        raise IntegrityError("legacy answer text differs from the conclusion claim")
    if not surface.citations:
        raise IntegrityError("an answer without citations")
    for row in surface.citations:
        if not view.admitted(row.address):
            raise IntegrityError("a citation is not in the final envelope")
        facts = view.epistemics[row.address]
        if row.status != facts.status or row.outdated != facts.outdated:
            raise IntegrityError("a citation's status or outdated flag differs from the envelope")
        node = view.graph.nodes[row.address]
        if row.title != node.title or row.store != _store(row.address):
            raise IntegrityError("a citation's title or store differs from its node")
        if row.quotes != _quotes(row.address, row.claim_ids, decision):
            raise IntegrityError("a citation quotes more than the sentences its claims restate verbatim")
        if row.superseded_by != list(facts.superseded_by) or row.supersession != facts.supersession:
            raise IntegrityError("a citation's supersession differs from the envelope")
    relied = [
        view.epistemics[r.address] for r in surface.citations if any(decision.claims[c].licensed for c in r.claim_ids)
    ]
    if STATUS_ORDER[surface.status] > STATUS_ORDER[_ceiling(relied)]:
        raise IntegrityError("answer status is stronger than its evidence")
    if surface.outdated != decision.outdated or (surface.disclosure is not None) != surface.outdated:
        raise IntegrityError("outdated flag and disclosure disagree")
    if surface.outdated and surface.disclosure != OUTDATED_DISCLOSURE:
        raise IntegrityError("non-canonical outdated disclosure")
    check_supersession(surface, decision, view)


def check_supersession(surface: AnswerSurface, decision: Decision, view: View) -> None:
    """The answer carries, word for word, the disclosure of every cited record that is not current, and no other."""
    expected = [
        disclosure
        for row in sorted(surface.citations, key=lambda r: r.address)
        if (disclosure := view.epistemics[row.address].superseded_disclosure) is not None
    ]
    if list(decision.superseded) != expected:
        raise IntegrityError("the decision's supersession disclosures differ from the envelope")
    if surface.superseded != bool(expected) or surface.superseded_disclosures != expected:
        raise IntegrityError("a superseded citation without its canonical disclosure")


def trace_surface(decision: Decision, view: View, telemetry: Telemetry) -> TraceSurface:
    claims = [_trace_claim(f) for f in decision.claims.values()]
    direct: dict[str, list[str]] = {}
    for finding in decision.claims.values():
        for address in finding.cited_addresses:
            direct.setdefault(address, []).append(finding.id)
    citations = [
        TraceCitation(
            address=address,
            claim_ids=sorted(set(ids)),
            status=view.epistemics[address].status,
            flags=_node_flags(address, view),
        )
        for address, ids in sorted(direct.items())
    ]
    abstention = None
    if decision.verdict == "abstain":
        abstention = TraceAbstention(
            reasons=list(decision.reasons),
            detail="; ".join((decision.detail, *(public_refs(line, view) for line in decision.problem_lines))),
        )
    trace = TraceSurface(
        verdict=decision.verdict,
        status=decision.status,
        conclusion_claim_id=decision.conclusion,
        claims=claims,
        citations=citations,
        assertions=[TraceAssertion(text=t, claim_id=c) for t, c in decision.assertions],
        disclosures=([OUTDATED_DISCLOSURE] if decision.outdated else []) + list(decision.superseded),
        abstention=abstention,
        telemetry=telemetry,
    )
    check_trace(trace, decision)
    return trace


def check_trace(trace: TraceSurface, decision: Decision) -> None:
    ids = {c.id for c in trace.claims}
    if ids != set(decision.claims):
        raise IntegrityError("trace claims differ from the DAG")
    for claim in trace.claims:
        if claim.status != decision.claims[claim.id].status:
            raise IntegrityError("trace claim status differs from the router")
        if any(p not in ids for p in claim.premise_claim_ids):
            raise IntegrityError("trace premise outside the DAG")
    if any(a.claim_id not in ids for a in trace.assertions):
        raise IntegrityError("trace assertion bound to an unknown claim")
    if trace.verdict != decision.verdict or trace.status != decision.status:
        raise IntegrityError("trace verdict differs from the decision")
    if any(d not in trace.disclosures for d in decision.superseded):
        raise IntegrityError("the trace drops a supersession disclosure")


def _relied_on(cid: str, decision: Decision) -> Iterable[str]:
    """Addresses a claim relies on, directly or through its premises."""
    seen: set[str] = set()
    stack = [cid]
    while stack:
        finding = decision.claims[stack.pop()]
        yield from (a for a in finding.cited_addresses if a not in seen)
        seen.update(finding.cited_addresses)
        stack.extend(finding.premises)


def _answer_citation(address: str, claim_ids: list[str], view: View, decision: Decision) -> AnswerCitation:
    facts = view.epistemics[address]
    return AnswerCitation(
        address=address,
        claim_ids=claim_ids,
        status=facts.status,
        outdated=facts.outdated,
        title=view.graph.nodes[address].title,
        store=_store(address),
        quotes=_quotes(address, claim_ids, decision),
        superseded_by=list(facts.superseded_by),
        supersession=facts.supersession,
    )


def _store(address: str) -> str:
    """The address's store (``mem``, ``zk``, ``repo``, ``data``), as ``get`` names it."""
    return address.split(":", 1)[0]


def _quotes(address: str, claim_ids: list[str], decision: Decision) -> list[str]:
    """The sentences of ``address`` that licensed claims restate verbatim: the only source text a card shows."""
    found = (decision.claims[cid].quote for cid in claim_ids)
    return list(dict.fromkeys(q[1] for q in found if q is not None and q[0] == address))


def _ceiling(facts: list[NodeEpistemics]) -> Status:
    """The weakest status among relied-on nodes: weakest-link propagation means the answer can never exceed it."""
    return weakest(f.status for f in facts)


def claim_flags(finding: ClaimFinding) -> Flags:
    """The claim's flags, each read from its typed attribute."""
    return Flags(
        stale=finding.stale,
        unresolved=finding.unresolved,
        refuted=finding.refuted,
        extrapolation=finding.extrapolation,
        contested=finding.contested,
        outdated=finding.outdated,
        superseded=finding.superseded,
    )


def _trace_claim(finding: ClaimFinding) -> TraceClaim:
    return TraceClaim(
        id=finding.id,
        text=finding.text,
        inference_form=finding.form,
        premise_claim_ids=list(finding.premises),
        status=finding.status,
        flags=claim_flags(finding),
        citation_addresses=list(finding.cited_addresses),
    )


def _node_flags(address: str, view: View) -> Flags:
    facts = view.epistemics[address]
    return Flags(
        stale="stale" in facts.taints,
        unresolved="unresolved" in facts.taints,
        refuted="refuted" in facts.taints,
        contested="contested" in facts.taints,
        outdated=facts.outdated,
        superseded=facts.superseded,
    )


__all__ = [
    "IntegrityError",
    "answer_surface",
    "check_answer",
    "check_supersession",
    "check_trace",
    "trace_surface",
    "weakest",
]
