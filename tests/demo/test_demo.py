"""The demo workspace: deterministic, a real git history, and a questions file true to its content."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from adapters.base import Node, TetherKind
from adapters.memory import MemoryAdapter
from adapters.resolvers import Resolvers, workspace_resolvers
from adapters.runs import RunsAdapter
from adapters.zettelkasten import ZettelkastenAdapter
from synapse_server.demo import build_demo, load_questions, workspace_name
from synapse_server.workspace.config import load_workspace


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo(tmp_path_factory.mktemp("demo") / "ws")


@pytest.fixture(scope="module")
def loaded(demo: Path) -> tuple[dict[str, Node], Resolvers]:
    ws = load_workspace(demo)
    results = [
        MemoryAdapter(ws.memory_dir, ws.root, ws.code_name).load(),
        ZettelkastenAdapter(ws.zettelkasten_dir, None, ws.federation_dirs, ws.root, ws.code_name).load(),
        RunsAdapter(ws.runs_dir, ws.root).load(),
    ]
    nodes = [node for result in results for node in result.nodes]
    return {node.address: node for node in nodes}, workspace_resolvers(ws.root, ws.code_dir, nodes)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()


def _tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(root).parts
    }


def test_two_builds_produce_identical_files_and_commit_shas(demo: Path, tmp_path: Path) -> None:
    again = build_demo(tmp_path / "again")
    assert _tree(again) == _tree(demo)
    assert _git(again, "log", "--format=%H %an <%ae> %ad %s") == _git(demo, "log", "--format=%H %an <%ae> %ad %s")


def test_demo_is_a_git_repository_with_several_commits_that_change_files(demo: Path) -> None:
    commits = _git(demo, "rev-list", "HEAD").splitlines()
    assert 4 <= len(commits) <= 6
    assert len(_git(demo, "rev-list", "HEAD", "--", "models/costs.py").splitlines()) == 3
    assert len(_git(demo, "rev-list", "HEAD", "--", "backtest.py").splitlines()) >= 3
    assert _git(demo, "status", "--porcelain", "--untracked-files=no") == ""


def test_demo_stores_hold_the_promised_content(loaded: tuple[dict[str, Node], Resolvers]) -> None:
    nodes, _ = loaded
    by_family: dict[str, int] = {}
    for node in nodes.values():
        if node.type != "source":
            by_family[node.family] = by_family.get(node.family, 0) + 1
    assert by_family["memory"] == 30
    assert 36 <= by_family["zk"] <= 44
    assert 3 <= by_family["data"] <= 5
    kinds = {node.type for node in nodes.values() if node.family == "memory"}
    assert {"root", "plan", "phase", "decision", "experiment", "checkpoint", "anti-pattern", "note"} <= kinds
    note_types = {node.type for node in nodes.values() if node.family == "zk"}
    assert {"claim", "finding", "method", "quote", "concept", "question", "synthesis", "source"} <= note_types
    assert any(node.meta.get("contested") for node in nodes.values())
    assert any(node.meta.get("cross") for node in nodes.values())


def test_notes_and_memory_pins_share_code_paths(loaded: tuple[dict[str, Node], Resolvers]) -> None:
    nodes, _ = loaded
    pinned = {t.target for n in nodes.values() for t in n.tethers if t.kind is TetherKind.GIT_PIN}
    files = {str(path) for n in nodes.values() if n.family == "zk" for path in n.meta.get("files", ())}
    assert {"models/costs.py", "strategy/momentum.py", "backtest.py", "reports/turnover.py"} <= pinned & files


def test_questions_cover_every_outcome_the_navigator_must_produce() -> None:
    questions = load_questions()["questions"]
    kinds = [case["kind"] for case in questions]
    assert sum(kind in ("grounded", "measured") for kind in kinds) >= 8
    assert {"grounded", "measured", "outdated", "stale", "refuted", "unresolved", "absent"} <= set(kinds)
    assert len({case["id"] for case in questions}) == len(questions)


_EXPECTED_STATES = {
    "grounded": {"ok"},
    "measured": {"ok"},
    "outdated": {"outdated"},
    "stale": {"stale"},
    "refuted": {"failed"},
    "unresolved": {"unresolved"},
}


def test_each_question_evidence_sentence_lives_in_its_node_with_the_stated_tether_finding(
    loaded: tuple[dict[str, Node], Resolvers],
) -> None:
    nodes, resolvers = loaded
    for case in load_questions()["questions"]:
        evidence = case["evidence"]
        if case["kind"] == "absent":
            assert evidence is None
            continue
        node = nodes[evidence["address"]]
        assert evidence["sentence"] in node.body, case["id"]
        states = {resolvers.resolve(tether).state for tether in node.tethers}
        worst = states - {"ok"} or {"ok"}
        assert worst == _EXPECTED_STATES[case["kind"]], (case["id"], states)
        if case["kind"] == "measured":
            assert {t.kind for t in node.tethers} == {TetherKind.RUN}, case["id"]
        for alternate in case.get("alternates", []):
            other = nodes[alternate["address"]]
            assert alternate["sentence"] in other.body
            assert {resolvers.resolve(t).state for t in other.tethers} == {"ok"}


def test_each_expected_sentence_appears_in_exactly_one_node(loaded: tuple[dict[str, Node], Resolvers]) -> None:
    nodes, _ = loaded
    for case in load_questions()["questions"]:
        if case["evidence"] is None:
            continue
        holders = [address for address, node in nodes.items() if case["evidence"]["sentence"] in node.body]
        assert holders == [case["evidence"]["address"]], case["id"]


def test_content_paths_map_to_workspace_paths_dropping_only_the_txt_carrier() -> None:
    assert workspace_name("runs/run-001/equity.csv.txt") == "runs/run-001/equity.csv"
    assert workspace_name("zettelkasten/research/sources/texts/okafor-2019.txt") == (
        ".zettelkasten/research/sources/texts/okafor-2019.txt"
    )
    assert workspace_name("synapse/config.yaml") == ".synapse/config.yaml"
    assert workspace_name("memory/tree/root-5e1f0a2b.md") == ".memory/tree/root-5e1f0a2b.md"
