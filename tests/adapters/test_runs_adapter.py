"""The runs adapter turns runs/<id>/run.yaml into data:runs nodes with content-hash and run tethers."""

from __future__ import annotations

from pathlib import Path

from adapters import Node, RunsAdapter, Tether, TetherKind
from tests.support.store_builders import sha256_text, write

PRICES = "date,close\n2026-06-01,100\n"
EQUITY = "date,equity\n2026-06-01,1.0\n"


def _run_yaml(ident: str = "run-042", extra: str = "") -> str:
    return f"""id: {ident}
title: Backtest run 042
started: 2026-06-02T09:00:00Z
command: python backtest.py --costs-bps 8
code: {{commit: 3f7c2e1}}
params: {{costs_bps: 8, window: [5, 10]}}
metrics: {{sharpe: 1.10}}
inputs:  [{{path: data/prices.csv, sha256: "{sha256_text(PRICES)}"}}]
outputs: [{{path: runs/{ident}/equity.csv, sha256: "{sha256_text(EQUITY)}"}}]
notes: "Sharpe decreased from 1.4 to 1.1 after costs rose to 8 bps."
{extra}"""


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(root, "data/prices.csv", PRICES)
    write(root, "runs/run-042/equity.csv", EQUITY)
    write(root, "runs/run-042/run.yaml", _run_yaml())
    return root


def _load(root: Path) -> dict[str, Node]:
    return {node.address: node for node in RunsAdapter(root / "runs", root).load().nodes}


def test_a_run_record_becomes_a_data_node(tmp_path: Path) -> None:
    node = _load(_store(tmp_path))["data:runs:run-042"]
    assert (node.type, node.family, node.title) == ("run", "data", "Backtest run 042")
    assert (node.path, node.line) == ("runs/run-042/run.yaml", 1)


def test_the_notes_sentence_appears_verbatim_in_the_body(tmp_path: Path) -> None:
    body = _load(_store(tmp_path))["data:runs:run-042"].body
    assert "Sharpe decreased from 1.4 to 1.1 after costs rose to 8 bps." in body.splitlines()
    assert "- command: python backtest.py --costs-bps 8" in body


def test_figures_are_rendered_as_written_and_kept_as_data_in_meta(tmp_path: Path) -> None:
    node = _load(_store(tmp_path))["data:runs:run-042"]
    assert "## Metrics of the run\n\n- sharpe: 1.10" in node.body
    assert "## Parameters of the run\n\n- costs_bps: 8\n- window: [5, 10]" in node.body
    assert node.meta["metrics"] == {"sharpe": 1.1}
    assert node.meta["params"] == {"costs_bps": 8, "window": [5, 10]}
    assert node.meta["started"] == "2026-06-02T09:00:00Z"
    assert node.meta["code_commit"] == "3f7c2e1"


def test_inputs_and_outputs_become_content_hash_tethers_plus_one_run_tether(tmp_path: Path) -> None:
    node = _load(_store(tmp_path))["data:runs:run-042"]
    assert node.tethers == (
        Tether(TetherKind.CONTENT_HASH, "data/prices.csv", sha256_text(PRICES)),
        Tether(TetherKind.CONTENT_HASH, "runs/run-042/equity.csv", sha256_text(EQUITY)),
        Tether(TetherKind.RUN, "run-042"),
    )
    assert node.provenance[0] == "run:run-042"


def test_a_malformed_run_is_one_diagnostic_and_the_others_load(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, "runs/run-043/run.yaml", "id: run-043\nmetrics: {sharpe: 1.2\n")
    write(root, "runs/run-044/run.yaml", _run_yaml("run-044"))
    result = RunsAdapter(root / "runs", root).load()
    assert [node.address for node in result.nodes] == ["data:runs:run-042", "data:runs:run-044"]
    [diagnostic] = result.diagnostics
    assert (diagnostic.path, diagnostic.code) == ("runs/run-043/run.yaml", "yaml")
    assert diagnostic.line == 3


def test_a_hash_that_is_not_sha256_is_a_bad_field_on_its_line(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, "runs/run-045/run.yaml", "id: run-045\ninputs:\n  - path: data/prices.csv\n    sha256: abc\n")
    [diagnostic] = RunsAdapter(root / "runs", root).load().diagnostics
    assert (diagnostic.code, diagnostic.field, diagnostic.line) == ("bad-field", "sha256", 4)


def test_an_input_path_climbing_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    root = _store(tmp_path)
    sha = "0" * 64
    write(root, "runs/run-046/run.yaml", f"id: run-046\ninputs: [{{path: ../../etc/passwd, sha256: '{sha}'}}]\n")
    result = RunsAdapter(root / "runs", root).load()
    assert "data:runs:run-046" not in {node.address for node in result.nodes}
    assert [(d.code, d.field) for d in result.diagnostics] == [("bad-field", "path")]


def test_a_params_field_that_is_not_a_mapping_is_a_bad_field(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, "runs/run-047/run.yaml", "id: run-047\nparams: [1, 2]\n")
    [diagnostic] = RunsAdapter(root / "runs", root).load().diagnostics
    assert (diagnostic.code, diagnostic.field, diagnostic.line) == ("bad-field", "params", 2)


def test_a_duplicate_run_id_and_a_directory_without_a_record_are_reported(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, "runs/run-zzz/run.yaml", _run_yaml("run-042"))
    (root / "runs/empty").mkdir()
    result = RunsAdapter(root / "runs", root).load()
    assert [node.address for node in result.nodes] == ["data:runs:run-042"]
    found = sorted((d.path, d.code) for d in result.diagnostics)
    assert found == [
        ("runs/empty/run.yaml", "missing-record"),
        ("runs/run-zzz/run.yaml", "duplicate-id"),
        ("runs/run-zzz/run.yaml", "id-mismatch"),
    ]


def test_a_missing_runs_directory_is_an_empty_store(tmp_path: Path) -> None:
    result = RunsAdapter(tmp_path / "runs", tmp_path).load()
    assert result.nodes == ()
    assert [d.code for d in result.diagnostics] == ["missing-store"]
