"""The repository is its own workspace: a fresh clone answers a design question from its own decision records.

The committed ``.synapse/config.yaml`` adopts ``docs/adr`` and part of the code. These tests clone the
repository (so only committed files count, as for anyone who clones it) and drive the installed CLI, the
surface a user has, rather than library modules whose paths may change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SYNAPSE = Path(sys.executable).parent / "synapse"
QUESTION = "Why does navigate run in a subprocess?"


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone of this repository: what a new contributor gets, without anyone's uncommitted edits."""
    if not (REPO / ".git").exists():
        pytest.skip("this checkout has no .git, so there is no repository to clone")
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    target = tmp_path_factory.mktemp("own-workspace") / "synapse"
    subprocess.run([git, "clone", "-q", str(REPO), str(target)], check=True, capture_output=True, timeout=120)
    return target


def _synapse(*args: str) -> dict[str, Any]:
    """Run the installed CLI offline with the workspace's own model choice; return its JSON."""
    env = {k: v for k, v in os.environ.items() if k not in ("SYNAPSE_MODEL", "SYNAPSE_TRUST_WORKSPACE_MODEL")}
    env["HF_HUB_OFFLINE"] = "1"
    done = subprocess.run(
        [str(SYNAPSE), *args, "--json"], capture_output=True, text=True, encoding="utf-8", env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _words(text: str) -> str:
    """Markdown text as the navigator reads it for this check: inline code marks dropped, whitespace joined."""
    return " ".join(text.replace("`", "").split())


def test_the_committed_config_adopts_the_decision_records(clone: Path) -> None:
    config = yaml.safe_load((clone / ".synapse" / "config.yaml").read_text(encoding="utf-8"))
    assert config["sources"] == [{"kind": "adr", "path": "docs/adr"}]
    assert "model" not in config, "the model is left to the caller: extractive on the CLI, the host under serve"
    assert "write_free" not in config
    assert len(list((clone / "docs" / "adr").glob("[0-9][0-9][0-9][0-9]-*.md"))) >= 6


def test_a_fresh_clone_answers_why_navigate_runs_in_a_subprocess_from_its_own_record(clone: Path) -> None:
    result = _synapse("navigate", QUESTION, "--root", str(clone))
    assert result["verdict"] == "answer", result["summary"]
    surface = result["answer_surface"]
    (citation,) = [c for c in surface["citations"] if c["address"].startswith("mem:adr:")]
    record = clone / "docs" / "adr" / f"{citation['address'].split(':', 2)[2]}.md"
    assert record.is_file(), citation["address"]
    text = _words(record.read_text(encoding="utf-8"))
    assert surface["text"] and _words(surface["text"]) in text
    assert "subprocess" in surface["text"] and "because" in surface["text"]
    assert result["model"]["provider"] == "extractive"


def test_the_own_workspace_lints_without_errors(clone: Path) -> None:
    report = _synapse("lint", "--root", str(clone))
    assert report["errors"] == 0, report["diagnostics"]
    assert report["files"] >= 8
