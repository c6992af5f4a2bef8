"""The debate lens: each scoped project's debate map with practice folded in as counter-evidence.

A zettelkasten's ``debate.yaml`` lists the claims the literature contests. A
memory entry that the claim overlay types as *contradicting* a canon claim is
counter-evidence of another kind: what this project actually did or observed.
This view folds every such ``contradicts`` edge into its claim's debate entry,
so a claim contradicted by practice is shown ``contested`` even when the
literature map never listed it, and each piece of counter-evidence says where
it came from (``literature`` or ``practice``).

Every ``contradicts`` edge is folded, whatever the claim's strength: the
typer's confidence already gated it at build time, and a contradiction of a
weak claim is still counter-evidence (the strength is shown beside it).
Read-only: neither ``debate.yaml`` nor the overlay is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from adapters.base import Node
from adapters.zettelkasten import ZettelkastenAdapter
from adapters.zk_debate import ContestedClaim, DebateMap
from synapse_server.overlay.lens import (
    MAX_PROJECTS,
    LensResult,
    OverlayInfo,
    ProjectScope,
    open_overlay,
    scope_of,
    store_of,
    tier_of,
)
from synapse_server.overlay.model import Link, Overlay, OverlayKind, Relation
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

__all__ = ["CounterEvidence", "DebateClaim", "DebateParams", "DebateProject", "DebateResult", "fold_debate"]

Origin = Literal["literature", "practice"]


class DebateParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: OverlayKind = Field("claim", description="the overlay whose contradictions are folded in")
    projects: ProjectScope = Field(
        None, max_length=MAX_PROJECTS, description="zk projects in scope; None = config scope"
    )


class CounterEvidence(BaseModel):
    """One piece of evidence against a claim: a note or source from the map, or a memory entry."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str
    origin: Origin = Field(description="literature: listed in debate.yaml; practice: a contradicts edge")
    store: Literal["memory", "zk"]
    tier: Literal["practice", "canon"]
    title: str | None = None
    relation: Relation | None = None
    confidence: float | None = None
    rationale: str | None = None


class DebateClaim(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    claim: str
    title: str | None = Field(description="None when the claim is not in the loaded zettelkasten")
    claim_strength: Literal["strong", "moderate", "weak"] | None = None
    contested: bool = True
    contested_by: list[Origin]
    rationale: str | None = Field(description="the debate map's rationale(s), joined; None for practice alone")
    counter_evidence: list[CounterEvidence]


class DebateProject(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    project: str
    path: str | None = Field(description="the project's debate.yaml, None when it has none")
    claims: list[DebateClaim]
    diagnostics: list[str] = Field(default_factory=list)


class DebateResult(LensResult):
    overlay: OverlayInfo
    projects: list[str]
    debates: list[DebateProject]
    practice_contradictions: int = Field(description="contradicts edges folded in")
    contested_by_practice_only: list[str] = Field(description="claims the literature map did not list")


def run_debate(
    workspace: Workspace, stores: Stores, embedder: TextEncoder | None, params: DebateParams
) -> DebateResult:
    """Each scoped project's debate map with the overlay's contradictions folded in; ``embedder`` is unused."""
    projects = scope_of(workspace, params.projects)
    adapter = ZettelkastenAdapter(
        workspace.zettelkasten_dir, projects, workspace.federation_dirs, workspace.root, workspace.code_name
    )
    maps = adapter.load_debates() if projects else {}
    state, info = open_overlay(workspace, stores, params.kind)
    debates = fold_debate(maps, state.overlay, stores.nodes)
    folded = sum(e.origin == "practice" for d in debates for c in d.claims for e in c.counter_evidence)
    practice_only = [c.claim for d in debates for c in d.claims if c.contested_by == ["practice"]]
    contested = sum(len(d.claims) for d in debates)
    summary = f"{contested} contested claim(s) across {len(debates)} project(s); {folded} practice contradiction(s)"
    if practice_only:
        summary += f", {len(practice_only)} claim(s) contested by practice alone"
    if info.drift != "fresh":
        summary += f" (claim overlay {info.drift})" if params.kind == "claim" else f" (overlay {info.drift})"
    return DebateResult(
        summary=summary,
        overlay=info,
        projects=projects,
        debates=debates,
        practice_contradictions=folded,
        contested_by_practice_only=practice_only,
    )


def fold_debate(
    maps: Mapping[str, DebateMap], overlay: Overlay | None, nodes: Mapping[str, Node]
) -> list[DebateProject]:
    """One :class:`DebateProject` per map (in key order); overlay contradictions join their claim's entry."""
    against: dict[str, list[Link]] = {}
    for link in overlay.links if overlay else ():
        if link.relation == "contradicts":
            against.setdefault(link.canon, []).append(link)
    projects = []
    for key in sorted(maps):
        debate = maps[key]
        listed: dict[str, list[ContestedClaim]] = {}
        for entry in debate.contested:
            listed.setdefault(entry.claim, []).append(entry)
        practice_only = sorted(a for a in against if a.split(":", 2)[1] == key and a not in listed)
        claims = [_claim(a, listed.get(a, []), against.get(a, []), nodes) for a in (*listed, *practice_only)]
        projects.append(
            DebateProject(
                project=key,
                path=debate.path,
                claims=claims,
                diagnostics=[d.format() for d in debate.diagnostics],
            )
        )
    return projects


def _claim(address: str, entries: list[ContestedClaim], links: list[Link], nodes: Mapping[str, Node]) -> DebateClaim:
    node = nodes.get(address)
    evidence: list[CounterEvidence] = []
    for counter in dict.fromkeys(a for entry in entries for a in entry.counter_evidence):
        evidence.append(_evidence(counter, "literature", nodes))
    for link in sorted(links, key=lambda link: (-link.confidence, link.practice)):
        evidence.append(
            _evidence(link.practice, "practice", nodes).model_copy(
                update={"relation": link.relation, "confidence": link.confidence, "rationale": link.rationale}
            )
        )
    origins: list[Origin] = []
    if entries:
        origins.append("literature")
    if links:
        origins.append("practice")
    rationales = [entry.rationale for entry in entries if entry.rationale]
    strength = node.meta.get("claim_strength") if node else None
    return DebateClaim(
        claim=address,
        title=node.title if node else None,
        claim_strength=strength if strength in ("strong", "moderate", "weak") else None,
        contested_by=origins,
        rationale=" ".join(rationales) or None,
        counter_evidence=evidence,
    )


def _evidence(address: str, origin: Origin, nodes: Mapping[str, Node]) -> CounterEvidence:
    node = nodes.get(address)
    return CounterEvidence(
        address=address,
        origin=origin,
        store=store_of(address),
        tier=tier_of(store_of(address)),
        title=node.title if node else None,
    )
