"""The ranking-quality harness: its figures over hand-made rankings, its twin count, its report section, one run."""

from __future__ import annotations

import io

import pytest

from adapters.base import Edge, Node
from dev.synapse_bench import quality
from dev.synapse_bench.quality import Figures, Judged, SetResult, figures, peer_ranking, section, table, twin_slots
from dev.synapse_bench.report_sections import SECTIONS


def _node(address: str, title: str, body: str, *, type_: str = "claim", cites: tuple[str, ...] = ()) -> Node:
    edges = tuple(Edge(address, dst, "cites") for dst in cites)
    return Node(address=address, type=type_, title=title, body=body, family="zk", edges=edges)


NODES = {
    n.address: n
    for n in (
        _node("zk:p:note", "Impact", "Impact grows with size.", cites=("zk:p:src",)),
        _node("zk:p:src", "A paper", "# A paper", type_="source"),
        _node("zk:p:other", "Impact", "Impact grows with size and volatility."),
        _node("zk:p:copy-a", "Same", "One text."),
        _node("zk:p:copy-b", "Same", "One  text."),
    )
}


def test_recall_counts_an_address_a_result_carries_in_also_and_mrr_the_first_result_holding_one() -> None:
    judged = [Judged("q", frozenset({"a", "b"}))]
    got = figures([[("x",), ("a",), ("y", "b")]], judged, {})
    assert got.recall == {1: 0.0, 5: 1.0, 10: 1.0}
    assert got.mrr == pytest.approx(0.5)


def test_recall_at_k_looks_only_at_the_first_k_results() -> None:
    ranking = [(f"d{i}",) for i in range(12)]
    got = figures([ranking], [Judged("q", frozenset({"d5", "d11"}))], {})
    assert got.recall == {1: 0.0, 5: 0.0, 10: 0.5}
    assert got.mrr == pytest.approx(1 / 6)


def test_a_query_with_nothing_relevant_in_its_top_ten_scores_zero() -> None:
    got = figures([[("x",)] * 10 + [("a",)]], [Judged("q", frozenset({"a"}))], {})
    assert got.recall[10] == 0.0 and got.mrr == 0.0


def test_a_note_beside_its_only_source_and_a_copied_text_are_twin_slots() -> None:
    assert twin_slots([("zk:p:note",), ("zk:p:other",), ("zk:p:src",)], NODES) == 1
    assert twin_slots([("zk:p:copy-a",), ("zk:p:copy-b",)], NODES) == 1


def test_results_already_carrying_their_twin_and_notes_sharing_words_are_no_twin_slots() -> None:
    assert twin_slots([("zk:p:note", "zk:p:src"), ("zk:p:other",), ("zk:p:copy-a", "zk:p:copy-b")], NODES) == 0


def test_the_section_sits_between_markers_the_perf_report_keeps() -> None:
    assert (quality.BEGIN, quality.END) in SECTIONS
    same = Figures(2, {1: 0.5, 5: 1.0, 10: 1.0}, 0.75, 0)
    half = Figures(2, {1: 0.25, 5: 0.5, 10: 1.0}, 0.5, 3)
    text = section([SetResult("demo", 80, {"Synapse": same, "brute force": half}, 1.0)], "today", "cmd")
    assert text.startswith(quality.BEGIN) and text.rstrip().endswith(quality.END)
    assert "| demo | Synapse ÷ brute force | | ×2.00 | ×2.00 | ×1.00 | ×1.50 | |" in text
    assert "| 3 of 20 |" in table([SetResult("demo", 80, {"Synapse": same, "brute force": half}, 1.0)])


def test_the_peers_ids_become_each_address_once_in_its_order_and_unknown_ids_no_result() -> None:
    addresses = {"mem.tree.a": "mem:tree:a", "zk.p.b": "zk:p:b"}
    ids = ["fact:mem.tree.a", "decision:zk.p.b", "fact:mem.tree.a", "fact:nowhere", *(["zk.p.b"] * 20)]
    ranking = peer_ranking(ids, lambda i: addresses.get(i.split(":", 1)[-1]))
    assert ranking == [("mem:tree:a",), ("zk:p:b",)]
    many = {f"n{i}": f"zk:p:n{i:02d}" for i in range(30)}
    assert len(peer_ranking(list(many), many.get)) == quality.LIMIT


def test_every_measured_system_gets_a_row_and_synapse_a_ratio_to_each_other() -> None:
    ours = Figures(2, {1: 0.5, 5: 1.0, 10: 1.0}, 0.75, 0)
    peer = Figures(2, {1: 1.0, 5: 1.0, 10: 1.0}, 1.0, 0)
    text = table([SetResult("demo", 80, {"Synapse": ours, "brute force": ours, "memdsl": peer}, 1.0)])
    assert [line.split(" | ")[1] for line in text.splitlines()[2:]] == [
        "Synapse",
        "brute force",
        "memdsl",
        "Synapse ÷ brute force",
        "Synapse ÷ memdsl",
    ]
    assert "| demo | Synapse ÷ memdsl | | ×0.50 | ×1.00 | ×1.00 | ×0.75 | |" in text


def test_the_targets_compare_recall_with_the_best_other_system_and_mrr_with_the_best_of_all() -> None:
    ours = Figures(10, {1: 0.5, 5: 0.8, 10: 1.0}, 0.91, 0)
    brute = Figures(10, {1: 0.6, 5: 0.7, 10: 1.0}, 0.95, 2)
    peer = Figures(10, {1: 0.4, 5: 0.8, 10: 0.9}, 0.80, 0)
    (line,) = quality.target_lines([SetResult("demo", 80, {"Synapse": ours, "brute force": brute, "memdsl": peer}, 1)])
    assert "recall@5 0.800 against the best other system's 0.800 (met)" in line
    assert "MRR@10 0.910, ×0.958 the best of all (met" in line
    assert "0 document(s) shown twice in a top 10 (met)" in line
    worse = Figures(10, {1: 0.5, 5: 0.79, 10: 1.0}, 0.85, 1)
    (line,) = quality.target_lines([SetResult("demo", 80, {"Synapse": worse, "memdsl": peer, "brute force": brute}, 1)])
    assert "(missed); MRR@10 0.850, ×0.895 the best of all (missed" in line
    assert "1 document(s) shown twice in a top 10 (missed)" in line
    assert quality.target_lines([SetResult("demo", 80, {"Synapse": ours}, 1)]) == []


def test_a_demo_run_prints_both_systems_with_figures_in_range() -> None:
    out = io.StringIO()
    assert quality.run("demo", quality.SYNTHETIC_NODES, False, out, peer=False) == 0
    rows = [line for line in out.getvalue().splitlines() if line.startswith("| demo (")]
    assert [row.split(" | ")[1] for row in rows] == ["Synapse", "brute force"]
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[2] == "11"
        assert all(0.0 <= float(c) <= 1.0 for c in cells[3:7])
    assert rows[0].endswith("| 0 of 110 |")
