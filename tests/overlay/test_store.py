"""The links store: signed, byte-stable files; drift on any edit a build reads; bad files read as invalid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from synapse_server.errors import PathOutsideWorkspace, WriteRefused
from synapse_server.overlay.model import Link, Overlay
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.overlay.store import (
    embedding_identity,
    overlay_path,
    parse_overlay,
    read_overlay,
    serialize_overlay,
    write_overlay,
)
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores
from tests.support.overlays import CLAIM, DECISION, FINDING
from tests.support.overlays import link as _link
from tests.support.overlays import signed as _signed


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo(tmp_path_factory.mktemp("store") / "demo")


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    """A private copy of the demo, so a test may edit its stores."""
    return Path(shutil.copytree(demo, tmp_path / "ws", symlinks=True))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_written_overlay_reads_back_fresh(workspace: Path) -> None:
    ws = load_workspace(workspace)
    path = write_overlay(ws, _signed(workspace))
    assert path == workspace / ".synapse" / "links" / "links.json"
    state = read_overlay(ws, "generic")
    assert (state.drift, state.path) == ("fresh", ".synapse/links/links.json")
    assert state.overlay is not None and len(state.overlay.links) == 2


def test_links_are_written_sorted_so_the_bytes_do_not_depend_on_input_order(workspace: Path) -> None:
    ws = load_workspace(workspace)
    forward = _signed(workspace, links=[_link(DECISION, CLAIM), _link(DECISION, FINDING)])
    backward = _signed(workspace, links=[_link(DECISION, FINDING), _link(DECISION, CLAIM)])
    assert serialize_overlay(forward) == serialize_overlay(backward)
    write_overlay(ws, forward)
    first = overlay_path(ws, "generic").read_bytes()
    write_overlay(ws, backward)
    assert overlay_path(ws, "generic").read_bytes() == first
    keys = [(link["practice"], link["canon"]) for link in json.loads(first)["links"]]
    assert keys == sorted(keys)
    assert parse_overlay(first, "generic") == forward.model_copy(update={"links": sorted(forward.links, key=Link.key)})


def test_editing_a_note_drifts_the_overlay(workspace: Path) -> None:
    ws = load_workspace(workspace)
    write_overlay(ws, _signed(workspace))
    note = workspace / ".zettelkasten" / "research" / "notes" / "20260407-1030-costs-reduce-returns.md"
    _edit(note, "claim_strength: strong", "claim_strength: weak")
    state = read_overlay(ws, "generic")
    assert state.drift == "drifted"
    assert "changed since the build" in state.detail
    assert state.overlay is not None  # a drifted overlay is still readable, flagged


def test_editing_a_memory_entry_body_drifts_the_overlay(workspace: Path) -> None:
    ws = load_workspace(workspace)
    write_overlay(ws, _signed(workspace, "claim"))
    entry = workspace / ".memory" / "tree" / "deci-e17103e8.md"
    _edit(entry, "Transaction costs increased from 5 bps to 8 bps.", "Transaction costs increased to 9 bps.")
    assert read_overlay(ws, "claim").drift == "drifted"


def test_a_new_memory_entry_drifts_the_overlay(workspace: Path) -> None:
    ws = load_workspace(workspace)
    write_overlay(ws, _signed(workspace))
    source = workspace / ".memory" / "tree" / "deci-e17103e8.md"
    copy = source.read_text(encoding="utf-8").replace("id: deci-e17103e8", "id: deci-00000001")
    (workspace / ".memory" / "tree" / "deci-00000001.md").write_text(copy, encoding="utf-8")
    assert read_overlay(ws, "generic").drift == "drifted"


def test_a_note_outside_the_overlay_scope_does_not_drift_it(workspace: Path) -> None:
    ws = load_workspace(workspace)
    projects = ["research"]
    nodes = signature_nodes(Stores.load(ws, ("memory", "zk")).nodes, projects)
    signature = overlay_signature("generic", projects, "extractive-v1", embedding_identity(ws), nodes)
    overlay = Overlay(
        kind="generic", signature=signature, typer="extractive-v1", projects=projects, min_confidence=0.5, links=[]
    )
    write_overlay(ws, overlay)
    note = workspace / ".zettelkasten" / "execution" / "notes" / "20260502-1015-april-total-cost.md"
    _edit(note, "averaged 7.9 bps", "averaged 9.7 bps")
    assert read_overlay(ws, "generic").drift == "fresh"


def test_the_signature_covers_kind_scope_typer_and_embedding_model(workspace: Path) -> None:
    ws = load_workspace(workspace)
    nodes = signature_nodes(Stores.load(ws, ("memory", "zk")).nodes, ["research", "execution"])
    base = overlay_signature("generic", ["research", "execution"], "extractive-v1", "m", nodes)
    assert base == overlay_signature("generic", ["execution", "research"], "extractive-v1", "m", nodes)
    variants = {
        overlay_signature("claim", ["research", "execution"], "extractive-v1", "m", nodes),
        overlay_signature("generic", ["research"], "extractive-v1", "m", nodes),
        overlay_signature("generic", ["research", "execution"], "script:x.json", "m", nodes),
        overlay_signature("generic", ["research", "execution"], "extractive-v1", "other-model", nodes),
    }
    assert base not in variants and len(variants) == 4


def test_a_missing_overlay_reads_as_missing(workspace: Path) -> None:
    state = read_overlay(load_workspace(workspace), "claim")
    assert (state.drift, state.overlay, state.path) == ("missing", None, ".synapse/links/claim_links.json")
    assert "synapse build --kind claim" in state.detail


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[]", "must be an object"),
        (b'{"schema_version": 2, "kind": "generic"}', "schema_version 2 is not supported"),
        (b'{"schema_version": 1, "kind": "generic"}', "signature"),
    ],
)
def test_a_malformed_overlay_reads_as_invalid_with_the_reason(workspace: Path, content: bytes, reason: str) -> None:
    ws = load_workspace(workspace)
    path = overlay_path(ws, "generic")
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    state = read_overlay(ws, "generic")
    assert (state.drift, state.overlay) == ("invalid", None)
    assert reason in state.detail


def test_an_overlay_of_the_other_kind_or_with_a_repeated_pair_is_invalid(workspace: Path) -> None:
    ws = load_workspace(workspace)
    write_overlay(ws, _signed(workspace, "claim"))
    shutil.copy(overlay_path(ws, "claim"), overlay_path(ws, "generic"))
    assert "expected 'generic'" in read_overlay(ws, "generic").detail
    data = json.loads(overlay_path(ws, "claim").read_text(encoding="utf-8"))
    data["links"].append(data["links"][0])
    overlay_path(ws, "claim").write_text(json.dumps(data), encoding="utf-8")
    state = read_overlay(ws, "claim")
    assert state.drift == "invalid" and "more than once" in state.detail


def test_a_link_with_an_unknown_relation_is_invalid(workspace: Path) -> None:
    ws = load_workspace(workspace)
    write_overlay(ws, _signed(workspace))
    path = overlay_path(ws, "generic")
    path.write_text(path.read_text(encoding="utf-8").replace('"applies"', '"supports"', 1), encoding="utf-8")
    state = read_overlay(ws, "generic")
    assert state.drift == "invalid" and "links.0.relation" in state.detail


def test_write_free_refuses_and_writes_nothing(workspace: Path) -> None:
    ws = load_workspace(workspace)
    with pytest.raises(WriteRefused):
        write_overlay(ws, _signed(workspace), write_free=True)
    config = workspace / ".synapse" / "config.yaml"
    _edit(config, "write_free: false", "write_free: true")
    with pytest.raises(WriteRefused, match="write_free: true"):
        write_overlay(load_workspace(workspace), _signed(workspace))
    assert not (workspace / ".synapse" / "links").exists()


def test_a_write_leaves_only_the_overlay_its_lock_and_an_ignore_file(workspace: Path) -> None:
    ws = load_workspace(workspace)
    write_overlay(ws, _signed(workspace))
    write_overlay(ws, _signed(workspace, "claim"))
    folder = workspace / ".synapse" / "links"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", ".lock", "claim_links.json", "links.json"]
    ignored = (folder / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert ".lock" in ignored and "*.tmp" in ignored
    assert oct(overlay_path(ws, "generic").stat().st_mode & 0o777) == oct(0o644)


def test_a_links_folder_that_leads_outside_the_workspace_is_refused(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (workspace / ".synapse" / "links").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathOutsideWorkspace):
        write_overlay(load_workspace(workspace), _signed(workspace))
    assert list(outside.iterdir()) == []
