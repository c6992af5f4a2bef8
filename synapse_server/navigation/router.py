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
from itertools import pairwise

from memdsl import Abstention, Answer, Claim
from synapse_server.language.atoms import atomic_units, restatement_targets
from synapse_server.language.text import markup_tokens, normalise_words, plain_text
from synapse_server.licensing.joins import dangling_subject
from synapse_server.licensing.rules import RuleId
from synapse_server.licensing.units import framed_clauses
from synapse_server.navigation.claims import (
    CAPPING_FORMS,
    CitationFinding,
    ClaimFinding,
    Decision,
    Problem,
    Reason,
    ordered_reasons,
)
from synapse_server.navigation.coverage import restated_unit
from synapse_server.navigation.epistemics import Status, weakest
from synapse_server.navigation.licence import (
    Clause,
    Licence,
    conjunction,
    license_calculation,
    license_words,
)
from synapse_server.navigation.refusals import default_detail, headline, problems_of
from synapse_server.navigation.view import View

CLAIM_TYPES = frozenset({"claim", "finding"})
CANONICAL = frozenset({"missing-hop", "stale", "false-premise", "low-coverage"})


def route(answer: Answer, view: View, version: int) -> Decision:
    findings: dict[str, ClaimFinding] = {}
    for claim in _premises_first(answer.claims):
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
    unbound = [(text, cid) for text, cid in assertions if not _restates(text, findings[cid].text)]
    # A ``which``-join stands for its premises' subjects: it may conclude, but its own words are never published.
    unbound += [(text, cid) for text, cid in assertions if findings[cid].joined == "relative"]
    written = answer.prose if version == 2 else conclusion.text
    markup = markup_tokens(written or "")
    marked_up = bool(markup)
    answer_text = " ".join(plain_text(written).split()) if written is not None else None
    joins = _anaphor_joins(answer, findings) if version == 2 else []
    if joins:
        reasons.add("low-coverage")
    if unbound or marked_up:
        reasons.add("low-coverage")
    licensed = all(findings[cid].licensed for cid in closure) and not unbound and not marked_up and not joins
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
            superseded=superseded_disclosures(closure, findings),
        )
    ordered = ordered_reasons(frozenset(reasons)) or ("low-coverage",)
    problems = problems_of(closure, findings, unbound, markup) + tuple(joins)
    return Decision(
        verdict="abstain",
        status=None,
        reasons=ordered,
        conclusion=conclusion.id,
        outdated=False,
        detail=headline(ordered[0], closure, findings, view) or default_detail(ordered[0], marked_up, bool(unbound)),
        claims=findings,
        assertions=assertions,
        answer_text=None,
        version=version,
        problems=problems,
    )


def superseded_disclosures(closure: frozenset[str], findings: Mapping[str, ClaimFinding]) -> tuple[str, ...]:
    """The disclosure of every record the closure cites that is not current, in address order.

    Every cited record counts, licensing or not: an answer that names a superseded ADR among its citations
    must say so, whatever its prose says.
    """
    found = {
        c.address: c.superseded_disclosure
        for cid in closure
        for c in findings[cid].citations
        if c.address is not None and c.superseded_disclosure is not None
    }
    return tuple(found[address] for address in sorted(found))


def model_abstention(abstention: Abstention, view: View | None = None) -> Decision:
    """The model's own labelled abstention; a non-canonical label is reported as low-coverage.

    The detail never carries the model's reason (it could carry an answer). For low-coverage it names the
    closest evidence the turn read instead: the first node of the envelope, by title and address. For
    false-premise it says what is true instead when it can: the claims written under ``@abstain
    false-premise`` are routed exactly like answer claims, and the text of one that would be licensed is
    quoted with the addresses it rests on (its findings become the decision's claims, so the trace shows them).
    """
    reason: Reason = abstention.label if abstention.label in CANONICAL else "low-coverage"  # type: ignore[assignment]
    detail = f"the navigator abstained ({reason})"
    shown: dict[str, ClaimFinding] = {}
    if reason == "low-coverage" and view is not None and view.order:
        closest = view.order[0]
        title = view.graph.nodes[closest].title if closest in view.graph.nodes else ""
        named = f"{title} ({closest})" if title else closest
        detail += f": nothing it read answers the question; the closest evidence was {named}"
    if reason == "false-premise" and view is not None and abstention.claims:
        findings = _judge_evidence(abstention.claims, view)
        evidence = _contradicting(abstention.claims, findings)
        if evidence is not None:
            grounds = sorted(_grounds(evidence, findings))
            detail += f': the evidence says: "{_public_text(evidence.text)}" ({", ".join(grounds)})'
            closure = Answer(abstention.claims, None, (), evidence.id).closure(evidence.id)
            shown = {cid: findings[cid] for cid in sorted(closure)}
    return Decision(
        verdict="abstain",
        status=None,
        reasons=(reason,),
        conclusion=None,
        outdated=False,
        detail=detail,
        claims=shown,
        assertions=(),
        answer_text=None,
        version=2,
    )


def _judge_evidence(claims: tuple[Claim, ...], view: View) -> dict[str, ClaimFinding]:
    """Every evidence claim judged premises first, as an answer's would be; nothing for a broken DAG."""
    by_id = {c.id: c for c in claims}
    if len(by_id) != len(claims) or any(p not in by_id for c in claims for p in c.premises):
        return {}
    findings: dict[str, ClaimFinding] = {}
    for claim in _premises_first(claims):
        if any(p not in findings for p in claim.premises):  # a premise cycle: the parser refuses one
            return {}
        findings[claim.id] = judge_claim(claim, view, findings)
    return findings


def _contradicting(claims: tuple[Claim, ...], findings: Mapping[str, ClaimFinding]) -> ClaimFinding | None:
    """The claim to quote: licensed, publishable words, resting on evidence; the first not a premise of another."""
    fit = [
        findings[c.id]
        for c in claims
        if c.id in findings and findings[c.id].licensed and _publishable(findings[c.id], findings)
    ]
    premises = {p for finding in fit for p in finding.premises}
    tops = [finding for finding in fit if finding.id not in premises]
    return tops[0] if tops else None


def _publishable(finding: ClaimFinding, findings: Mapping[str, ClaimFinding]) -> bool:
    """Licensed words an answer could publish: one plain line, no markup, not a ``which``-join's own words."""
    text = finding.text
    single_line = text.isprintable() and text == " ".join(text.split())
    return (
        single_line
        and not markup_tokens(text)
        and bool(_public_text(text))
        and finding.joined != "relative"
        and bool(_grounds(finding, findings))
    )


def _public_text(text: str) -> str:
    return " ".join(plain_text(text).split())


def judge_claim(claim: Claim, view: View, done: Mapping[str, ClaimFinding]) -> ClaimFinding:
    citations = tuple(_cite(ref, view) for ref in claim.cites)
    premises = tuple(done[p] for p in claim.premises)
    reasons: set[Reason] = set()
    problems: list[Problem] = []
    for c in citations:
        if c.address is None:
            reasons.add("missing-hop")
            problems.append(Problem(claim.id, "missing-hop", f"{c.ref} is not a rendered node"))
        elif c.unresolved:
            reasons.add("missing-hop")
            problems.append(Problem(claim.id, "missing-hop", f"{c.address}: {c.why or 'its source is absent'}"))
        if c.stale:
            reasons.add("stale")
            problems.append(
                Problem(claim.id, "stale", f"{c.address}: {c.why or 'no longer verifies the bytes it pins'}")
            )
        if c.refuted:
            reasons.add("false-premise")
            problems.append(Problem(claim.id, "false-premise", f"{c.address}: {c.why or 'a verifier refuted it'}"))
    for p in premises:
        if not p.licensed:
            reasons.update(p.reasons or ("low-coverage",))
            problems.append(Problem(claim.id, "premise", f"premise {p.id} is not licensed"))

    statuses: list[Status] = [c.status or "inferred" for c in citations] + [p.status for p in premises]
    status = weakest(statuses) if statuses else "inferred"
    licence = _license(claim, citations, premises, view)
    extrapolation = claim.form in CAPPING_FORMS
    carried = licence.verbatim or licence.joined is not None
    if claim.form in ("restatement", "deduction", "comparison") and not carried:
        # Code cannot check entailment: a deduction or comparison keeps its grounds' status only when it
        # says exactly what a cited clause or a premise says (or joins its premises); new wording is a paraphrase.
        extrapolation = True
    if extrapolation:
        status = "inferred"
    licensed = licence.licensed
    if not licensed and not reasons:
        reasons.add("low-coverage")
    if not licensed and not problems:
        problems.extend(licence.problems)
    elif not licensed:
        # a tainted citation already says why nothing cited is verified
        problems.extend(p for p in licence.problems if p not in problems and p.rule != "unverified")
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
        clauses=licence.clauses if licensed else (),
        problems=tuple(problems) if not licensed else (),
        joined=licence.joined if licensed else None,
        quote=licence.quote if licensed else None,
    )


def _cite(ref: str, view: View) -> CitationFinding:
    address = ref if view.admitted(ref) else view.address_of(ref)
    if address is None:
        return CitationFinding(ref, None, None, False, unresolved=True)
    facts = view.epistemics[address]
    taints = facts.taints
    failing = next((check.detail for check in facts.checks if check.state in ("failed", "stale", "unresolved")), "")
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
        why=failing,
        superseded_by=facts.superseded_by,
        supersession=facts.supersession,
        superseded_disclosure=facts.superseded_disclosure,
    )


def _clauses_of(citation: CitationFinding, view: View) -> list[Clause]:
    """The atomic clauses of a cited node (with their heading paths): what one claim may be licensed by."""
    assert citation.address is not None
    node = view.graph.nodes[citation.address]
    clauses = [Clause(c.text, c.headings, citation.ref, c.frame) for c in framed_clauses(node.title or "", node.body)]
    if node.type in CLAIM_TYPES and node.title:
        clauses.append(Clause(node.title, (), citation.ref))
    return clauses


def _targets_of(citation: CitationFinding, view: View) -> list[Clause]:
    """What a restatement may copy: atomic units, whole sentences, and a claim note's own claim."""
    assert citation.address is not None
    node = view.graph.nodes[citation.address]
    targets = [Clause(u.text, (), citation.ref) for u in restatement_targets(node.body) if u.kind != "heading"]
    if node.type in CLAIM_TYPES and node.title:
        targets.append(Clause(node.title, (), citation.ref))
    return targets


def _license(
    claim: Claim, citations: tuple[CitationFinding, ...], premises: tuple[ClaimFinding, ...], view: View
) -> Licence:
    """Whether the claim is licensed, by which clause texts (never pooled across clauses), and why not."""
    verified = [c for c in citations if c.licensable and c.address is not None]
    unlicensed = [p.id for p in premises if not p.licensed]
    if unlicensed:
        return Licence(False)
    if citations and not verified:
        refs = ", ".join(c.ref for c in citations if c.address is not None)
        detail = f"no cited node is verified ({refs} {'is' if len(citations) == 1 else 'are'} inferred)"
        return Licence(False, problems=(Problem(claim.id, "unverified", detail),))
    candidates = [clause for c in verified for clause in _clauses_of(c, view)]
    candidates.extend(Clause(text, (), p.id) for p in premises for text in p.clauses)
    if claim.form == "calculation":
        return license_calculation(claim, candidates)
    if not citations:
        if not premises:
            return Licence(False, problems=(Problem(claim.id, "uncovered", "cites nothing and rests on no premise"),))
        for p in premises:
            if normalise_words(claim.text) == normalise_words(p.text):
                return Licence(True, p.clauses, verbatim=True)
        joined = conjunction(claim.text, [p.text for p in premises])
        if joined is not None:
            kind, order = joined
            dangling = _dangling_anaphor([premises[i] for i in order])
            if dangling is not None:
                return Licence(False, problems=(Problem(claim.id, RuleId.ANAPHOR, dangling),))
            return Licence(True, tuple(c for p in premises for c in p.clauses), verbatim=False, joined=kind)
    targets = [target for c in verified for target in _targets_of(c, view)]
    licence = license_words(claim, candidates, verbatim_targets=targets)
    if licence.verbatim and citations:
        for c in verified:
            restated = restated_unit(claim.text, [t.text for t in _targets_of(c, view)])
            if restated is not None and c.address is not None:
                clauses = _clauses_within(restated, c.address, view)
                return Licence(True, clauses, verbatim=True, quote=(c.address, restated))
    return licence


def _dangling_anaphor(conjuncts: list[ClaimFinding]) -> str | None:
    """A conjunct opening with this/it/they… right after a conjunct grounded in other nodes binds to the wrong subject."""
    for before, after in pairwise(conjuncts):
        dangling = dangling_subject(after.text)
        if dangling is not None and not _citations(before) & _citations(after):
            return f"premise {after.id} {dangling} but rests on other nodes than {before.id}; name its subject"
    return None


def _citations(finding: ClaimFinding) -> frozenset[str]:
    return frozenset(c.address for c in finding.citations if c.address is not None)


def _clauses_within(restated: str, address: str, view: View) -> tuple[str, ...]:
    """The atomic clauses of a restated whole sentence: a later claim may take figures from one of them only."""
    body = view.graph.nodes[address].body
    for target in restatement_targets(body):
        if target.text == restated:
            inside = tuple(u.text for u in atomic_units(body) if target.start <= u.start and u.end <= target.end)
            return inside or (restated,)
    return (restated,)


def _anaphor_joins(answer: Answer, findings: Mapping[str, ClaimFinding]) -> list[Problem]:
    """Prose spans that open with an anaphor right after a span grounded in other nodes: the anaphor would bind there."""
    lines: list[Problem] = []
    ordered = sorted(answer.bindings, key=lambda b: b.start)
    for before, after in pairwise(ordered):
        dangling = dangling_subject(plain_text(after.text))
        if dangling is None:
            continue
        if not _grounds(findings[before.claim_id], findings) & _grounds(findings[after.claim_id], findings):
            lines.append(
                Problem(
                    after.claim_id,
                    RuleId.ANAPHOR,
                    f"the span {dangling}, so it would take the subject of {before.claim_id}, which rests on other "
                    "nodes; name the subject",
                )
            )
    return lines


def _grounds(finding: ClaimFinding, findings: Mapping[str, ClaimFinding]) -> frozenset[str]:
    """The node addresses a claim rests on, through its premises."""
    found = {c.address for c in finding.citations if c.address is not None}
    for premise in finding.premises:
        if premise in findings:
            found |= _grounds(findings[premise], findings)
    return frozenset(found)


def _restates(assertion: str, claim_text: str) -> bool:
    return normalise_words(assertion) == normalise_words(claim_text)


def _premises_first(claims: tuple[Claim, ...]) -> list[Claim]:
    by_id = {c.id: c for c in claims}
    ordered: list[Claim] = []
    seen: set[str] = set()

    def visit(cid: str) -> None:
        if cid in seen:
            return
        seen.add(cid)
        for premise in by_id[cid].premises:
            visit(premise)
        ordered.append(by_id[cid])

    for claim in claims:
        visit(claim.id)
    return ordered
