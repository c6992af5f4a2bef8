"""Does connection expansion help retrieval, and are the typed edges right?

Retrieval. Each labelled query is searched once (memory and the scoped
zettelkasten, top ``k``, RRF-fused). *Plain* is that list. *Expanded* is the
same ``k`` hits, each followed by its 1-hop overlay neighbours (what the search
action returns with ``expand=true``). Both report

- ``recall@k``: the share of the labelled addresses present in the list (for
  expanded, the ``k`` hits plus their neighbours, so the list is longer: the
  mean number of added neighbours is reported beside it), and
- ``MRR``: the mean over queries of 1 / the rank of the first relevant item in
  that list (expansions sit right after the hit they came from, so they can
  raise it or push a relevant hit down).

Precision. A deterministic sample of the overlay's typed edges, round-robin
over relations (so rare relations such as ``contradicts`` are always seen),
each shown with its evidence for a human to judge. The order within a
relation is a hash of the edge, so the same overlay always yields the same
sample, and a rebuilt overlay re-samples only what changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from adapters.base import Node
from adapters.index import HybridIndex
from synapse_server.eval.metrics import mean, recall, reciprocal_rank
from synapse_server.eval.queries import QuerySet
from synapse_server.overlay.expansion import expand_hits
from synapse_server.overlay.lens import OverlayInfo, first_sentence
from synapse_server.overlay.model import RELATIONS, Link, Overlay

__all__ = ["EvalReport", "Figures", "QueryScore", "SpotCheckEdge", "retrieval_scores", "spot_check_sample"]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QueryScore(_Frozen):
    query: str
    relevant: int
    plain_found: list[str]
    expanded_found: list[str]
    added: int = Field(description="neighbours expansion added to the k hits")
    plain_rr: float
    expanded_rr: float


class Figures(_Frozen):
    recall_at_k: float
    mrr: float
    mean_items: float = Field(description="mean length of the ranked list the figures are computed over")


class SpotCheckEdge(_Frozen):
    """One sampled edge and the evidence a human needs to judge it."""

    practice: str
    practice_title: str | None
    practice_text: str
    canon: str
    canon_title: str | None
    canon_text: str
    relation: str
    confidence: float
    channels: list[str]
    shared_paths: list[str]
    rationale: str


class EvalReport(_Frozen):
    summary: str
    root: str
    queries_file: str
    k: int
    projects: list[str]
    overlay: OverlayInfo
    plain: Figures
    expanded: Figures
    per_query: list[QueryScore]
    missing_labels: list[str] = Field(description="labelled addresses absent from the stores (cannot be retrieved)")
    spot_check: list[SpotCheckEdge]


def retrieval_scores(
    index: HybridIndex,
    queries: QuerySet,
    overlay: Overlay | None,
    projects: Sequence[str],
    k: int,
) -> tuple[Figures, Figures, list[QueryScore]]:
    """Plain and expanded figures over every labelled query, and each query's own scores."""
    scores: list[QueryScore] = []
    lengths: tuple[list[int], list[int]] = ([], [])
    for item in queries.queries:
        hits = index.search(item.query, k, families=("memory", "zk"), projects=projects)
        plain = [hit.address for hit in hits]
        expanded = [entry.address for entry in expand_hits(hits, overlay, projects=projects)]
        lengths[0].append(len(plain))
        lengths[1].append(len(expanded))
        wanted = set(item.relevant)
        scores.append(
            QueryScore(
                query=item.query,
                relevant=len(wanted),
                plain_found=[a for a in plain if a in wanted],
                expanded_found=[a for a in expanded if a in wanted],
                added=len(expanded) - len(plain),
                plain_rr=reciprocal_rank(plain, wanted),
                expanded_rr=reciprocal_rank(expanded, wanted),
            )
        )
    plain_recall = mean([recall(s.plain_found, set(q.relevant)) for s, q in zip(scores, queries.queries, strict=True)])
    expanded_recall = mean(
        [recall(s.expanded_found, set(q.relevant)) for s, q in zip(scores, queries.queries, strict=True)]
    )
    plain_figures = Figures(
        recall_at_k=round(plain_recall, 4),
        mrr=round(mean([s.plain_rr for s in scores]), 4),
        mean_items=round(mean([float(n) for n in lengths[0]]), 2),
    )
    expanded_figures = Figures(
        recall_at_k=round(expanded_recall, 4),
        mrr=round(mean([s.expanded_rr for s in scores]), 4),
        mean_items=round(mean([float(n) for n in lengths[1]]), 2),
    )
    return plain_figures, expanded_figures, scores


def spot_check_sample(overlay: Overlay | None, nodes: Mapping[str, Node], size: int) -> list[SpotCheckEdge]:
    """``size`` edges, round-robin over relations, each relation's edges in hash order (deterministic)."""
    if overlay is None or size <= 0:
        return []
    groups = [sorted((e for e in overlay.links if e.relation == r), key=_edge_hash) for r in RELATIONS]
    picked: list[Link] = []
    depth = 0
    while len(picked) < size and any(depth < len(group) for group in groups):
        picked.extend(group[depth] for group in groups if depth < len(group))
        depth += 1
    return [_evidence(link, nodes) for link in picked[:size]]


def _edge_hash(link: Link) -> str:
    return hashlib.sha256(f"{link.practice}\t{link.canon}".encode()).hexdigest()


def _evidence(link: Link, nodes: Mapping[str, Node]) -> SpotCheckEdge:
    practice, canon = nodes.get(link.practice), nodes.get(link.canon)
    return SpotCheckEdge(
        practice=link.practice,
        practice_title=practice.title if practice else None,
        practice_text=first_sentence(practice.body) if practice else "(no longer in memory)",
        canon=link.canon,
        canon_title=canon.title if canon else None,
        canon_text=first_sentence(canon.body) if canon else "(no longer in the zettelkasten)",
        relation=link.relation,
        confidence=link.confidence,
        channels=list(link.channels),
        shared_paths=list(link.shared_paths),
        rationale=link.rationale,
    )
