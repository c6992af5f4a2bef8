"""The code store reads only a git directory inside the workspace, or a linked worktree's; lint says which."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters import CodeAdapter
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from tests.support.store_builders import commit, git, init_repo, write

SECRET = "SECRET-OUTSIDE-7c1e"


def _outside_repo(tmp_path: Path) -> Path:
    other = tmp_path / "elsewhere"
    init_repo(other)
    write(other, "secret.txt", SECRET + "\n")
    commit(other, "outside")
    return other


def _codes(result: object) -> set[str]:
    return {d.code for d in result.diagnostics}  # type: ignore[attr-defined]


@pytest.mark.parametrize("how", ["gitfile", "symlink"])
def test_a_git_directory_outside_the_workspace_is_refused(tmp_path: Path, how: str) -> None:
    other = _outside_repo(tmp_path)
    workspace = tmp_path / "ws"
    write(workspace, "README.md", "hello\n")
    if how == "gitfile":
        (workspace / ".git").write_text(f"gitdir: {other / '.git'}\n", encoding="utf-8")
    else:
        os.symlink(other / ".git", workspace / ".git", target_is_directory=True)
    loaded = CodeAdapter(workspace, "demo", boundary=workspace).load()
    assert loaded.nodes == ()
    assert _codes(loaded) == {"git-outside"}
    assert all(SECRET not in d.message and str(other) not in d.message for d in loaded.diagnostics)
    report = lint_workspace(load_workspace(workspace))
    assert ("git-outside", "error") in {(d.code, d.severity) for d in report.diagnostics}


def test_object_alternates_outside_the_workspace_are_refused(tmp_path: Path) -> None:
    other = _outside_repo(tmp_path)
    workspace = tmp_path / "ws"
    init_repo(workspace)
    write(workspace, "README.md", "hello\n")
    commit(workspace, "inside")
    (workspace / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (workspace / ".git" / "objects" / "info" / "alternates").write_text(f"{other / '.git' / 'objects'}\n", "utf-8")
    assert _codes(CodeAdapter(workspace, "demo", boundary=workspace).load()) == {"git-outside"}


def test_a_linked_worktree_is_read_and_lint_says_it_is_one(tmp_path: Path) -> None:
    main = tmp_path / "main"
    init_repo(main)
    write(main, "models/costs.py", "RATE = 8\n")
    commit(main, "first")
    worktree = tmp_path / "trees" / "feature"
    git(main, "worktree", "add", "--quiet", "-b", "feature", str(worktree))
    loaded = CodeAdapter(worktree, "demo", boundary=worktree).load()
    assert "repo:demo:models/costs.py" in {n.address for n in loaded.nodes}
    assert "git-outside" not in _codes(loaded)
    report = lint_workspace(load_workspace(worktree))
    assert ("git-worktree", "info") in {(d.code, d.severity) for d in report.diagnostics}
    assert report.errors == 0


def test_a_gitfile_naming_another_worktree_is_not_mistaken_for_this_one(tmp_path: Path) -> None:
    main = tmp_path / "main"
    init_repo(main)
    write(main, "secret.txt", SECRET + "\n")
    commit(main, "first")
    git(main, "worktree", "add", "--quiet", "-b", "other", str(tmp_path / "real-tree"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'real-tree'}\n", encoding="utf-8")
    assert _codes(CodeAdapter(workspace, "demo", boundary=workspace).load()) == {"git-outside"}


def test_an_ordinary_repository_is_read_as_before(repo: object) -> None:
    root = repo.root  # type: ignore[attr-defined]
    loaded = CodeAdapter(root, "demo", boundary=root).load()
    assert loaded.nodes and "git-outside" not in _codes(loaded)
