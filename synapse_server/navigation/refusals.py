"""What a refused answer says: each refusal the model can fix, the headline a person reads, refs made public.

The router decides; this module words the decision. Every line here is built from the model's own tokens or the
engine's rule names and node titles, never from evidence the answer was not licensed to show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from synapse_server.licensing.rules import RuleId
from synapse_server.navigation.claims import ClaimFinding, Problem
from synapse_server.navigation.view import View


def problems_of(
    closure: frozenset[str],
    findings: Mapping[str, ClaimFinding],
    unbound: list[tuple[str, str]],
    markup: tuple[str, ...],
) -> tuple[Problem, ...]:
    """Every per-claim refusal in the closure, then the prose that is not licensed: what the model can fix."""
    found: list[Problem] = [problem for cid in sorted(closure) for problem in findings[cid].problems]
    for text, cid in unbound:
        if findings[cid].joined == "relative":
            found.append(
                Problem(
                    cid,
                    "which-join",
                    'a claim joined with "which" may conclude but not be cited in prose; '
                    "cite the joined claims' own sentences",
                )
            )
        else:
            found.append(Problem(cid, "unbound-prose", f'the cited span "{_clip(text)}" is not the text of {cid}'))
    if markup:
        shown = ", ".join(f'"{_clip(token, 60)}"' for token in markup[:4])
        found.append(
            Problem(
                "prose",
                RuleId.MARKUP,
                f"drop {shown}: links, images and HTML are not evidence (inline code and emphasis are fine)",
            )
        )
    return tuple(dict.fromkeys(found))


def public_refs(line: str, view: View) -> str:
    """A refusal line as a person reads it: every envelope ref (``n3``) replaced by the address it stands for."""
    address_of = {ref: address for address, ref in view.refs.items()}
    return _REF.sub(lambda m: address_of.get(m.group(0), m.group(0)), line)


_REF = re.compile(r"(?<![\w:-])n\d+(?![\w:-])")


def headline(reason: str, closure: frozenset[str], findings: Mapping[str, ClaimFinding], view: View) -> str | None:
    """One sentence on what was looked for and what was missing or contradicted, with titles and addresses."""
    for cid in sorted(closure):
        finding = findings[cid]
        for citation in finding.citations:
            if citation.address is None:
                continue
            title = view.graph.nodes[citation.address].title if citation.address in view.graph.nodes else ""
            named = f"{title} ({citation.address})" if title else citation.address
            if reason == "false-premise" and citation.refuted:
                return f"the cited {named} is refuted by its verifier: {citation.why or 'the check failed'}"
            if reason == "stale" and citation.stale:
                return f"the cited {named} no longer verifies: {citation.why or 'its pinned bytes changed'}"
    if reason == "low-coverage":
        for cid in sorted(closure):
            own = [problem for problem in findings[cid].problems if problem.rule != "premise"]
            if own:
                rule_and_detail = f"{own[0].rule}: {own[0].detail}"
                line = f"no verified clause says what the answer claims ({public_refs(rule_and_detail, view)})"
                why = why_inferred(findings[cid], view) if own[0].rule == "unverified" else ()
                return ". ".join((line, *why)) + ("." if why else "")
    return None


def why_inferred(finding: ClaimFinding, view: View, limit: int = 2) -> tuple[str, ...]:
    """One sentence per cited node that is inferred for want of a check, saying what its first such check found.

    A tainted node already has its own headline; this is the node nothing contradicts but nothing verifies
    (a run that recorded no digest and whose files are not committed: the run check says what measured and
    grounded need). The sentence is the resolver's finding, names and hashes only, never a body.
    """
    sentences: list[str] = []
    for citation in finding.citations:
        facts = view.epistemics.get(citation.address or "")
        if facts is None or facts.status != "inferred" or facts.taints:
            continue
        found = next((check.detail for check in facts.checks if check.state == "unverifiable"), None)
        sentence = f"{facts.address} is inferred: {found}" if found else None
        if sentence is not None and sentence not in sentences:
            sentences.append(sentence)
    return tuple(sentences[:limit])


def _clip(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def default_detail(reason: str, marked_up: bool, unbound: bool) -> str:
    if marked_up:
        return "the answer carries markup (a link, an image or HTML) that is not evidence"
    if unbound:
        return "a prose assertion does not restate the claim it is bound to"
    return {
        "missing-hop": "a cited address or relation is absent from the envelope",
        "stale": "a cited tether no longer verifies the bytes it pins",
        "false-premise": "a verifier refuted a cited ground",
        "low-coverage": "the conclusion is not fully licensed by verified cited material",
    }[reason]
