"""One evaluation run over a workspace, and its plain-text report for a human reader.

Read-only: it opens the derived search index (a cache under ``.angelo/``)
and reads the overlay; it writes nothing else and never builds an overlay. A
missing overlay is reported, and then the expanded figures equal the plain ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from synapse_server.eval.harness import EvalReport, retrieval_scores, spot_check_sample
from synapse_server.eval.queries import load_queries
from synapse_server.overlay.lens import open_overlay, scope_of
from synapse_server.overlay.model import OverlayKind
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

__all__ = ["format_report", "run_eval"]

DEFAULT_K = 5
DEFAULT_SAMPLE = 10


def run_eval(
    workspace: Workspace,
    stores: Stores,
    embedder: TextEncoder,
    *,
    queries: Path | None = None,
    k: int = DEFAULT_K,
    kind: OverlayKind = "generic",
    projects: list[str] | None = None,
    sample: int = DEFAULT_SAMPLE,
) -> EvalReport:
    """Recall@k and MRR with and without 1-hop expansion over ``kind``, plus a spot-check sample of its edges."""
    query_set, queries_name = load_queries(queries)
    scope = scope_of(workspace, projects)
    state, info = open_overlay(workspace, stores, kind)
    index = stores.open_index(embedder)
    try:
        plain, expanded, per_query = retrieval_scores(index, query_set, state.overlay, scope, k)
    finally:
        index.close()
    labels = dict.fromkeys(a for q in query_set.queries for a in q.relevant)
    missing = [address for address in labels if address not in stores.nodes]
    summary = (
        f"{len(per_query)} queries, k={k}: recall@k {plain.recall_at_k:.3f} plain vs {expanded.recall_at_k:.3f} "
        f"expanded; MRR {plain.mrr:.3f} plain vs {expanded.mrr:.3f} expanded ({kind} overlay {info.drift})"
    )
    return EvalReport(
        summary=summary,
        root=workspace.root.name,
        queries_file=queries_name,
        k=k,
        projects=scope,
        overlay=info,
        plain=plain,
        expanded=expanded,
        per_query=per_query,
        missing_labels=missing,
        spot_check=spot_check_sample(state.overlay, stores.nodes, sample),
    )


def format_report(report: EvalReport) -> str:
    """The report as text: both figures side by side, per-query lines, then the spot-check sheet."""
    lines = [
        f"synapse eval - {report.queries_file}, k={report.k}, projects: {', '.join(report.projects) or '(memory only)'}",
        f"overlay: {report.overlay.kind} ({report.overlay.drift}: {report.overlay.detail})",
        "",
        f"{'':24}{'recall@k':>10}{'MRR':>8}{'mean items':>12}",
        f"{'plain search':24}{report.plain.recall_at_k:>10.3f}{report.plain.mrr:>8.3f}{report.plain.mean_items:>12.2f}",
        f"{'with 1-hop expansion':24}{report.expanded.recall_at_k:>10.3f}{report.expanded.mrr:>8.3f}"
        f"{report.expanded.mean_items:>12.2f}",
        "",
    ]
    if report.overlay.drift in ("missing", "invalid"):
        lines += ["no usable overlay: the expanded figures equal the plain ones (run synapse build first)", ""]
    for score in report.per_query:
        gained = [a for a in score.expanded_found if a not in score.plain_found]
        lines.append(
            f"- {score.query}\n    plain {len(score.plain_found)}/{score.relevant}, expanded "
            f"{len(score.expanded_found)}/{score.relevant} (+{score.added} neighbours)"
            + (f"; gained {', '.join(gained)}" if gained else "")
        )
    if report.missing_labels:
        lines += ["", "labelled addresses not in the stores: " + ", ".join(report.missing_labels)]
    lines += ["", f"precision spot-check: {len(report.spot_check)} typed edge(s) to judge by hand", ""]
    for number, edge in enumerate(report.spot_check, 1):
        lines += [
            f"[{number}] {edge.practice} --{edge.relation} ({edge.confidence:.2f}; {'+'.join(edge.channels)})--> "
            f"{edge.canon}",
            f"    practice: {edge.practice_title} - {edge.practice_text}",
            f"    canon:    {edge.canon_title} - {edge.canon_text}",
            f"    rationale: {edge.rationale}"
            + (f"\n    shared paths: {', '.join(edge.shared_paths)}" if edge.shared_paths else ""),
            "    judge: [ ] right relation   [ ] wrong relation   [ ] no relation",
        ]
    return "\n".join(lines)
