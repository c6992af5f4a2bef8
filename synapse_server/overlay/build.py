"""``build``: candidates -> typed edges -> the gate -> one signed overlay file.

The typer's confidence is the only gate (``min_confidence``, default 0.5: an
edge must be at least as likely as not to hold; under the offline typer that
means a cosine of 0.5 or a shared code path). The claim overlay then weighs,
never filters: each edge carries the canon's ``claim_strength`` and
``priority = confidence x f(strength)`` with f(strong) = 1.0, f(moderate) = 0.7,
f(weak) = 0.4 (an unrated claim weighs as weak) and a floor of 0.1, so a weak
claim met by a real relation always keeps a positive priority and is never
silently dropped by a reader that orders by it.

Write-free is checked before anything else, so a refused build opens no
index, calls no model and writes nothing. A provider failure in the LLM typer
stops the build before the write, leaving the previous overlay in place.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from synapse_server.errors import InvalidInput
from synapse_server.models import Model, model_spec_from, parse_model_spec, resolve_model
from synapse_server.models.spec import NO_MODEL_OUTSIDE_NAVIGATE
from synapse_server.overlay.candidates import NEIGHBOURS, Candidate, find_candidates
from synapse_server.overlay.model import KINDS, ClaimStrength, Link, Overlay, OverlayKind
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.overlay.store import embedding_identity, refuse_if_write_free, write_overlay
from synapse_server.overlay.typer import Skip, TypedEdge, Typer, make_typer
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.base import Node
    from adapters.index import HybridIndex
    from adapters.index.embedder import TextEncoder

__all__ = [
    "MIN_CONFIDENCE",
    "PRIORITY_FLOOR",
    "STRENGTH_WEIGHT",
    "BuildReport",
    "Progress",
    "build_overlay",
    "priority",
    "type_candidates",
    "typer_model",
]

MIN_CONFIDENCE = 0.5
STRENGTH_WEIGHT: dict[str, float] = {"strong": 1.0, "moderate": 0.7, "weak": 0.4}
PRIORITY_FLOOR = 0.1
CONFIDENCE_DIGITS = 4
SKIP_REASONS_SHOWN = 5

Progress = Callable[[int, int, str], None]
"""``progress(done, total, message)``: the server relays it to the MCP client as progress notifications."""


class BuildReport(BaseModel):
    """What a build did. ``typed + skipped == candidates``; ``kept`` edges passed the confidence gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: OverlayKind
    typer: str
    projects: list[str]
    min_confidence: float
    candidates: int
    typed: int
    kept: int
    skipped: int
    relations: dict[str, int] = Field(description="kept edges per relation")
    bases: dict[str, int] = Field(
        default_factory=dict, description="kept edges per basis: judged, cosine, shared-file (what each rests on)"
    )
    channels: dict[str, int] = Field(description="candidates per channel (a pair found by both counts in both)")
    skip_reasons: list[str] = Field(description=f"the first {SKIP_REASONS_SHOWN} distinct reasons pairs were skipped")
    signature: str
    path: str = Field(description="the overlay file, relative to the workspace")


def build_overlay(
    workspace: Workspace,
    stores: Stores,
    embedder: TextEncoder,
    *,
    kind: OverlayKind = "generic",
    model: Model | None = None,
    min_confidence: float = MIN_CONFIDENCE,
    projects: Sequence[str] | None = None,
    neighbours: int = NEIGHBOURS,
    write_free: bool = False,
    index: HybridIndex | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """(Re)build one overlay and write it; the sole Synapse write. ``model=None`` is the offline typer.

    ``index`` lets a server reuse its open index; otherwise one is opened over
    ``stores`` (the embedder only loads if some text is not cached yet).
    """
    refuse_if_write_free(workspace, write_free)
    _check(kind, min_confidence, neighbours)
    scope = _scope(workspace, stores, projects)
    typer = make_typer(model)
    notify = progress or _quiet
    notify(0, 0, "opening the index")
    own = index is None
    opened = stores.open_index(embedder) if index is None else index
    try:
        candidates = find_candidates(opened, stores.nodes, kind, scope, neighbours)
    finally:
        if own:
            opened.close()
    notify(0, len(candidates), f"typing {len(candidates)} candidate pairs with {typer.identity}")
    links, skips = type_candidates(candidates, stores.nodes, typer, kind, notify)
    kept = [link for link in links if link.confidence >= min_confidence]
    embedding = embedding_identity(workspace)
    signature = overlay_signature(kind, scope, typer.identity, embedding, signature_nodes(stores.nodes, scope))
    overlay = Overlay(
        kind=kind,
        signature=signature,
        typer=typer.identity,
        projects=list(scope),
        embedding=embedding,
        min_confidence=min_confidence,
        links=kept,
    )
    path = write_overlay(workspace, overlay, write_free=write_free)
    notify(len(candidates), len(candidates), f"wrote {len(kept)} links to {path.relative_to(workspace.root)}")
    channels = Counter(channel for c in candidates for channel in c.evidence.channels)
    return BuildReport(
        kind=kind,
        typer=typer.identity,
        projects=list(scope),
        min_confidence=min_confidence,
        candidates=len(candidates),
        typed=len(links),
        kept=len(kept),
        skipped=len(skips),
        relations=dict(sorted(Counter(link.relation for link in kept).items())),
        bases=dict(sorted(Counter(link.evidence() for link in kept).items())),
        channels=dict(sorted(channels.items())),
        skip_reasons=list(dict.fromkeys(skips))[:SKIP_REASONS_SHOWN],
        signature=signature,
        path=str(path.relative_to(workspace.root)),
    )


def typer_model(workspace: Workspace, spec: str | None, env: Mapping[str, str] | None = None) -> Model | None:
    """The model build types with: CLI/server ``spec`` over env ``SYNAPSE_MODEL`` over config; None = offline.

    ``extractive`` resolves to None without importing the offline navigator:
    it is not a typer, and the extractive typer needs nothing from it.
    """
    parsed = parse_model_spec(model_spec_from(workspace.config.model, os.environ if env is None else env, spec))
    if parsed.provider in NO_MODEL_OUTSIDE_NAVIGATE:
        return None
    return resolve_model(parsed, cwd=workspace.root, env=env)


def type_candidates(
    candidates: Sequence[Candidate],
    nodes: Mapping[str, Node],
    typer: Typer,
    kind: OverlayKind,
    progress: Progress | None = None,
) -> tuple[list[Link], list[str]]:
    """Type every pair; returns every typed link (before the gate) and the skip reasons, one per skipped pair."""
    notify = progress or _quiet
    step = max(1, len(candidates) // 50)
    links: list[Link] = []
    skips: list[str] = []
    for done, pair in enumerate(candidates, start=1):
        practice, canon = nodes[pair.practice], nodes[pair.canon]
        outcome = typer.type_pair(practice, canon, pair.evidence)
        if isinstance(outcome, Skip):
            skips.append(outcome.reason)
        else:
            links.append(_link(pair, canon, outcome, kind))
        if done % step == 0 and done < len(candidates):
            notify(done, len(candidates), f"typed {done} of {len(candidates)} pairs")
    return links, skips


def priority(confidence: float, strength: str | None) -> float:
    """``confidence x f(strength)``, never below the floor: weak claims are down-weighted, not dropped."""
    weight = STRENGTH_WEIGHT.get(strength or "weak", STRENGTH_WEIGHT["weak"])
    return round(max(PRIORITY_FLOOR, confidence * weight), CONFIDENCE_DIGITS)


def _link(pair: Candidate, canon: Node, outcome: TypedEdge, kind: OverlayKind) -> Link:
    confidence = round(outcome.confidence, CONFIDENCE_DIGITS)
    extra: dict[str, object] = {}
    if kind == "claim":
        strength = _strength(canon.meta.get("claim_strength"))
        extra = {"claim_strength": strength, "priority": priority(confidence, strength), "cross": pair.cross}
    return Link.model_validate(
        {
            "practice": pair.practice,
            "canon": pair.canon,
            "relation": outcome.relation,
            "confidence": confidence,
            "rationale": outcome.rationale,
            "typer": outcome.typer,
            "basis": outcome.basis,
            "channels": list(pair.evidence.channels),
            "similarity": pair.evidence.similarity,
            "shared_paths": list(pair.evidence.shared_paths),
            **extra,
        }
    )


def _strength(value: object) -> ClaimStrength | None:
    if value == "strong":
        return "strong"
    if value == "moderate":
        return "moderate"
    if value == "weak":
        return "weak"
    return None


def _check(kind: str, min_confidence: float, neighbours: int) -> None:
    if kind not in KINDS:
        raise InvalidInput(f"kind: {kind!r} is not one of {', '.join(KINDS)}", parameter="kind")
    if isinstance(min_confidence, bool) or not 0.0 <= min_confidence <= 1.0:
        raise InvalidInput("min_confidence: must be between 0 and 1", parameter="min_confidence")
    if isinstance(neighbours, bool) or neighbours < 1:
        raise InvalidInput("neighbours: must be at least 1", parameter="neighbours")


def _scope(workspace: Workspace, stores: Stores, projects: Sequence[str] | None) -> list[str]:
    """The zk projects to link: the config scope by default; an unknown name is an error, not an empty overlay."""
    scope = workspace.scoped_projects(None if projects is None else list(projects))
    known = set(workspace.local_projects()) | {a.split(":", 2)[1] for a, n in stores.nodes.items() if n.family == "zk"}
    unknown = [p for p in scope if p not in known]
    if unknown and projects is not None:
        raise InvalidInput(
            f"projects: unknown zettelkasten project(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}",
            parameter="projects",
        )
    return sorted(dict.fromkeys(scope))


def _quiet(done: int, total: int, message: str) -> None:
    """The default progress sink: a library call reports nothing."""
