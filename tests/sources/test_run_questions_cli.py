"""``synapse navigate`` over an adopted MLflow folder: the installed script answers "What is the MAE of run
wise-roo-476?" with the metric and the status grounded when the runs are committed, and when they are not, the
card abstains and says why the run is inferred and what measured and grounded need."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from synapse_server.workspace.adopt import adopt
from tests.support.source_fixtures import git, make_repo
from tests.support.wild_repos import wild_files, wild_repo

SYNAPSE = Path(sys.executable).parent / "synapse"
QUESTION = "What is the MAE of run wise-roo-476?"
WISE_ROO = "data:runs:0d8653353e3e43beb89442a8bca1a94d"


def navigate(root: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "SYNAPSE_MODEL"}
    done = subprocess.run(
        [str(SYNAPSE), "navigate", QUESTION, "--root", str(root), "--model", "extractive"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_cli_answers_a_committed_runs_mae_with_its_value_grounded(tmp_path: Path) -> None:
    root = wild_repo("mlflow-16aryan", tmp_path / "wine")
    adopt(root, gitignore=True)
    lines = navigate(root)
    assert lines[:2] == ["ANSWER · grounded", "  mae: 0.5627373693033669"]
    assert f"      {WISE_ROO}" in lines
    assert any(line.endswith("data · grounded; supports c1") and "wise-roo-476" in line for line in lines)


def test_the_cli_card_of_a_run_nobody_committed_says_why_it_is_inferred(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "wine")
    shutil.copytree(wild_files("mlflow-16aryan"), root, dirs_exist_ok=True)
    (root / "README.md").write_text("# Wine quality\n", encoding="utf-8")
    git(root, "add", "README.md")
    git(root, "commit", "--quiet", "-m", "The readme; the runs are not committed")
    adopt(root, gitignore=True)
    lines = navigate(root)
    card = " ".join(line.strip() for line in lines)
    assert lines[0] == "ABSTAINED · low-coverage"
    assert "0.5627373693033669" not in card
    assert f"{WISE_ROO} is inferred: run {WISE_ROO.removeprefix('data:runs:')} recorded no sha256" in card
    assert "which measured needs, and its files are not committed to git unchanged, which grounded needs." in card
