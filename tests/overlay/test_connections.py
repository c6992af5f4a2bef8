"""connections: the edges touching one node, by id or address, from either end, with the overlay's drift."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.cli.main import main
from synapse_server.errors import InvalidInput, NotFound
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.connections import connections
from synapse_server.overlay.store import overlay_path
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

pytestmark = pytest.mark.both_backends

DECISION = "mem:tree:deci-e17103e8"
CLAIM = "zk:research:20260407-1030-costs-reduce-returns"
CLAIM_ID = "20260407-1030-costs-reduce-returns"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    root = make_demo(tmp_path_factory.mktemp("connections") / "demo")
    ws = load_workspace(root)
    stores = Stores.load(ws, ("memory", "zk"))
    for kind in ("generic", "claim"):
        build_overlay(ws, stores, embedder, kind=kind)
    return root


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(demo, tmp_path / "ws", symlinks=True))


def test_a_memory_id_lists_the_edges_where_the_entry_is_the_practice_end(demo: Path) -> None:
    result = connections(load_workspace(demo), "deci-e17103e8")
    assert (result.node, result.role, result.kind, result.drift) == (DECISION, "practice", "generic", "fresh")
    assert result.edges and all(link.practice == DECISION for link in result.edges)
    assert CLAIM in {link.canon for link in result.edges}


def test_a_full_address_gives_the_same_answer_as_the_id(demo: Path) -> None:
    ws = load_workspace(demo)
    assert connections(ws, DECISION) == connections(ws, "deci-e17103e8")


def test_a_note_lists_the_edges_where_it_is_the_canon_end(demo: Path) -> None:
    ws = load_workspace(demo)
    by_id = connections(ws, CLAIM_ID)
    assert (by_id.node, by_id.role) == (CLAIM, "canon")
    assert by_id.edges and all(link.canon == CLAIM for link in by_id.edges)
    assert DECISION in {link.practice for link in by_id.edges}
    assert connections(ws, CLAIM) == by_id


def test_edges_come_strongest_first(demo: Path) -> None:
    result = connections(load_workspace(demo), CLAIM)
    weights = [link.confidence for link in result.edges]
    assert weights == sorted(weights, reverse=True)


def test_the_claim_overlay_is_read_when_asked_and_orders_by_priority(demo: Path) -> None:
    result = connections(load_workspace(demo), "deci-e17103e8", "claim")
    assert result.kind == "claim" and result.path == ".synapse/links/claim_links.json"
    assert result.edges and all(link.priority is not None for link in result.edges)
    priorities = [link.priority or 0.0 for link in result.edges]
    assert priorities == sorted(priorities, reverse=True)


def test_a_node_with_no_edges_gets_an_empty_list(demo: Path) -> None:
    result = connections(load_workspace(demo), "moreau-2020")
    assert (result.node, result.edges, result.drift) == ("zk:execution:moreau-2020", [], "fresh")


def test_without_an_overlay_the_answer_is_empty_and_says_missing(workspace: Path) -> None:
    overlay_path(load_workspace(workspace), "claim").unlink()
    result = connections(load_workspace(workspace), "deci-e17103e8", "claim")
    assert (result.edges, result.drift) == ([], "missing")


def test_an_edited_store_is_reported_as_drift_alongside_the_old_edges(workspace: Path) -> None:
    entry = workspace / ".memory" / "tree" / "deci-e17103e8.md"
    entry.write_text(entry.read_text(encoding="utf-8") + "\nA later remark.\n", encoding="utf-8")
    result = connections(load_workspace(workspace), "deci-e17103e8")
    assert result.drift == "drifted" and result.edges


def test_an_invalid_overlay_is_reported_not_raised(workspace: Path) -> None:
    overlay_path(load_workspace(workspace), "generic").write_text("{", encoding="utf-8")
    result = connections(load_workspace(workspace), "deci-e17103e8")
    assert (result.edges, result.drift) == ([], "invalid")


def test_an_id_in_two_projects_is_refused_as_ambiguous(workspace: Path) -> None:
    notes = workspace / ".zettelkasten"
    shutil.copy(notes / "research" / "notes" / f"{CLAIM_ID}.md", notes / "execution" / "notes" / f"{CLAIM_ID}.md")
    with pytest.raises(InvalidInput, match="ambiguous"):
        connections(load_workspace(workspace), CLAIM_ID)
    assert connections(load_workspace(workspace), CLAIM).node == CLAIM


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("deci-00000000", NotFound),
        ("mem:tree:deci-00000000", NotFound),
        ("repo:momentum:models/costs.py", InvalidInput),
        ("zk:research", InvalidInput),
        ("deci e17103e8", InvalidInput),
        ("", InvalidInput),
    ],
)
def test_an_unknown_or_malformed_id_is_a_typed_error(demo: Path, text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        connections(load_workspace(demo), text)


def test_an_unknown_kind_is_refused(demo: Path) -> None:
    with pytest.raises(InvalidInput):
        connections(load_workspace(demo), "deci-e17103e8", "matrix")  # type: ignore[arg-type]


def test_the_cli_prints_the_same_result_as_json(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["connections", "deci-e17103e8", "--root", str(demo), "--kind", "claim", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = connections(load_workspace(demo), "deci-e17103e8", "claim")
    assert printed == expected.model_dump(mode="json", exclude_none=True)


def test_the_cli_text_names_each_edge_and_an_unknown_id_exits_2(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["connections", CLAIM_ID, "--root", str(demo)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{CLAIM} (canon); generic overlay fresh")
    assert DECISION in out and "shared file only" in out and "applies" not in out
    assert main(["connections", "deci-00000000", "--root", str(demo), "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "not_found"


def test_an_overlay_written_before_the_basis_field_is_read_and_its_shared_file_edges_say_so(workspace: Path) -> None:
    path = overlay_path(load_workspace(workspace), "generic")
    data = json.loads(path.read_text(encoding="utf-8"))
    for link in data["links"]:  # the older shape: no basis, and the offline typer's shared path typed 'applies'
        if link.pop("basis") == "shared-file":
            link["relation"] = "applies"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    result = connections(load_workspace(workspace), "deci-e17103e8")
    assert result.drift == "fresh"
    shared = [link for link in result.edges if link.shared_paths and link.relation == "applies"]
    assert shared and all(link.basis == "shared-file" for link in shared)
    assert all(link.basis == "cosine" for link in result.edges if link.relation == "related")
