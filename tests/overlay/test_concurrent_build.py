"""Concurrent builds: eight real ``synapse build`` processes leave one whole, valid, signed overlay per kind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.model import Overlay
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.overlay.store import embedding_identity, overlay_path, parse_overlay, read_overlay
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

SYNAPSE = Path(sys.executable).with_name("synapse")
PROCESSES = 8
GUARD_S = 600  # a hung child fails the test instead of hanging the suite; no timing is asserted

_WRITER = """
import sys
from pathlib import Path
from synapse_server.workspace.config import load_workspace
from synapse_server.overlay.model import Overlay
from synapse_server.overlay.store import write_overlay
ws = load_workspace(Path(sys.argv[1]))
overlay = Overlay.model_validate_json(Path(sys.argv[2]).read_text(encoding="utf-8"))
for _ in range(int(sys.argv[3])):
    write_overlay(ws, overlay)
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """The demo with its index warmed over every store, as the CLI reads them: children never load the model."""
    root = make_demo(tmp_path_factory.mktemp("concurrent") / "demo")
    ws = load_workspace(root)
    build_overlay(ws, Stores.load(ws), embedder)
    return root


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_MODEL"}
    env["PYTHONUTF8"] = "1"
    return env


def _run_all(commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Start every command before waiting on any, so their writes really overlap."""
    children = [
        subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()) for c in commands
    ]
    done = []
    for command, child in zip(commands, children, strict=True):
        out, err = child.communicate(timeout=GUARD_S)
        done.append(subprocess.CompletedProcess(command, child.returncode, out, err))
    return done


def _assert_valid_and_signed(root: Path, kind: str) -> Overlay:
    ws = load_workspace(root)
    overlay = parse_overlay(overlay_path(ws, kind).read_bytes(), kind)  # type: ignore[arg-type]
    nodes = signature_nodes(Stores.load(ws, ("memory", "zk")).nodes, overlay.projects)
    signature = overlay_signature(kind, overlay.projects, overlay.typer, embedding_identity(ws), nodes)
    assert overlay.schema_version == 1 and overlay.signature == signature
    assert read_overlay(ws, kind).drift == "fresh"  # type: ignore[arg-type]
    return overlay


def test_eight_concurrent_builds_leave_one_valid_overlay_per_kind_and_no_temp_files(demo: Path) -> None:
    ws = load_workspace(demo)
    single = overlay_path(ws, "generic").read_bytes()
    kinds = ["generic", "claim"] * (PROCESSES // 2)
    runs = _run_all([[str(SYNAPSE), "build", "--root", str(demo), "--kind", kind, "--json"] for kind in kinds])
    for run in runs:
        assert run.returncode == 0, run.stderr
    reports = [json.loads(run.stdout) for run in runs]
    assert {(r["kind"], r["path"]) for r in reports} == {
        ("generic", ".synapse/links/links.json"),
        ("claim", ".synapse/links/claim_links.json"),
    }
    assert overlay_path(ws, "generic").read_bytes() == single  # no interleaving: the bytes one build writes
    for kind in ("generic", "claim"):
        overlay = _assert_valid_and_signed(demo, kind)
        assert {r["signature"] for r in reports if r["kind"] == kind} == {overlay.signature}
        assert len(overlay.links) == reports[kinds.index(kind)]["kept"]
    names = sorted(p.name for p in (demo / ".synapse" / "links").iterdir())
    assert names == [".gitignore", ".lock", "claim_links.json", "links.json"]


def test_racing_writers_of_different_overlays_leave_exactly_one_of_them_whole(demo: Path, tmp_path: Path) -> None:
    ws = load_workspace(demo)
    base = parse_overlay(overlay_path(ws, "generic").read_bytes(), "generic")
    variants = []
    for i in range(PROCESSES):
        variant = base.model_copy(update={"links": base.links[: len(base.links) - i], "min_confidence": 0.5 + i / 100})
        path = tmp_path / f"variant-{i}.json"
        path.write_text(variant.model_dump_json(), encoding="utf-8")
        variants.append(variant)
    runs = _run_all(
        [
            [sys.executable, "-c", _WRITER, str(demo), str(tmp_path / f"variant-{i}.json"), "25"]
            for i in range(PROCESSES)
        ]
    )
    for run in runs:
        assert run.returncode == 0, run.stderr
    final = parse_overlay(overlay_path(ws, "generic").read_bytes(), "generic")
    assert final in variants
    assert not [p.name for p in (demo / ".synapse" / "links").iterdir() if p.name.endswith(".tmp")]
