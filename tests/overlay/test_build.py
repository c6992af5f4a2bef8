"""build: candidates from neighbours and shared code paths, typed, gated, written once and byte-stable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.cli.main import main
from synapse_server.errors import InvalidInput, WriteRefused
from synapse_server.models import resolve_model
from synapse_server.overlay.build import PRIORITY_FLOOR, BuildReport, build_overlay, priority
from synapse_server.overlay.candidates import (
    CLAIM_CANON_TYPES,
    CLAIM_OVERFETCH,
    CLAIM_PRACTICE_KINDS,
    Candidate,
    find_candidates,
)
from synapse_server.overlay.model import Overlay
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.overlay.store import embedding_identity, overlay_path, parse_overlay, read_overlay
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

pytestmark = pytest.mark.both_backends

DECISION = "mem:tree:deci-e17103e8"
CLAIM = "zk:research:20260407-1030-costs-reduce-returns"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """The demo with both overlays built once by the offline typer (this also warms its index)."""
    root = make_demo(tmp_path_factory.mktemp("build") / "demo")
    for kind in ("generic", "claim"):
        _build(root, embedder, kind=kind)
    return root


@pytest.fixture
def workspace(demo: Path, tmp_path: Path) -> Path:
    """A private copy of the built demo (warm index included) for a test that rebuilds or edits."""
    return Path(shutil.copytree(demo, tmp_path / "ws", symlinks=True))


def _build(root: Path, embedder: Embedder, **options: object) -> BuildReport:
    ws = load_workspace(root)
    return build_overlay(ws, Stores.load(ws, ("memory", "zk")), embedder, **options)  # type: ignore[arg-type]


def _overlay(root: Path, kind: str = "generic") -> Overlay:
    ws = load_workspace(root)
    return parse_overlay(overlay_path(ws, kind).read_bytes(), kind)  # type: ignore[arg-type]


def _types(root: Path) -> dict[str, str]:
    return {a: n.type for a, n in Stores.load(load_workspace(root), ("memory", "zk")).nodes.items()}


def test_a_build_writes_a_valid_signed_overlay_and_a_rebuild_writes_identical_bytes(
    workspace: Path, embedder: Embedder
) -> None:
    ws = load_workspace(workspace)
    first = overlay_path(ws, "generic").read_bytes()
    report = _build(workspace, embedder)
    assert overlay_path(ws, "generic").read_bytes() == first
    overlay = parse_overlay(first, "generic")
    nodes = signature_nodes(Stores.load(ws, ("memory", "zk")).nodes, overlay.projects)
    expected = overlay_signature("generic", overlay.projects, "extractive-v1", embedding_identity(ws), nodes)
    assert overlay.signature == report.signature == expected
    assert (overlay.schema_version, overlay.typer, overlay.projects) == (1, "extractive-v1", ["execution", "research"])
    assert read_overlay(ws, "generic").drift == "fresh"
    assert report.path == ".synapse/links/links.json" and len(overlay.links) == report.kept > 0


def test_the_report_counts_add_up(workspace: Path, embedder: Embedder) -> None:
    report = _build(workspace, embedder, kind="claim")
    assert report.typed + report.skipped == report.candidates
    assert report.kept == sum(report.relations.values()) == len(_overlay(workspace, "claim").links)
    assert report.kept == sum(report.bases.values()) and set(report.bases) == {"cosine", "shared-file"}
    assert report.channels["semantic"] > 0 and report.channels["provenance"] > 0


def test_offline_edges_are_related_by_cosine_or_by_a_shared_file_and_say_which(demo: Path) -> None:
    overlay = _overlay(demo)
    assert {link.relation for link in overlay.links} == {"related"}
    assert {link.basis for link in overlay.links} == {"cosine", "shared-file"}
    for link in overlay.links:
        assert link.typer == "extractive-v1" and link.evidence() == link.basis
        if link.basis == "cosine":
            assert "semantic" in link.channels and link.confidence == link.similarity
        else:
            assert "provenance" in link.channels and link.shared_paths
            assert link.confidence == max(link.similarity or 0.0, 0.8)
            assert all(path in link.rationale for path in link.shared_paths[:3])


def test_every_kept_edge_passed_the_confidence_gate(demo: Path, workspace: Path, embedder: Embedder) -> None:
    assert all(link.confidence >= 0.5 for link in _overlay(demo).links)
    everything = _build(workspace, embedder, min_confidence=0.0)
    assert everything.kept == everything.typed > len(_overlay(demo).links)
    assert _overlay(workspace).min_confidence == 0.0


def test_shared_provenance_pairs_a_decision_with_the_notes_about_its_pinned_file(demo: Path) -> None:
    links = {link.key(): link for link in _overlay(demo).links}
    link = links[(DECISION, CLAIM)]
    assert (link.relation, link.basis, link.shared_paths) == ("related", "shared-file", ["models/costs.py"])
    assert "provenance" in link.channels and link.similarity is not None


def test_the_claim_overlay_links_only_substantive_practice_to_claims_and_findings(demo: Path) -> None:
    types = _types(demo)
    overlay = _overlay(demo, "claim")
    assert overlay.links
    assert {types[link.practice] for link in overlay.links} <= set(CLAIM_PRACTICE_KINDS)
    assert {types[link.canon] for link in overlay.links} <= set(CLAIM_CANON_TYPES)
    generic = {types[link.practice] for link in _overlay(demo).links}
    assert generic - set(CLAIM_PRACTICE_KINDS), "the generic overlay should reach other registers"


def test_claim_edges_carry_strength_cross_and_a_priority_blended_from_both(demo: Path) -> None:
    weight = {"strong": 1.0, "moderate": 0.7, "weak": 0.4}
    for link in _overlay(demo, "claim").links:
        assert link.claim_strength in weight and link.cross is not None and link.priority is not None
        assert link.priority == round(max(PRIORITY_FLOOR, link.confidence * weight[link.claim_strength]), 4)
    cross = {link.canon: link.cross for link in _overlay(demo, "claim").links}
    assert cross[CLAIM] is True


def test_a_weak_claim_keeps_a_positive_priority(workspace: Path, embedder: Embedder) -> None:
    assert priority(0.05, "weak") == PRIORITY_FLOOR > 0
    assert priority(0.9, None) == priority(0.9, "weak") == 0.36
    _build(workspace, embedder, kind="claim", min_confidence=0.0)
    weak = [link for link in _overlay(workspace, "claim").links if link.claim_strength == "weak"]
    assert weak, "the demo has a weak finding; with no gate it must appear"
    assert all(link.priority is not None and link.priority > 0 for link in weak)


def test_a_scripted_llm_typer_types_every_pair_it_is_given(workspace: Path, embedder: Embedder) -> None:
    reply = {
        "relation": "contradicts",
        "confidence": 0.9,
        "rationale": "Practice raised costs; the note says otherwise.",
    }
    (workspace / "reply.txt").write_text(json.dumps(reply), encoding="utf-8")
    report = _build(workspace, embedder, kind="claim", model=resolve_model("script:reply.txt", cwd=workspace))
    overlay = _overlay(workspace, "claim")
    assert report.typer == overlay.typer == "script:reply.txt"
    assert report.kept == report.candidates == len(overlay.links)
    assert {(link.relation, link.typer) for link in overlay.links} == {("contradicts", "script:reply.txt")}
    assert read_overlay(load_workspace(workspace), "claim").drift == "fresh"


def test_pairs_with_an_invalid_model_reply_are_skipped_and_counted(workspace: Path, embedder: Embedder) -> None:
    (workspace / "reply.txt").write_text("They look related to me.", encoding="utf-8")
    report = _build(workspace, embedder, model=resolve_model("script:reply.txt", cwd=workspace))
    assert report.candidates > 0 and report.skipped == report.candidates
    assert (report.typed, report.kept) == (0, 0)
    assert report.skip_reasons == ["the reply is not one JSON object"]
    assert _overlay(workspace).links == []


def test_progress_is_reported_up_to_the_total(workspace: Path, embedder: Embedder) -> None:
    seen: list[tuple[int, int, str]] = []
    report = _build(workspace, embedder, progress=lambda done, total, message: seen.append((done, total, message)))
    assert seen[-1][:2] == (report.candidates, report.candidates)
    assert "wrote" in seen[-1][2]
    done = [d for d, total, _ in seen if total]
    assert done == sorted(done)


def test_a_write_free_build_refuses_before_any_work(workspace: Path, embedder: Embedder) -> None:
    shutil.rmtree(workspace / ".synapse" / "links")
    shutil.rmtree(workspace / ".angelo", ignore_errors=True)  # absent when the index lives in PostgreSQL
    with pytest.raises(WriteRefused):
        _build(workspace, embedder, write_free=True)
    assert not (workspace / ".synapse" / "links").exists()
    assert not (workspace / ".angelo").exists()


def test_an_empty_scope_builds_an_empty_but_valid_overlay(workspace: Path, embedder: Embedder) -> None:
    report = _build(workspace, embedder, projects=[])
    overlay = _overlay(workspace)
    assert (report.candidates, overlay.links, overlay.projects) == (0, [], [])
    assert read_overlay(load_workspace(workspace), "generic").drift == "fresh"


@pytest.mark.parametrize(
    ("options", "parameter"),
    [
        ({"projects": ["reserch"]}, "projects"),
        ({"kind": "matrix"}, "kind"),
        ({"min_confidence": 1.5}, "min_confidence"),
        ({"neighbours": 0}, "neighbours"),
    ],
)
def test_invalid_options_are_refused_naming_the_parameter(
    workspace: Path, embedder: Embedder, options: dict[str, object], parameter: str
) -> None:
    before = overlay_path(load_workspace(workspace), "generic").read_bytes()
    with pytest.raises(InvalidInput) as caught:
        _build(workspace, embedder, **options)
    assert caught.value.detail["parameter"] == parameter
    assert overlay_path(load_workspace(workspace), "generic").read_bytes() == before


def test_the_cli_refuses_a_write_free_build_with_exit_2_and_writes_nothing(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(workspace / ".synapse" / "links")
    assert main(["build", "--root", str(workspace), "--kind", "claim", "--write-free", "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "write_refused"
    assert not (workspace / ".synapse" / "links").exists()


def test_the_cli_refuses_an_out_of_range_confidence_with_exit_2(workspace: Path) -> None:
    assert main(["build", "--root", str(workspace), "--min-confidence", "2"]) == 2


def test_a_provenance_partner_outside_the_neighbourhood_still_gets_its_cosine(demo: Path, embedder: Embedder) -> None:
    ws = load_workspace(demo)
    stores = Stores.load(ws, ("memory", "zk"))
    with stores.open_index(embedder) as index:
        pairs = find_candidates(index, stores.nodes, "generic", ["execution", "research"], 1)
    mine = [c for c in pairs if c.practice == DECISION]
    assert sum("semantic" in c.evidence.channels for c in mine) == 1
    outside = [c for c in mine if c.evidence.channels == ("provenance",)]
    assert outside and all(c.evidence.similarity is not None for c in outside)
    assert all(c.evidence.shared_paths == ("models/costs.py",) for c in outside)


def test_the_claim_path_overfetches_four_neighbours_per_entry_ordered_cross_first(
    demo: Path, embedder: Embedder
) -> None:
    ws = load_workspace(demo)
    stores = Stores.load(ws, ("memory", "zk"))
    with stores.open_index(embedder) as index:
        pairs = find_candidates(index, stores.nodes, "claim", ["execution", "research"], 1)
    by_entry: dict[str, list[Candidate]] = {}
    for pair in pairs:
        by_entry.setdefault(pair.practice, []).append(pair)
    assert by_entry
    for entry_pairs in by_entry.values():
        assert sum("semantic" in c.evidence.channels for c in entry_pairs) == CLAIM_OVERFETCH
        crosses = [c.cross for c in entry_pairs]
        assert crosses == sorted(crosses, reverse=True)
