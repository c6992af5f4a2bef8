"""search: hybrid (keyword + meaning, RRF-fused) search across the memory tree, the scoped zettelkasten and runs.

Scope decision: search covers the two knowledge stores, practice (memory) and
canon (zk), as the seed's "look across both stores" asks, and the runs (the
data family: ``runs/`` records, adopted MLflow runs and registered models), so
a run is found by a parameter, metric or tag name as a decision is by a word of
its text. Code is evidence that navigate assembles around these hits and that
``get`` reads by address; ranking a source file against a decision would bury
both. Every hit says which store and tier it came from (a run has no tier) and
how each channel ranked it, and ``relaxed`` says when the keyword channel had
to fall back from AND to OR. ``projects=[]`` still means memory only.

``expand=true`` follows one edge of the generic overlay from each hit
(:func:`synapse_server.overlay.expansion.expand_hits`). The neighbours come in
their own list, ``expansions``, each marked ``expansion: true`` with its
relation and the hit it came ``via``, in the order of the hits that brought
them: a neighbour is never mistaken for a search result, and ``hits`` keeps its
shape and ranks. The overlay's drift comes along in ``overlay``.

Supersession: a hit whose record is superseded, deprecated, reverted or
rejected says so (``supersession``, the status word, and ``superseded_by``),
and a superseding record among the hits is ranked right above the highest
record it replaces (:func:`synapse_server.navigation.supersession.current_first`),
so a reader meets the current decision first. Only the order changes: no hit is
added or dropped, and ``score`` stays each hit's own RRF score.

One hit per document: a document the index holds under two addresses (a note and
the one source record it cites, or the same title and text twice) takes one slot,
where it ranks first, and the other address rides along in ``also``
(:func:`fold_twins`). The index is asked for twice ``limit`` so the page still
fills; on the demo's labelled questions this raised recall@10 from 0.827 to 0.845
and left MRR@10 unchanged (``python -m dev.synapse_bench quality``).

Search fuses its channels with RRF k = 5 (:data:`adapters.index.fusion.SEARCH_RRF_K`), not navigate's 60: on
the same benchmark it raised the demo's recall@5 and MRR@10 and the synthetic set's recall@1 and MRR@10.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field, field_validator

from adapters.base import Node
from adapters.index.documents import Hit
from adapters.index.fusion import SEARCH_RRF_K
from synapse_server.actions.base import ActionOutput, ActionSpec, StrictParams, check_text
from synapse_server.actions.deps import Deps
from synapse_server.names import check_project_names, refuse_unknown_projects
from synapse_server.navigation.substrate import SEARCH_FAMILIES
from synapse_server.navigation.supersession import Supersession, current_first, supersession_of
from synapse_server.navigation.twins import fold_twins
from synapse_server.overlay.expansion import Expansion, expand_hits
from synapse_server.overlay.lens import OverlayInfo, open_overlay

MAX_QUERY_CHARS = 2000
MAX_PROJECTS = 64
FAMILIES = (*SEARCH_FAMILIES, "data")  # navigate seeds from the memory and zk ranking and from each family


class SearchParams(StrictParams):
    query: str = Field(..., min_length=1, max_length=MAX_QUERY_CHARS, description="keywords or a question")
    projects: list[str] | None = Field(
        None, max_length=MAX_PROJECTS, description="zk projects; omitted = config scope, [] = memory only"
    )
    limit: int = Field(10, ge=1, le=100, description="how many hits to return (1-100)")
    expand: bool = Field(False, description="also list each hit's 1-hop overlay neighbours under expansions")

    @field_validator("query")
    @classmethod
    def _query_is_text(cls, value: str) -> str:
        return check_text(value, "query")

    @field_validator("projects")
    @classmethod
    def _projects_are_names(cls, value: list[str] | None) -> list[str] | None:
        return check_project_names(value)


class SearchHit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rank: int
    address: str
    store: Literal["memory", "zk", "data"]
    tier: Literal["practice", "canon"] | None = Field(..., description="practice or canon; none for a run (data)")
    project: str | None
    type: str
    title: str
    snippet: str
    score: float = Field(..., description="RRF score: orders hits, never evidence of coverage")
    lexical_rank: int | None
    semantic_rank: int | None
    similarity: float | None
    relaxed: bool
    superseded_by: list[str] = Field(
        default_factory=list, description="the records that replace this one; empty for a current record"
    )
    supersession: str | None = Field(
        None, description="the status word of a record that is not current (superseded, deprecated, reverted …)"
    )
    also: list[str] = Field(
        default_factory=list,
        description="other addresses of this same document, folded into this hit so it takes one slot: a note's "
        "only cited source record, or the same title and text under another address",
    )


class SearchOutput(ActionOutput):
    query: str
    projects: list[str] = Field(..., description="the zk projects actually searched ([] = memory only)")
    relaxed: bool = Field(..., description="the keyword channel relaxed AND to OR for at least one hit")
    relevant: bool = Field(
        ...,
        description="false when no keyword matched and no hit's similarity reaches the relevance floor: the hits "
        "are only the nearest documents, not matches",
    )
    hits: list[SearchHit]
    expansions: list[Expansion] = Field(
        default_factory=list, description="expand=true: the hits' 1-hop overlay neighbours, each with its hit (via)"
    )
    overlay: OverlayInfo | None = Field(None, description="the overlay expansion read (expand=true only)")


def search(deps: Deps, params: SearchParams) -> SearchOutput:
    """The function both the tool and ``synapse search`` call."""
    with deps.lock:
        workspace = deps.workspace()
        stores = deps.stores()
        projects = workspace.scoped_projects(params.projects)
        if params.projects:
            _check_known(params.projects, set(workspace.local_projects()) | _zk_projects(stores.nodes))
        overlay = open_overlay(workspace, stores, "generic") if params.expand else None
    with deps.index_lock:  # not the store lock: a stalled database must not hold up get
        families = FAMILIES if params.projects != [] else ("memory",)
        # Twice the limit: each folded twin frees a slot, so the page still fills to ``limit`` documents.
        found = deps.index().search(
            params.query, 2 * params.limit, families=families, projects=projects, fusion_k=SEARCH_RRF_K
        )
    superseded = {
        h.address: s for h in found if h.address in stores.nodes and (s := supersession_of(stores.nodes[h.address]))
    }
    found = _current_first(found, superseded)
    results = one_per_document(found, stores.nodes)[: params.limit]
    hits = [
        SearchHit(
            rank=i,
            address=h.address,
            store=_STORES[h.family],
            tier=_TIERS.get(h.family),
            project=h.project,
            type=h.type,
            title=h.title,
            snippet=h.snippet,
            score=round(h.score, 6),
            lexical_rank=h.lexical_rank,
            semantic_rank=h.semantic_rank,
            similarity=None if h.similarity is None else round(h.similarity, 4),
            relaxed=h.relaxed,
            superseded_by=list(superseded[h.address].by) if h.address in superseded else [],
            supersession=superseded[h.address].word if h.address in superseded else None,
            also=also,
        )
        for i, (h, also) in enumerate(results, 1)
    ]
    expansions: list[Expansion] = []
    relevant = is_relevant(hits)
    summary = _summary(params.query, projects, hits, relevant, params.projects != [])
    if overlay is not None:
        state, info = overlay
        titles = {a: n.title for a, n in stores.nodes.items() if n.family in FAMILIES}
        expanded = expand_hits(hits, state.overlay, projects=projects, titles=titles)
        expansions = [entry for entry in expanded if isinstance(entry, Expansion)]
        summary += _expansion_summary(len(expansions), info)
    return SearchOutput(
        summary=summary,
        query=params.query,
        projects=projects,
        relaxed=any(h.relaxed for h in hits),
        relevant=relevant,
        hits=hits,
        expansions=expansions,
        overlay=None if overlay is None else overlay[1],
    )


async def handle(params: SearchParams, deps: Deps) -> SearchOutput:
    return await anyio.to_thread.run_sync(search, deps, params, abandon_on_cancel=True)


def _current_first(found: list[Hit], superseded: dict[str, Supersession]) -> list[Hit]:
    """The hits with each superseding record lifted right above what it replaces."""
    by_address = {h.address: h for h in found}
    order = current_first([h.address for h in found], lambda a: superseded[a].by if a in superseded else ())
    return [by_address[a] for a in order]


_STORES: dict[str, Literal["memory", "zk", "data"]] = {"memory": "memory", "zk": "zk", "data": "data"}
_TIERS: dict[str, Literal["practice", "canon"]] = {"memory": "practice", "zk": "canon"}


def one_per_document(found: list[Hit], nodes: Mapping[str, Node]) -> list[tuple[Hit, list[str]]]:
    """Each document once, where it first ranks, with the addresses of its later twins (:func:`fold_twins`)."""
    by_address = {h.address: h for h in found}
    return [(by_address[group[0]], group[1:]) for group in fold_twins([h.address for h in found], nodes)]


def _zk_projects(addresses: Iterable[str]) -> set[str]:
    return {a.split(":", 2)[1] for a in addresses if a.startswith("zk:")}


def _check_known(requested: list[str], known: set[str]) -> None:
    refuse_unknown_projects(requested, known)


RELEVANCE_FLOOR = 0.30
"""Cosine similarity (MiniLM) below which a hit with no keyword match is only the nearest document, not a match.

Measured on the demo: queries about its topics match keywords and reach 0.53-0.83; nonsense queries ("zebra
saxophone quantum", "what is the capital of France") match no keyword and peak at 0.13-0.18."""


def is_relevant(hits: list[SearchHit]) -> bool:
    """Some hit matched a keyword, or one is similar enough to count as a match."""
    return any(h.lexical_rank is not None or (h.similarity or 0.0) >= RELEVANCE_FLOOR for h in hits)


def _summary(query: str, projects: list[str], hits: list[SearchHit], relevant: bool, searched_runs: bool) -> str:
    shown = query if len(query) <= 60 else query[:57] + "..."
    scope = f"memory + zk [{', '.join(projects)}] + runs" if projects else "memory + runs"
    scope = scope if searched_runs else "memory only"
    if not hits:
        return f"no hits for {shown!r} in {scope}"
    top = hits[0]
    if not relevant:
        best = max((h.similarity or 0.0) for h in hits)
        return (
            f"no relevant match for {shown!r} in {scope} (no keyword matched; best similarity {best:.2f}, "
            f"below {RELEVANCE_FLOOR:.2f}); nearest: {top.title} ({top.address})"
        )
    noun = "hit" if len(hits) == 1 else "hits"
    return f"{len(hits)} {noun} for {shown!r} in {scope}; top: {top.title} ({top.address})"


def _expansion_summary(added: int, info: OverlayInfo) -> str:
    if info.drift in ("missing", "invalid"):
        return f"; no expansion: {info.detail}"
    drift = "" if info.drift == "fresh" else f", overlay {info.drift}"
    return f"; +{added} overlay neighbour(s) in expansions{drift}"


SPEC = ActionSpec(
    params=SearchParams,
    handler=handle,
    does="Hybrid keyword + meaning search (RRF-fused) across the memory tree (practice), the zettelkasten (canon) "
    "and runs (data); every hit is tagged store and tier. expand=true adds the hits' 1-hop overlay neighbours, listed apart as expansions.",
    say=("search everything", "look across both stores", "what do we know about X"),
)
