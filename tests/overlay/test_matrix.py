"""The matrix lens: practice rows x canon columns, typed cells, roll-ups, drift."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.base import Node
from adapters.index import Embedder
from synapse_server.cli import main as cli
from synapse_server.demo import build_demo
from synapse_server.models import ModelBadResponse
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.matrix import (
    MatrixParams,
    MatrixResult,
    extractive_synthesis,
    model_synthesis,
    project_matrix,
    run_matrix,
)
from synapse_server.overlay.model import Link, Overlay, Relation
from synapse_server.overlay.store import write_overlay
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.fake_model import FakeModel

pytestmark = pytest.mark.both_backends


def _link(practice: str, canon: str, relation: Relation, confidence: float, priority: float | None = None) -> Link:
    return Link(
        practice=f"mem:tree:{practice}",
        canon=f"zk:{canon}",
        relation=relation,
        confidence=confidence,
        rationale=f"{practice} {relation} {canon}",
        typer="test",
        channels=["semantic"],
        priority=priority,
    )


def _node(address: str, title: str) -> Node:
    return Node(address=address, type="decision", title=title, body=f"{title}.", family="memory")


OVERLAY = Overlay(
    kind="claim",
    signature="sha256:test",
    typer="test",
    projects=["research", "execution"],
    min_confidence=0.5,
    links=[
        _link("deci-1", "research:costs", "corroborates", 0.9, 0.9),
        _link("deci-1", "execution:impact", "applies", 0.8, 0.56),
        _link("expe-2", "research:costs", "contradicts", 0.7, 0.7),
        _link("expe-3", "research:scaling", "related", 0.6, 0.24),
    ],
)
NODES = {
    "mem:tree:deci-1": _node("mem:tree:deci-1", "Cost decision"),
    "mem:tree:expe-2": _node("mem:tree:expe-2", "Cost experiment"),
    "zk:research:costs": _node("zk:research:costs", "Costs reduce returns"),
    "zk:execution:impact": _node("zk:execution:impact", "Impact is concave"),
}


def test_rows_are_practice_columns_canon_and_each_edge_is_a_typed_cell() -> None:
    matrix = project_matrix(OVERLAY, NODES)
    assert [r.address for r in matrix.rows] == ["mem:tree:deci-1", "mem:tree:expe-2", "mem:tree:expe-3"]
    assert [c.address for c in matrix.columns] == ["zk:research:costs", "zk:execution:impact", "zk:research:scaling"]
    assert {(r.store, r.tier) for r in matrix.rows} == {("memory", "practice")}
    assert {(c.store, c.tier) for c in matrix.columns} == {("zk", "canon")}
    first = matrix.cells[0]
    assert (first.practice, first.canon, first.relation, first.confidence, first.priority) == (
        "mem:tree:deci-1",
        "zk:research:costs",
        "corroborates",
        0.9,
        0.9,
    )
    assert [c.priority for c in matrix.cells] == sorted((c.priority for c in matrix.cells), reverse=True)


def test_an_axis_adds_up_its_cells_by_relation_and_weight() -> None:
    matrix = project_matrix(OVERLAY, NODES)
    costs = matrix.columns[0]
    assert (costs.cells, costs.relations, costs.weight) == (2, {"corroborates": 1, "contradicts": 1}, 1.6)
    assert costs.title == "Costs reduce returns"


def test_a_node_gone_from_the_store_keeps_its_cell_with_no_title() -> None:
    matrix = project_matrix(OVERLAY, NODES)
    gone = next(r for r in matrix.rows if r.address == "mem:tree:expe-3")
    assert gone.title is None and gone.type is None


def test_the_project_scope_filters_canon_columns() -> None:
    matrix = project_matrix(OVERLAY, NODES, ["research"])
    assert {c.address.split(":")[1] for c in matrix.columns} == {"research"}
    assert len(matrix.cells) == 3


def test_a_limited_window_shows_the_heaviest_rows_and_the_columns_they_link_to() -> None:
    rows, columns, cells = project_matrix(OVERLAY, NODES).window(1)
    assert [r.address for r in rows] == ["mem:tree:deci-1"]
    assert [c.address for c in columns] == ["zk:research:costs"]
    assert [(c.practice, c.canon) for c in cells] == [("mem:tree:deci-1", "zk:research:costs")]
    assert project_matrix(OVERLAY, NODES).window(None)[2] == project_matrix(OVERLAY, NODES).cells


def test_a_generic_edge_without_priority_is_weighed_by_its_confidence() -> None:
    generic = OVERLAY.model_copy(
        update={"kind": "generic", "links": [_link("deci-1", "research:costs", "related", 0.65)]}
    )
    assert project_matrix(generic, NODES).cells[0].priority == 0.65


def test_extractive_roll_ups_count_relations_name_titles_and_say_they_are_extractive() -> None:
    matrix = project_matrix(OVERLAY, NODES)
    synthesis = extractive_synthesis(matrix, matrix.rows, matrix.columns)
    assert synthesis.mode == "extractive"
    assert synthesis.model.provider == "extractive"
    assert "no model" in synthesis.note
    row = synthesis.rows[0]
    assert row.address == "mem:tree:deci-1"
    assert "2 link(s)" in row.text and "1 applies, 1 corroborates" in row.text
    assert "Costs reduce returns (corroborates)" in row.text and "Impact is concave (applies)" in row.text
    assert "3 practice entries x 3 canon notes, 4 typed edges" in synthesis.apex
    assert "Tensions: Cost experiment contradicts Costs reduce returns." in synthesis.apex


def test_model_roll_ups_are_the_models_text_one_call_per_row_and_column_then_the_apex() -> None:
    matrix = project_matrix(OVERLAY, NODES)
    replies = [f"roll-up {i}" for i in range(6)] + ["the apex"]
    model = FakeModel(*replies)
    synthesis = model_synthesis(matrix, matrix.rows, matrix.columns, NODES, model)
    assert synthesis.mode == "model"
    assert synthesis.model.provider == "fake"
    assert [r.text for r in synthesis.rows] == ["roll-up 0", "roll-up 1", "roll-up 2"]
    assert [c.text for c in synthesis.columns] == ["roll-up 3", "roll-up 4", "roll-up 5"]
    assert synthesis.apex == "the apex"
    assert len(model.history) == 7
    assert "contradicts" in model.history[3].text and "Cost experiment" in model.history[3].text
    assert "roll-up 5" in model.history[-1].text


def test_an_empty_model_roll_up_is_a_bad_response_not_a_blank_summary() -> None:
    matrix = project_matrix(OVERLAY, NODES)
    with pytest.raises(ModelBadResponse):
        model_synthesis(matrix, matrix.rows[:1], [], NODES, FakeModel("   "))


# --- the real demo overlay ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Workspace, Stores]:
    workspace = load_workspace(build_demo(tmp_path_factory.mktemp("matrix") / "ws"))
    stores = Stores.load(workspace)
    for kind in ("generic", "claim"):
        build_overlay(workspace, stores, embedder, kind=kind)
    return workspace, stores


@pytest.mark.parametrize("kind", ["generic", "claim"])
def test_the_demo_overlay_projects_into_a_fresh_practice_by_canon_matrix(
    demo: tuple[Workspace, Stores], kind: str
) -> None:
    workspace, stores = demo
    result = run_matrix(workspace, stores, None, MatrixParams.model_validate({"kind": kind, "model": "extractive"}))
    assert result.overlay.drift == "fresh"
    assert result.rows and result.columns and result.cells
    assert all(r.address.startswith("mem:tree:") for r in result.rows)
    assert all(c.address.startswith("zk:") for c in result.columns)
    rows, columns = {r.address for r in result.rows}, {c.address for c in result.columns}
    assert all(cell.practice in rows and cell.canon in columns for cell in result.cells)
    assert len(result.cells) == result.overlay.links
    assert all(r.title for r in (*result.rows, *result.columns))
    assert result.synthesis is None
    assert result.summary.startswith(f"{kind} matrix:")


def test_the_demo_claim_matrix_carries_claim_strength_and_priority(demo: tuple[Workspace, Stores]) -> None:
    workspace, stores = demo
    result = run_matrix(workspace, stores, None, MatrixParams(kind="claim", model="extractive"))
    assert all(cell.claim_strength in ("strong", "moderate", "weak", None) for cell in result.cells)
    assert any(cell.priority < cell.confidence for cell in result.cells)


def test_demo_synthesis_under_extractive_rolls_up_every_shown_row_and_column(demo: tuple[Workspace, Stores]) -> None:
    workspace, stores = demo
    params = MatrixParams(kind="claim", synthesize=True, limit=3, model="extractive")
    result = run_matrix(workspace, stores, None, params)
    assert result.synthesis is not None and result.synthesis.mode == "extractive"
    assert [r.address for r in result.synthesis.rows] == [r.address for r in result.rows]
    assert [c.address for c in result.synthesis.columns] == [c.address for c in result.columns]
    assert len(result.rows) == 3 and result.hidden_rows > 0
    assert "practice entries x" in result.synthesis.apex


def test_a_missing_overlay_is_reported_with_an_empty_matrix(tmp_path: Path) -> None:
    workspace = load_workspace(build_demo(tmp_path / "ws"))
    result = run_matrix(workspace, Stores.load(workspace), None, MatrixParams())
    assert result.overlay.drift == "missing"
    assert (result.rows, result.columns, result.cells) == ([], [], [])
    assert "synapse build" in result.summary


def test_a_drifted_overlay_is_still_shown_and_flagged(tmp_path: Path) -> None:
    workspace = load_workspace(build_demo(tmp_path / "ws"))
    stores = Stores.load(workspace)
    stale = OVERLAY.model_copy(
        update={
            "kind": "generic",
            "signature": "sha256:stale",
            "links": [_link("deci-e17103e8", "research:x", "applies", 0.8)],
        }
    )
    write_overlay(workspace, stale)
    result = run_matrix(workspace, stores, None, MatrixParams())
    assert result.overlay.drift == "drifted"
    assert [c.practice for c in result.cells] == ["mem:tree:deci-e17103e8"]
    assert "drifted" in result.summary


def test_the_matrix_command_prints_the_same_result_as_json(
    demo: tuple[Workspace, Stores], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace, stores = demo
    assert (
        cli.main(["matrix", "--root", str(workspace.root), "--kind", "claim", "--model", "extractive", "--json"]) == 0
    )
    printed = MatrixResult.model_validate_json(capsys.readouterr().out)
    direct = run_matrix(workspace, stores, None, MatrixParams(kind="claim", model="extractive"))
    assert printed == direct
    assert cli.main(["matrix", "--root", str(workspace.root), "--limit", "0"]) == 2
    assert "limit" in capsys.readouterr().err


def test_negative_limit_means_every_row_and_column() -> None:
    assert MatrixParams.model_validate({"limit": -1}).limit is None
    with pytest.raises(ValueError, match="limit"):
        MatrixParams.model_validate({"limit": 0})


def test_every_demo_cell_says_its_basis_and_the_text_marks_a_shared_file_cell(
    demo: tuple[Workspace, Stores], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace, stores = demo
    result = run_matrix(workspace, stores, None, MatrixParams(model="extractive"))
    assert {cell.basis for cell in result.cells} == {"cosine", "shared-file"}
    assert all(cell.relation == "related" for cell in result.cells)
    assert all(cell.rationale.startswith("Shared file only:") for cell in result.cells if cell.basis == "shared-file")
    assert cli.main(["matrix", "--root", str(workspace.root), "--model", "extractive"]) == 0
    cells = capsys.readouterr().out.split("cells:\n", 1)[1].splitlines()
    assert sum("shared file only" in line for line in cells) == sum(c.basis == "shared-file" for c in result.cells)
