"""A runs/<id>/run.yaml committed to git is pinned at the last commit that changed it; an edited or untracked one
is not. A pinned record without inputs or outputs is grounded by its file, one with them is measured while its
hashes verify, and a record git does not vouch for is exactly as good as its hashes (inferred without any)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters import Node, RunsAdapter, TetherKind
from adapters.file_tethers import FileTethers
from adapters.resolvers import workspace_resolvers
from adapters.runs_body import GROUNDED_NEEDS
from synapse_server.navigation.epistemics import derive
from tests.support.source_fixtures import commit_all, git, make_repo, write_files
from tests.support.store_builders import sha256_text

PLAIN = "id: run-007\ntitle: Ridge at alpha 0.5\nparams: {alpha: 0.5}\nmetrics: {mae: 0.666}\n"
PRICES = "date,close\n2026-06-01,100\n"
HASHED = f"""id: run-008
title: Ridge on prices
metrics: {{mae: 0.5}}
inputs: [{{path: data/prices.csv, sha256: "{sha256_text(PRICES)}"}}]
"""


def _workspace(root: Path) -> Path:
    make_repo(root)
    write_files(root, {"data/prices.csv": PRICES, "runs/run-007/run.yaml": PLAIN, "runs/run-008/run.yaml": HASHED})
    return root


def _status(root: Path, repo: Path | None) -> dict[str, tuple[str, tuple[TetherKind, ...]]]:
    nodes: list[Node] = list(RunsAdapter(Path("runs"), root, repo).load().nodes)
    resolvers = workspace_resolvers(root, repo, nodes)
    return {
        n.address.removeprefix("data:runs:"): (
            derive(n, [resolvers.resolve(t) for t in n.tethers]).status,
            tuple(t.kind for t in n.tethers),
        )
        for n in nodes
    }


def test_a_committed_record_is_grounded_without_hashes_and_measured_with_them(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    head = commit_all(root, "Two runs")
    found = _status(root, root)
    assert found["run-007"] == ("grounded", (TetherKind.GIT_PIN,))
    assert found["run-008"] == ("measured", (TetherKind.GIT_PIN, TetherKind.CONTENT_HASH, TetherKind.RUN))
    (node,) = [n for n in RunsAdapter(Path("runs"), root, root).load().nodes if n.address == "data:runs:run-007"]
    assert node.tethers[0].target == "runs/run-007/run.yaml" and node.tethers[0].ref == head
    assert "- verification: grounded in its files as committed to git; not measured:" in node.body


@pytest.mark.parametrize("state", ["edited", "untracked", "no-repository"])
def test_a_record_git_does_not_vouch_for_is_as_good_as_its_hashes(tmp_path: Path, state: str) -> None:
    root = _workspace(tmp_path / "ws")
    if state == "untracked":
        git(root, "add", "data")
        git(root, "commit", "--quiet", "-m", "The data only")
    else:
        commit_all(root, "Two runs")
    if state == "edited":
        record = root / "runs/run-007/run.yaml"
        record.write_text(PLAIN.replace("0.666", "0.6"), encoding="utf-8")
        (root / "runs/run-008/run.yaml").write_text(
            (root / "runs/run-008/run.yaml").read_text(encoding="utf-8") + "notes: edited\n", encoding="utf-8"
        )
    repo = None if state == "no-repository" else root
    found = _status(root, repo)
    assert found["run-007"] == ("inferred", (TetherKind.RUN,))
    assert found["run-008"] == ("measured", (TetherKind.CONTENT_HASH, TetherKind.RUN))
    (node,) = [n for n in RunsAdapter(Path("runs"), root, repo).load().nodes if n.address == "data:runs:run-007"]
    assert node.body.splitlines()[2].endswith(f" {GROUNDED_NEEDS}.")


def test_file_pins_are_given_only_for_the_committed_bytes_of_a_tracked_file(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "ws")
    write_files(root, {"mlruns/0/meta.yaml": "name: Default\n"})
    head = commit_all(root, "An experiment")
    write_files(root, {"mlruns/0/new": "x\n"})
    files = FileTethers(root, root)
    files.prepare_folder("mlruns")
    pin = files.pin("mlruns/0/meta.yaml", b"name: Default\n")
    assert pin is not None and (pin.kind, pin.target, pin.ref) == (TetherKind.GIT_PIN, "mlruns/0/meta.yaml", head)
    assert files.pin("mlruns/0/meta.yaml", b"name: Other\n") is None  # uncommitted bytes
    assert files.pin("mlruns/0/new", b"x\n") is None and not files.tracked("mlruns/0/new")  # untracked
    assert FileTethers(root, None).pin("mlruns/0/meta.yaml", b"name: Default\n") is None  # no repository


def test_a_folder_whose_name_looks_like_pathspec_magic_is_read_as_a_name(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "ws")
    write_files(root, {":(glob)runs/a.yaml": "a\n", "runs/b.yaml": "b\n"})
    first = commit_all(root, "Two folders")
    write_files(root, {"runs/b.yaml": "b2\n"})
    commit_all(root, "Edit b")
    files = FileTethers(root, root)
    files.prepare_folder(":(glob)runs")
    pin = files.pin(":(glob)runs/a.yaml", b"a\n")
    assert pin is not None and pin.ref == first
