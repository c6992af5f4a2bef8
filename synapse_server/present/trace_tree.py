"""The redacted claim DAG of a ``trace_surface`` as a tree from the conclusion, for every renderer.

A premise shared by two claims is shown in full once and as a reference the
second time; a claim no other claim leads to (or only a cycle reaches) still
gets its own root, so nothing in the trace is silently dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from synapse_server.navigation.surfaces import FLAG_NAMES, Flags, TraceClaim, TraceSurface


def set_flags(flags: Flags) -> list[str]:
    """The names of the flags that are set, in a fixed order."""
    values = flags.model_dump()
    return [name for name in FLAG_NAMES if values[name]]


@dataclass(frozen=True)
class Cited:
    address: str
    flags: list[str]


@dataclass
class ClaimNode:
    """One claim in the tree; ``claim`` is None for a premise id the trace does not hold, ``repeat`` for a revisit."""

    id: str
    claim: TraceClaim | None
    flags: list[str] = field(default_factory=list)
    cites: list[Cited] = field(default_factory=list)
    premises: list[ClaimNode] = field(default_factory=list)
    repeat: bool = False


def claim_tree(trace: TraceSurface) -> list[ClaimNode]:
    """Roots first the conclusion, then claims nothing leads to, then any claim only a cycle reaches."""
    claims = {claim.id: claim for claim in trace.claims}
    cited = {c.address: set_flags(c.flags) for c in trace.citations}
    used = {premise for claim in trace.claims for premise in claim.premise_claim_ids}
    order = [trace.conclusion_claim_id] if trace.conclusion_claim_id in claims else []
    order += [c.id for c in trace.claims if c.id not in order and c.id not in used]
    seen: set[str] = set()
    roots = [_node(claims, cited, claim_id, seen) for claim_id in order]
    roots += [_node(claims, cited, c.id, seen) for c in trace.claims if c.id not in seen]
    return roots


def _node(claims: dict[str, TraceClaim], cited: dict[str, list[str]], claim_id: str, seen: set[str]) -> ClaimNode:
    claim = claims.get(claim_id)
    if claim is None or claim_id in seen:
        return ClaimNode(claim_id, claim, repeat=claim is not None)
    seen.add(claim_id)
    return ClaimNode(
        claim_id,
        claim,
        flags=set_flags(claim.flags),
        cites=[Cited(address, cited.get(address, [])) for address in claim.citation_addresses],
        premises=[_node(claims, cited, premise, seen) for premise in claim.premise_claim_ids],
    )
