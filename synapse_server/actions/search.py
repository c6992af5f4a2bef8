"""search: hybrid (keyword + meaning, RRF-fused) search across the memory tree and the scoped zettelkasten.

Scope decision: search covers the two knowledge stores, practice (memory) and
canon (zk), as the seed's "look across both stores" asks. Code and run records
are evidence that navigate assembles around these hits and that ``get`` reads
by address; ranking a source file against a decision would bury both. Every hit
says which store and tier it came from and how each channel ranked it, and
``relaxed`` says when the keyword channel had to fall back from AND to OR.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field, field_validator

from synapse_server.actions.base import ActionOutput, ActionSpec, StrictParams, check_project_names, check_text
from synapse_server.actions.deps import Deps
from synapse_server.errors import InvalidInput

MAX_QUERY_CHARS = 2000
MAX_PROJECTS = 64
FAMILIES = ("memory", "zk")


class SearchParams(StrictParams):
    query: str = Field(..., min_length=1, max_length=MAX_QUERY_CHARS, description="keywords or a question")
    projects: list[str] | None = Field(
        None, max_length=MAX_PROJECTS, description="zk projects; omitted = config scope, [] = memory only"
    )
    limit: int = Field(10, ge=1, le=100, description="how many hits to return (1-100)")

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
    store: Literal["memory", "zk"]
    tier: Literal["practice", "canon"]
    project: str | None
    type: str
    title: str
    snippet: str
    score: float = Field(..., description="RRF score: orders hits, never evidence of coverage")
    lexical_rank: int | None
    semantic_rank: int | None
    similarity: float | None
    relaxed: bool


class SearchOutput(ActionOutput):
    query: str
    projects: list[str] = Field(..., description="the zk projects actually searched ([] = memory only)")
    relaxed: bool = Field(..., description="the keyword channel relaxed AND to OR for at least one hit")
    hits: list[SearchHit]


def search(deps: Deps, params: SearchParams) -> SearchOutput:
    """The function both the tool and ``synapse search`` call."""
    with deps.lock:
        workspace = deps.workspace()
        stores = deps.stores()
        projects = workspace.scoped_projects(params.projects)
        if params.projects:
            _check_known(params.projects, set(workspace.local_projects()) | _zk_projects(stores.nodes))
        found = deps.index().search(params.query, params.limit, families=FAMILIES, projects=projects)
    hits = [
        SearchHit(
            rank=i,
            address=h.address,
            store="memory" if h.family == "memory" else "zk",
            tier="practice" if h.family == "memory" else "canon",
            project=h.project,
            type=h.type,
            title=h.title,
            snippet=h.snippet,
            score=round(h.score, 6),
            lexical_rank=h.lexical_rank,
            semantic_rank=h.semantic_rank,
            similarity=None if h.similarity is None else round(h.similarity, 4),
            relaxed=h.relaxed,
        )
        for i, h in enumerate(found, 1)
    ]
    return SearchOutput(
        summary=_summary(params.query, projects, hits),
        query=params.query,
        projects=projects,
        relaxed=any(h.relaxed for h in hits),
        hits=hits,
    )


async def handle(params: SearchParams, deps: Deps) -> SearchOutput:
    return await anyio.to_thread.run_sync(search, deps, params)


def _zk_projects(addresses: Iterable[str]) -> set[str]:
    return {a.split(":", 2)[1] for a in addresses if a.startswith("zk:")}


def _check_known(requested: list[str], known: set[str]) -> None:
    unknown = [p for p in requested if p not in known]
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise InvalidInput(f"unknown project {unknown[0]!r}; this workspace has: {listed}", parameter="projects")


def _summary(query: str, projects: list[str], hits: list[SearchHit]) -> str:
    shown = query if len(query) <= 60 else query[:57] + "..."
    scope = f"memory + zk [{', '.join(projects)}]" if projects else "memory only"
    if not hits:
        return f"no hits for {shown!r} in {scope}"
    top = hits[0]
    noun = "hit" if len(hits) == 1 else "hits"
    return f"{len(hits)} {noun} for {shown!r} in {scope}; top: {top.title} ({top.address})"


SPEC = ActionSpec(
    params=SearchParams,
    handler=handle,
    does="Hybrid keyword + meaning search (RRF-fused) across the memory tree (practice) and the zettelkasten (canon); "
    "every hit is tagged store and tier.",
    say=("search everything", "look across both stores", "what do we know about X"),
)
