"""The performance report's pure parts: tables, ratios, the markdown it writes, and the peer-workspace translation.

No test here times anything or installs the peer; the figures are made up and only their placement is checked.
"""

from __future__ import annotations

import math
import re
from typing import Any

from adapters.base import Edge, Family, Node, Tether, TetherKind
from dev.synapse_bench.baselines.compare import percentiles, ratio, ratios
from dev.synapse_bench.baselines.memfiles import MODULE_BUDGET, declaration_name, quote, translate
from dev.synapse_bench.pg_bench import BEGIN as PG_BEGIN
from dev.synapse_bench.pg_bench import END as PG_END
from dev.synapse_bench.report import fmt, markdown, report_text, table
from dev.synapse_bench.report_steps import REPO, failure_line


def note(address: str, body: str = "Costs rose. Sharpe fell.", **extra: Any) -> Node:
    family: Family = "memory" if address.startswith("mem:") else "zk"
    return Node(address=address, type=extra.pop("type", "claim"), title="A title", body=body, family=family, **extra)


def figures(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "date": "2026-01-01 00:00 UTC",
        "python": "3.11.7",
        "cpus": 2,
        "sizes": {"1k": 1000},
        "queries": 10,
        "nav_repeat": 1,
        "load_start": [3.0, 3.0, 3.0],
        "load_end": [4.5, 3.0, 3.0],
        "load": [{"step": "perf", "seconds": 1.0, "load1": 5.5}],
        "errors": {},
    }
    return {**base, **extra}


def test_a_table_right_aligns_every_figure_column() -> None:
    text = table(["what", "a", "b"], [["x", "1", "2"]])
    assert text.splitlines() == ["| what | a | b |", "|---|---:|---:|", "| x | 1 | 2 |"]


def test_a_figure_that_was_not_measured_shows_as_a_dash() -> None:
    assert fmt(None) == "—"
    assert fmt(float("nan")) == "—"
    assert fmt(1234.5, ",.0f") == "1,234"
    assert fmt(70) == "70"
    assert fmt(0.25) == "0.2"
    assert fmt(True) == "True"


def test_percentiles_are_the_median_and_the_nearest_rank_p95() -> None:
    got = percentiles([float(v) for v in range(1, 101)])
    assert got["p50_ms"] == 50.5
    assert got["p95_ms"] == 96.0
    assert got["n"] == 100
    assert math.isnan(percentiles([])["p50_ms"])


def test_a_ratio_is_baseline_over_ours_so_above_one_means_ours_is_faster() -> None:
    got = ratio({"p50_ms": 30.0, "p95_ms": 10.0}, {"p50_ms": 10.0, "p95_ms": 20.0})
    assert got == {"p50": 3.0, "p95": 0.5}
    assert math.isnan(ratio({"p50_ms": 1.0, "p95_ms": 1.0}, {"p50_ms": 0.0, "p95_ms": 1.0})["p50"])


def test_only_ratios_whose_two_contenders_ran_are_reported() -> None:
    figures = {name: {"p50_ms": 2.0, "p95_ms": 4.0} for name in ("fused", "lexical", "peer")}
    assert sorted(ratios(figures)) == ["peer/fused", "peer/lexical"]
    assert ratios(figures)["peer/fused"] == {"p50": 1.0, "p95": 1.0}


def test_the_report_states_load_and_lists_what_was_not_measured() -> None:
    text = markdown(figures(errors={"server": "server_bench exited 1: boom"}))
    assert "from 3.0 to 5.5" in text
    assert "`server`: not measured: server_bench exited 1: boom" in text
    assert "## Side by side" not in text  # no baseline figures, no invented table


def test_a_failed_step_is_reported_as_its_harness_and_last_error_line_without_the_machines_folders() -> None:
    traceback = (
        "dev.synapse_bench.search_profile exited 1: Traceback (most recent call last):\n"
        f'  File "{REPO}/dev/synapse_bench/search_profile.py", line 41, in profile_mode\n'
        "    from synapse_server.actions import freshness\n"
        "ImportError: cannot import name 'freshness' from 'synapse_server.actions' "
        f"({REPO}/synapse_server/actions/__init__.py)"
    )
    assert failure_line(traceback) == (
        "dev.synapse_bench.search_profile exited 1: ImportError: cannot import name 'freshness' from "
        "'synapse_server.actions' (synapse_server/actions/__init__.py)"
    )
    assert failure_line("[Errno 2] No such file or directory: '/srv/runs/w7/ws-10k/report.json'") == (
        "[Errno 2] No such file or directory: 'report.json'"
    )
    assert failure_line("pg_bench printed no figures for 10k") == "pg_bench printed no figures for 10k"
    text = markdown(figures(errors={"mcp/1k": traceback}))
    assert f"`mcp/1k`: not measured: {failure_line(traceback)}" in text
    assert str(REPO) not in text


def test_the_report_shows_side_by_side_figures_and_their_ratios() -> None:
    latency = {"fused": {"p50_ms": 10.0, "p95_ms": 20.0}, "peer": {"p50_ms": 25.0, "p95_ms": 30.0}}
    run = {
        "latency": latency,
        "ratios": ratios(latency),
        "agreement": {"peer_vs_fused_top1": 0.25},
        "peer": {"spec": "memdsl==0.4.0", "skipped": "could not install memdsl==0.4.0: no network"},
    }
    text = markdown(figures(**{"baselines/1k": run}))
    assert "| ours: fused (RRF of both) | 10.00 / 20.00 |" in text
    assert "| peer `memdsl` warm query vs our fused search | ×2.50 / ×1.50 |" in text
    assert "| ours: lexical (FTS5 bm25) | — |" in text
    assert "skipped: could not install memdsl==0.4.0: no network" in text


def test_a_reused_index_leaves_the_cold_build_columns_empty() -> None:
    perf = [
        {"size": "1k", "nodes": 1000, "warm": {"open_sync_s": 0.5}, "query": {"fused": {"p50_ms": 9, "p95_ms": 12}}}
    ]
    row = next(line for line in markdown(figures(perf=perf)).splitlines() if line.startswith("| 1k |"))
    assert row.startswith("| 1k | 1,000 | — | — | — | — | 0.50 |")
    assert "9.00 / 12.00" in row


def test_each_node_becomes_one_declaration_with_the_text_our_index_ranks() -> None:
    nodes = [
        note("mem:tree:deci-0001", type="decision", meta={"tags": ["cost model"]}),
        note("zk:research:20260101-0900-claim", body='He said "net" \\ gross.'),
    ]
    translation = translate(nodes)
    (text,) = translation.files.values()
    assert text.startswith("module synth.p00001\n")
    assert "decision mem.tree.deci-0001 {" in text
    assert "fact zk.research.20260101-0900-claim {" in text
    assert '  claim: "A title Costs rose. Sharpe fell. tags: cost model"' in text
    assert r'claim: "A title He said \"net\" \\ gross."' in text
    assert "  tags: [cost_model]" in text
    assert 'evidence { source: "memory" quote: "Costs rose." }' in text
    assert translation.address_of("decision:mem.tree.deci-0001") == "mem:tree:deci-0001"
    assert translation.address_of("zk.research.20260101-0900-claim") == "zk:research:20260101-0900-claim"


def test_edges_become_relations_only_between_translated_nodes() -> None:
    edges = (
        Edge("zk:research:b", "zk:research:a", "contradicts"),
        Edge("zk:research:b", "repo:code:models/cost.py", "files"),
        Edge("zk:research:b", "zk:research:gone", "supports"),
    )
    citation = Tether(TetherKind.CITATION, "paper-1", "p3", "Costs rose by 3 bps.")
    translation = translate([note("zk:research:a"), note("zk:research:b", edges=edges, tethers=(citation,))])
    text = next(iter(translation.files.values()))
    assert "  conflicts_with: [zk.research.a]" in text
    assert "supports" not in text and "models" not in text
    assert 'evidence { source: "citation:paper-1@p3" quote: "Costs rose by 3 bps." }' in text


def test_files_stay_within_the_peers_module_budget() -> None:
    translation = translate([note(f"zk:research:n{i:03d}") for i in range(MODULE_BUDGET * 2 + 1)])
    assert sorted(translation.files) == ["synth.p00001.mem", "synth.p00002.mem", "synth.p00003.mem"]
    counts = [len(re.findall(r"^fact ", text, re.M)) for text in translation.files.values()]
    assert counts == [MODULE_BUDGET, MODULE_BUDGET, 1]


def test_names_and_strings_are_atoms_and_literals_the_peer_reads() -> None:
    assert declaration_name("zk:fed.proj:a b#{c}") == "zk.fed.proj.a_b__c_"
    assert quote('one\n  two "three" \\') == r'"one two \"three\" \\"'
    clashing = translate([note("zk:research:a b"), note("zk:research:a#b")])
    assert sorted(clashing.addresses) == ["zk.research.a_b", "zk.research.a_b_2"]


def test_the_mcp_section_sets_the_round_trip_beside_the_index_query_of_the_same_run() -> None:
    mode = {"checks_per_call": 4, "one_check_p50_ms": 9.0, "other_p50_ms": 3.0, "dispatch_p50_ms": 52.0}
    run = {
        "modes": [
            {**mode, "mode": "scan", "freshness_per_call_p50_ms": 36.0, "index_search_p50_ms": 13.0},
            {**mode, "mode": "watch", "freshness_per_call_p50_ms": 0.4, "index_search_p50_ms": 12.5},
        ],
        "stdio": {"start_to_tools_list_s": 0.5, "search_first_s": 1.2, "search_warm_p50_s": 0.02,
                  "search_warm_p95_s": 0.03},
    }  # fmt: skip
    text = markdown(figures(sizes={"10k": 10000}, **{"mcp/10k": run}))
    assert "| 10k | 0.50 | 1.20 | 20.0 / 30.0 | 12.5 | ×1.60 |" in text
    assert "| 10k | full scan per check (before; the fallback) | 52.0 | 4 | 9.00 | 36.0 | 13.0 | 3.0 |" in text
    assert "| MCP search round trip p50 at 10k ÷ index query (same run) | ≤ ×2 | ×1.60 |" in text
    assert "| cold build ÷ encoder ceiling at 10k | ≥ 0.9 | — |" in text


def test_the_start_target_is_the_median_of_the_sampled_starts_with_their_spread() -> None:
    server = {"start_to_first_search_s": 1.22, "starts": 5, "start_to_first_search_min_s": 1.17,
              "start_to_first_search_max_s": 1.46, "navigate_next_median_s": 0.14}  # fmt: skip
    text = markdown(figures(server=server))
    assert (
        "| server start -> first search answered, demo | ≤ 1.5 s | 1.22 s (median of 5 starts, 1.17–1.46 s) |" in text
    )
    assert "| start -> first search answered, slowest start (s) | 1.460 |" in text


def pg_figures(build_s: float, fused_ms: float, recall: float) -> dict[str, Any]:
    """One size of ``pg_bench``'s JSON, as the perf report's ``pg`` step keeps it; SQLite built in 10 s, 20 ms."""
    lat = {"p50_ms": 1.0, "p95_ms": 2.0}
    channels = {"lexical": lat, "vector_search": lat, "semantic": lat}
    return {
        "nodes": 100_000,
        "encoder": "test/encoder",
        "embed_s": 1.0,
        "embed_texts_per_s": 1.0,
        "measured": "2026-01-01 00:00 UTC",
        "sqlite": {"build_s": 10.0, "warm_open_sync_s": 1.0, "fused": {"p50_ms": 20.0, "p95_ms": 30.0}, **channels},
        "postgres": {
            "build_s": build_s,
            "warm_open_sync_s": 1.0,
            "fused": {"p50_ms": fused_ms, "p95_ms": 50.0},
            "recall_at_10": recall,
            **channels,
        },
        "second_process": {"open_sync_s": 1.0, "reembedded": 0, "first_fused_s": 1.0, "model_loaded_by_sync": False},
        "second_clone": None,
    }


def target_row(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"| {start}"))


def test_the_scale_targets_are_read_from_this_runs_server_postgres_and_baseline_steps() -> None:
    served = {
        "navigate_edits": 4,
        "navigate_after_edit_p50_s": 1.8,
        "navigate_after_edit_max_s": 2.3,
        "navigate_unedited_p50_s": 1.5,
        "after_edit_over_unedited": 1.2,
    }
    peer = {"ratios": {"peer/fused": {"p50": 23.0, "p95": 20.0}}, "latency": {}}
    text = markdown(
        figures(**{"servernav/100k": served, "pg/100k": pg_figures(30.0, 35.0, 0.991), "baselines/10k": peer})
    )
    assert "1.80 s, ×1.20 an unedited navigate (1.50 s); 4 edits, slowest 2.30 s" in target_row(text, "first navigate")
    assert target_row(text, "PostgreSQL at 100k: recall").endswith("| 0.991 |")
    assert target_row(text, "PostgreSQL at 100k: fused").endswith("| ×1.75 |")
    assert target_row(text, "PostgreSQL at 100k: bulk").endswith("| ×3.00 |")
    assert target_row(text, "search at 10k").endswith("| ×23.0 |")


def test_a_scale_target_this_run_did_not_measure_shows_a_dash() -> None:
    text = markdown(figures())
    assert target_row(text, "first navigate after editing").endswith("| — |")
    assert target_row(text, "PostgreSQL at 100k: bulk").endswith("| — |")


def test_a_run_that_measured_postgres_writes_its_own_postgres_section_over_the_earlier_one() -> None:
    earlier = f"# old\n\n{PG_BEGIN}\nfigures of an earlier pg run\n{PG_END}\n"
    measured = report_text(earlier, figures(**{"pg/1k": pg_figures(25.0, 30.0, 1.0)}))
    assert "figures of an earlier pg run" not in measured
    assert measured.count(PG_BEGIN) == 1
    assert "build ×2.50 (target ≤ 3), fused p50 ×1.50 (target ≤ 2)" in measured
    assert "From this perf run's `pg` steps" in measured
    assert "figures of an earlier pg run" in report_text(earlier, figures())  # not measured: the earlier one stays
