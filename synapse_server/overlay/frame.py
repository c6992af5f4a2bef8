"""The frame lens: a research question split into facets, each characterised across both stores.

Facets. With an LLM configured the model proposes them (one per line). Under
``extractive`` the question is split deterministically: stop words, question
words, generic verbs ("affect", "help", ...) and punctuation cut it into runs
of content words, and each run is a facet ("How do transaction costs and
volatility scaling affect momentum returns?" -> "transaction costs",
"volatility scaling", "momentum returns"); at most six, and the whole question
when no run survives.

Hits. Each facet is searched in memory and the scoped zettelkasten. A search
hit *counts* for a facet only when its title and body contain at least half
(rounded up) of the facet's content words (plural ``-s`` ignored): the fused
search score orders hits but is never taken as evidence. A counting hit is
*verified-looking* when at least one of its tethers resolves (a git pin or a
run for a memory entry, a citation for a note) and it is not contested.

Status, first rule that holds:

- ``contested``: a counting hit is contested in a debate map, or is an end of a
  ``contradicts`` edge in the claim or generic overlay;
- ``established``: at least two verified-looking counting hits, including at
  least one from memory and, when zettelkasten projects are in scope, at least
  one from the zettelkasten;
- ``thin``: anything less.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from adapters.base import Node
from adapters.resolvers import Resolvers
from synapse_server.models import Model
from synapse_server.names import check_text
from synapse_server.overlay.lens import (
    EXTRACTIVE,
    MAX_PROJECTS,
    LensResult,
    ModelInfo,
    OverlayInfo,
    ProjectScope,
    lens_model,
    negative_is_default,
    open_overlay,
    scope_of,
    store_of,
    tier_of,
)
from synapse_server.overlay.model import Overlay
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.index import HybridIndex
    from adapters.index.embedder import TextEncoder

__all__ = ["Facet", "FrameHit", "FrameParams", "FrameResult", "facet_status", "question_facets", "run_frame"]

Status = Literal["established", "contested", "thin"]
MAX_FACETS = 6
DEFAULT_HITS = 8
FACET_MAX_TOKENS = 200
_STOP = frozenset(
    """a an the of to in on at by for from with about into over under after before during between and or but nor
    not no is are was were be been being do does did done doing has have had having what which who whom whose when
    where why how much many more most less least than then this that these those it its they them their our ours
    we us you your i me my he she his her can could should would will shall may might must there here as if so
    such any some each every all both either neither up down out off again also only just very per via vs
    still once yet ever even whether there's what's isn't aren't don't doesn't
    affect affects affected influence influences relate relates related compare compared know known think
    say says said help helps work works matter matters change changes tell show give get make""".split()
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_CUT = re.compile(r"[,;:?!.()\[\]\"“”]")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s*")
_SYSTEM = "You decompose research questions into facets. Reply with one facet per line and nothing else."


class FrameParams(BaseModel):
    """What ``frame`` takes; ``model`` is a server/CLI setting, never a public tool parameter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: str = Field(min_length=1, max_length=2000, description="the research question to frame")
    projects: ProjectScope = Field(
        None, max_length=MAX_PROJECTS, description="zk projects in scope; None = config scope, [] = memory only"
    )
    limit: int | None = Field(None, ge=1, le=50, description="search hits examined per facet; negative = 8")
    model: str | None = Field(None, description="model spec for facet proposals (hidden from the tool)")

    _limit = field_validator("limit", mode="before")(negative_is_default)

    @field_validator("question")
    @classmethod
    def _question_is_text(cls, value: str) -> str:
        return check_text(value, "the question")


class FrameHit(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str
    store: Literal["memory", "zk"]
    tier: Literal["practice", "canon"]
    title: str
    type: str
    matched: list[str] = Field(description="the facet's content words this hit contains")
    verified_looking: bool
    contested: bool = Field(description="contested in a debate map")
    contradicted_by: list[str] = Field(description="the other ends of overlay contradicts edges touching this hit")


class Facet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    facet: str
    status: Status
    reason: str
    hits: list[FrameHit] = Field(description="the hits that count for this facet (and make its status)")


class FrameResult(LensResult):
    question: str
    projects: list[str]
    decomposition: Literal["model", "extractive"]
    model: ModelInfo
    facets: list[Facet]
    overlays: list[OverlayInfo]
    note: str = ""


def run_frame(
    workspace: Workspace,
    stores: Stores,
    embedder: TextEncoder | None,
    params: FrameParams,
    *,
    model: Model | None = None,
    index: HybridIndex | None = None,
) -> FrameResult:
    """Facets of ``params.question`` across memory and the scoped zettelkasten, each with its status and hits.

    ``index`` lets a server reuse its open index; otherwise one is opened (and closed) with ``embedder``.
    """
    projects = scope_of(workspace, params.projects)
    chosen = lens_model(workspace, params.model, model)
    facets, note = question_facets(params.question), ""
    if chosen is not None:
        proposed = model_facets(params.question, chosen)
        facets, note = (proposed, "") if proposed else (facets, "the model proposed no usable facet; split instead")
    decomposition: Literal["model", "extractive"] = "model" if chosen is not None and not note else "extractive"
    overlays: list[Overlay] = []
    infos: list[OverlayInfo] = []
    for kind in ("claim", "generic"):
        state, info = open_overlay(workspace, stores, kind)
        infos.append(info)
        if state.overlay is not None:
            overlays.append(state.overlay)
    contradicted = contradictions(overlays)
    if index is None and embedder is None:
        raise ValueError("run_frame needs an embedder or an open index")
    opened = stores.open_index(embedder) if index is None and embedder is not None else index
    assert opened is not None
    try:
        limit = params.limit or DEFAULT_HITS
        results = []
        for facet in facets:
            hits = opened.search(facet, limit, families=("memory", "zk"), projects=projects)
            nodes = [stores.nodes[h.address] for h in hits if h.address in stores.nodes]
            framed = frame_hits(facet, nodes, stores.resolvers, contradicted)
            status, reason = facet_status(framed, zk_in_scope=bool(projects))
            results.append(Facet(facet=facet, status=status, reason=reason, hits=framed))
    finally:
        if index is None:
            opened.close()
    counts = {s: sum(f.status == s for f in results) for s in ("established", "contested", "thin")}
    summary = f"{len(results)} facet(s): " + ", ".join(f"{n} {s}" for s, n in counts.items())
    return FrameResult(
        summary=summary,
        question=params.question,
        projects=projects,
        decomposition=decomposition,
        model=EXTRACTIVE if chosen is None else ModelInfo(provider=chosen.identity.provider, id=chosen.identity.id),
        facets=results,
        overlays=infos,
        note=note,
    )


def question_facets(question: str) -> list[str]:
    """The deterministic split: runs of content words between stop words and punctuation (module docstring)."""
    runs: list[str] = []
    for piece in _CUT.split(question):
        current: list[str] = []
        for word in _WORD.findall(piece):
            if word.lower().replace("’", "'") in _STOP:
                runs.append(" ".join(current))
                current = []
            else:
                current.append(word)
        runs.append(" ".join(current))
    facets = list(dict.fromkeys(run for run in runs if run))
    return facets[:MAX_FACETS] or [" ".join(question.split())]


def model_facets(question: str, model: Model) -> list[str]:
    """The model's facets, one per line (bullets and numbering removed), de-duplicated, at most six."""
    prompt = f"List two to six facets (short noun phrases) of this research question, one per line.\n{question}"
    text = model.complete(prompt, system=_SYSTEM, max_tokens=FACET_MAX_TOKENS).text
    lines = [_BULLET.sub("", line).strip().strip("\"'") for line in text.splitlines()]
    unique: dict[str, str] = {}
    for line in lines:
        if line and len(line) <= 200:
            unique.setdefault(line.casefold(), line)
    return list(unique.values())[:MAX_FACETS]


def contradictions(overlays: Sequence[Overlay]) -> dict[str, list[str]]:
    """Address -> the other ends of every ``contradicts`` edge touching it, across the given overlays."""
    table: dict[str, list[str]] = {}
    for overlay in overlays:
        for link in overlay.links:
            if link.relation == "contradicts":
                table.setdefault(link.practice, []).append(link.canon)
                table.setdefault(link.canon, []).append(link.practice)
    return {address: sorted(set(others)) for address, others in table.items()}


def frame_hits(
    facet: str, nodes: Sequence[Node], resolvers: Resolvers, contradicted: Mapping[str, list[str]]
) -> list[FrameHit]:
    """The retrieved nodes that count for ``facet`` (half its content words, rounded up), in search order."""
    wanted = _stems(facet)
    need = math.ceil(len(wanted) / 2)
    framed = []
    for node in nodes:
        if node.family not in ("memory", "zk"):
            continue
        matched = sorted(wanted & _stems(f"{node.title} {node.body}"))
        if not wanted or len(matched) < need:
            continue
        contested = bool(node.meta.get("contested"))
        framed.append(
            FrameHit(
                address=node.address,
                store=store_of(node.address),
                tier=tier_of(store_of(node.address)),
                title=node.title,
                type=node.type,
                matched=matched,
                verified_looking=not contested and any(resolvers.resolve(t).outcome == "ok" for t in node.tethers),
                contested=contested,
                contradicted_by=list(contradicted.get(node.address, [])),
            )
        )
    return framed


def facet_status(hits: Sequence[FrameHit], *, zk_in_scope: bool) -> tuple[Status, str]:
    """The facet's status and a one-line reason, by the rule in the module docstring."""
    disputed = [h for h in hits if h.contested or h.contradicted_by]
    if disputed:
        first = disputed[0]
        why = (
            "contested in the debate map" if first.contested else f"contradicted by {', '.join(first.contradicted_by)}"
        )
        return "contested", f"{first.address} is {why}" + (f" (+{len(disputed) - 1} more)" if len(disputed) > 1 else "")
    verified = [h for h in hits if h.verified_looking]
    stores: Collection[str] = {h.store for h in verified}
    needed = {"memory", "zk"} if zk_in_scope else {"memory"}
    counts = f"{sum(h.store == 'memory' for h in verified)} memory, {sum(h.store == 'zk' for h in verified)} zk"
    if len(verified) >= 2 and needed <= set(stores):
        return "established", f"{len(verified)} verified-looking hits ({counts})"
    missing = ", ".join(sorted(needed - set(stores)))
    detail = f"{len(verified)} verified-looking of {len(hits)} counting hit(s) ({counts})"
    return "thin", detail + (f"; none from {missing}" if missing else "")


def _stems(text: str) -> set[str]:
    words = (w.lower().replace("’", "'") for w in _WORD.findall(text))
    return {_stem(w) for w in words if w not in _STOP}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
