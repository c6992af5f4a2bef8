"""The evaluation harness: recall@k and MRR with and without expansion, and the edge spot-check."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.cli.commands.eval import main
from synapse_server.demo import build_demo
from synapse_server.errors import InvalidInput
from synapse_server.eval import format_report, load_queries, run_eval
from synapse_server.eval.harness import spot_check_sample
from synapse_server.eval.metrics import mean, recall, reciprocal_rank
from synapse_server.eval.queries import parse_queries
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.model import Link, Overlay, Relation
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.stores import Stores


@pytest.mark.parametrize(
    ("ranked", "relevant", "expected_recall", "expected_rr"),
    [
        (["a", "b", "c"], {"b"}, 1.0, 0.5),
        (["a", "b", "c"], {"c", "z"}, 0.5, 1 / 3),
        (["a", "b"], {"z"}, 0.0, 0.0),
        ([], {"z"}, 0.0, 0.0),
        (["a"], set(), 1.0, 0.0),
    ],
)
def test_recall_and_reciprocal_rank(
    ranked: list[str], relevant: set[str], expected_recall: float, expected_rr: float
) -> None:
    assert recall(ranked, relevant) == pytest.approx(expected_recall)
    assert reciprocal_rank(ranked, relevant) == pytest.approx(expected_rr)


def test_mean_of_nothing_is_zero() -> None:
    assert (mean([]), mean([0.5, 1.0])) == (0.0, 0.75)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("queries: []", "queries"),
        ("queries:\n  - query: q\n    relevant: []", "queries.0.relevant"),
        ("queries:\n  - query: q\n    relevant: [a]\n    extra: 1", "queries.0.extra"),
        ("queries: [unclosed", "invalid YAML"),
    ],
)
def test_a_broken_query_set_is_invalid_input_naming_where(text: str, where: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(where)):
        parse_queries(text, "q.yaml")


def _link(practice: str, canon: str, relation: Relation) -> Link:
    return Link(
        practice=f"mem:tree:{practice}",
        canon=f"zk:r:{canon}",
        relation=relation,
        confidence=0.7,
        rationale="r",
        typer="t",
        channels=["semantic"],
    )


def test_the_spot_check_sample_is_deterministic_and_round_robin_over_relations() -> None:
    links = [_link(f"p{i}", f"c{i}", "related") for i in range(8)]
    links += [_link("p9", "c9", "contradicts"), _link("p10", "c10", "applies"), _link("p11", "c11", "applies")]
    overlay = Overlay(kind="generic", signature="s", typer="t", projects=["r"], min_confidence=0.5, links=links)
    sample = spot_check_sample(overlay, {}, 5)
    assert [edge.relation for edge in sample] == ["applies", "contradicts", "related", "applies", "related"]
    reordered = overlay.model_copy(update={"links": list(reversed(links))})
    assert spot_check_sample(reordered, {}, 5) == sample
    assert sample[0].practice_text == "(no longer in memory)"
    assert spot_check_sample(None, {}, 5) == [] and spot_check_sample(overlay, {}, 0) == []


# --- the demo -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Workspace, Stores]:
    workspace = load_workspace(build_demo(tmp_path_factory.mktemp("eval") / "ws"))
    stores = Stores.load(workspace)
    build_overlay(workspace, stores, embedder, kind="generic")
    return workspace, stores


def test_every_label_of_the_shipped_demo_set_is_a_demo_address(demo: tuple[Workspace, Stores]) -> None:
    _, stores = demo
    queries, name = load_queries(None)
    assert "demo" in name and len(queries.queries) >= 10
    labels = {address for query in queries.queries for address in query.relevant}
    assert labels <= set(stores.nodes)
    assert any(a.startswith("mem:") for a in labels) and any(a.startswith("zk:") for a in labels)


def test_the_harness_reports_both_figures_and_expansion_helps_on_the_demo(
    demo: tuple[Workspace, Stores], embedder: Embedder
) -> None:
    workspace, stores = demo
    report = run_eval(workspace, stores, embedder, k=5, sample=6)
    assert report.overlay.drift == "fresh" and report.missing_labels == []
    assert report.plain.mean_items == 5.0 and report.expanded.mean_items > 5.0
    assert report.expanded.recall_at_k > report.plain.recall_at_k
    assert all(set(s.plain_found) <= set(s.expanded_found) for s in report.per_query)
    assert len(report.spot_check) == 6
    assert all(edge.practice_title and edge.canon_title and edge.rationale for edge in report.spot_check)
    text = format_report(report)
    assert re.search(r"plain search\s+0\.\d{3}\s+\d\.\d{3}\s+5\.00", text)
    assert re.search(r"with 1-hop expansion\s+\d\.\d{3}\s+\d\.\d{3}\s+\d+\.\d{2}", text)
    assert text.count("judge: [ ]") == 6


def test_without_an_overlay_the_expanded_figures_equal_the_plain_ones(
    demo: tuple[Workspace, Stores], embedder: Embedder
) -> None:
    workspace, stores = demo
    report = run_eval(workspace, stores, embedder, kind="claim", k=3, sample=3)
    assert report.overlay.drift == "missing"
    assert (report.expanded.recall_at_k, report.expanded.mrr) == (report.plain.recall_at_k, report.plain.mrr)
    assert report.spot_check == []
    assert "no usable overlay" in format_report(report)


def test_the_command_prints_both_figures_and_json_on_request(
    demo: tuple[Workspace, Stores], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    workspace, _ = demo
    queries = tmp_path / "q.yaml"
    queries.write_text(
        "queries:\n  - query: Does volatility scaling reduce drawdowns?\n"
        "    relevant: [mem:tree:expe-1b2c3d4e, zk:research:20260505-0915-managed-drawdown]\n",
        encoding="utf-8",
    )
    assert main(["--root", str(workspace.root), "--queries", str(queries), "--json", "--sample", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["plain"]) == {"recall_at_k", "mrr", "mean_items"} == set(data["expanded"])
    assert data["queries_file"] == str(queries) and len(data["per_query"]) == 1
    assert main(["--root", str(workspace.root), "--queries", str(tmp_path / "absent.yaml")]) == 2
    assert "invalid_input" in capsys.readouterr().err
