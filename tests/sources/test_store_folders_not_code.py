"""Synapse's own store folders never become ``repo:`` code nodes, committed or not.

A committed note read back as a git-pinned code file would vouch for itself:
the demo's refuted breakeven quote answered ``grounded`` from the note's own
copy once the workspace was committed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import git
import pytest

from synapse_server.demo import load_questions
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

SYNAPSE = Path(sys.executable).parent / "synapse"
STORE_PREFIXES = (".memory/", ".zettelkasten/", "runs/", ".synapse/", ".angelo/", "federated/")


def commit_everything(root: Path) -> None:
    """``git add -A && git commit`` as a user would, stores included (``-f`` past any ignore rule)."""
    repo = git.Repo(root) if (root / ".git").exists() else git.Repo.init(root)
    repo.git.add("-A", "-f", ".")
    repo.git.commit("-q", "-m", "commit the stores too", "--allow-empty", author="A <a@example.com>")


@pytest.fixture(scope="module")
def committed_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_demo(tmp_path_factory.mktemp("committed") / "demo")
    commit_everything(root)
    return root


def test_committed_store_files_never_become_code_nodes(committed_demo: Path) -> None:
    tracked = git.Repo(committed_demo).git.ls_files().splitlines()
    assert any(p.startswith(".zettelkasten/") for p in tracked) and any(p.startswith("runs/") for p in tracked)
    stores = Stores.load(load_workspace(committed_demo))
    code_paths = [str(n.meta.get("path", "")) for n in stores.nodes.values() if n.family == "code"]
    assert code_paths, "the code store still reads the repository's own files"
    assert [p for p in code_paths if p.startswith(STORE_PREFIXES)] == []


def test_a_committed_cache_or_federated_folder_is_not_code_either(tmp_path: Path) -> None:
    root = make_demo(tmp_path / "demo")
    (root / "federated" / "outside" / "notes").mkdir(parents=True)
    (root / "federated" / "outside" / "notes" / "a.md").write_text("# A\n\nA federated note.\n", encoding="utf-8")
    (root / ".angelo").mkdir(exist_ok=True)
    (root / ".angelo" / "stray.txt").write_text("derived", encoding="utf-8")
    config = root / ".synapse" / "config.yaml"
    text = config.read_text(encoding="utf-8").replace("federation: {}", "federation: {outside: federated}")
    config.write_text(text, encoding="utf-8")
    commit_everything(root)
    stores = Stores.load(load_workspace(root))
    code_paths = [str(n.meta.get("path", "")) for n in stores.nodes.values() if n.family == "code"]
    assert [p for p in code_paths if p.startswith(STORE_PREFIXES)] == []


def test_refuted_quote_still_abstains_false_premise_after_committing_the_stores(committed_demo: Path) -> None:
    case = next(c for c in load_questions()["questions"] if c["id"] == "breakeven-cost")
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_MODEL"}
    done = subprocess.run(
        [str(SYNAPSE), "navigate", case["question"], "--root", str(committed_demo), "--json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert (payload["verdict"], payload["reasons"]) == ("abstain", ["false-premise"])
    assert "repo:" not in json.dumps(payload["answer_surface"])
