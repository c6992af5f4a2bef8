"""lint and init --adopt say, per store and source, what they read and what they skipped and why (real git repos).

Each repository holds, next to good files, a file that is not UTF-8, one whose
front matter is broken, a committed file whose blob is gone (a partial copy),
and, when the tests do not run as root, a file nobody may read: each costs only
itself, is named under its reason, and every other store still loads.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from synapse_server.cli.main import main
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from synapse_server.workspace.stores import Stores
from tests.support.source_fixtures import commit_all, git, make_repo, write_files


def _reads_locked_files() -> bool:
    """True when a chmod 000 file can still be read here: root (with its usual capabilities) reads anything."""
    if os.geteuid() != 0:
        return False
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe"
        probe.write_text("x", encoding="utf-8")
        probe.chmod(0)
        try:
            probe.read_bytes()
        except PermissionError:
            return False
        return True


AS_ROOT = _reads_locked_files()
needs_permissions = pytest.mark.skipif(AS_ROOT, reason="root reads a chmod 000 file, so nothing is unreadable")

LATIN_1 = "---\nid: note-latin\nkind: note\ntitle: Caf\xe9\n---\n\nPaid in caf\xe9s.\n".encode("latin-1")
BROKEN = "---\nid: note-broken\nkind: note\ntitle: [unclosed\n---\n\nNever read.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """A repository with a memory tree, a vault and code, each holding one good file and its broken neighbours."""
    root = make_repo(tmp_path / "repo")
    write_files(
        root,
        {
            ".memory/tree/note-good.md": "---\nid: note-good\nkind: note\ntitle: Good\n---\n\nLedger amounts are cents.\n",
            ".memory/tree/note-broken.md": BROKEN,
            "notes/.obsidian/app.json": "{}\n",
            "notes/Ledger.md": "# Ledger\n\nAmounts are integer cents; see [[Rounding]].\n",
            "notes/Rounding.md": "# Rounding\n\nBanker's rounding, see [[Ledger]].\n",
            "notes/Broken.md": "---\ntitle: [unclosed\n---\n\nNever read.\n",
            "billing/ledger.py": "def post():\n    return 1\n",
            "billing/lost.py": "LOST = True\n",
            "billing/half.py": "def half(:\n",
            "README.md": "# Billing\n",
        },
    )
    (root / ".memory/tree/note-latin.md").write_bytes(LATIN_1)
    (root / "notes/Latin.md").write_bytes("# Caf\xe9\n\nPaid in caf\xe9s, see [[Ledger]].\n".encode("latin-1"))
    commit_all(root, "knowledge")
    blob = git(root, "rev-parse", "HEAD:billing/lost.py")
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # a partial copy: the blob is gone
    locked = [root / ".memory/tree/note-locked.md", root / "notes/Locked.md"]
    if not AS_ROOT:
        for path in locked:
            path.write_text("---\nid: note-locked\nkind: note\n---\n\nSecret.\n", encoding="utf-8")
            path.chmod(0)
    yield root
    for path in locked:
        if path.exists():
            path.chmod(0o644)  # so the tmp folder can be removed


def _configure(root: Path) -> None:
    write_files(root, {".synapse/config.yaml": "sources:\n  - {kind: notes, path: notes}\n"})


def _lint(root: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    main(["lint", "--root", str(root), *flags])
    return capsys.readouterr().out


def _unreadable(paths: str) -> tuple[int, str]:
    """The extra skip and its group text when the locked file exists (not as root)."""
    return (0, "") if AS_ROOT else (1, f", 1 unreadable ({paths})")


def test_lint_names_per_store_the_files_read_and_each_skipped_file_under_its_reason(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(repo)
    lines = _lint(repo, capsys).splitlines()
    extra, memory_locked = _unreadable(".memory/tree/note-locked.md")
    _, notes_locked = _unreadable("notes/Locked.md")
    accounts = lines[lines.index("stores:") + 1 : -1]
    assert accounts == [
        f"  memory .memory: 1 file read, {2 + extra} skipped: 1 broken front matter (.memory/tree/note-broken.md), "
        f"1 not UTF-8 (.memory/tree/note-latin.md){memory_locked}",
        f"  notes notes: 2 files read, {2 + extra} skipped: 1 broken front matter (notes/Broken.md), "
        f"1 not UTF-8 (notes/Latin.md){notes_locked}",
        "  code .: 4 files read, 2 skipped: 1 binary file (notes/Latin.md), 1 unreadable blob (billing/lost.py)",
    ]


def test_lint_json_carries_the_same_accounts_with_every_group(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _configure(repo)
    payload = json.loads(_lint(repo, capsys, "--json"))
    accounts: dict[str, dict[str, Any]] = {s["label"]: s for s in payload["sources"]}
    assert list(accounts) == ["memory .memory", "notes notes", "code ."]
    groups = {label: {g["reason"]: g["paths"] for g in s["groups"]} for label, s in accounts.items()}
    expected_memory = {
        "broken front matter": [".memory/tree/note-broken.md"],
        "not UTF-8": [".memory/tree/note-latin.md"],
    }
    expected_notes = {"broken front matter": ["notes/Broken.md"], "not UTF-8": ["notes/Latin.md"]}
    if not AS_ROOT:
        expected_memory["unreadable"] = [".memory/tree/note-locked.md"]
        expected_notes["unreadable"] = ["notes/Locked.md"]
    assert groups == {
        "memory .memory": expected_memory,
        "notes notes": expected_notes,
        "code .": {"binary file": ["notes/Latin.md"], "unreadable blob": ["billing/lost.py"]},
    }
    assert [accounts[label]["files_read"] for label in accounts] == [1, 2, 4]
    assert all(s["unread"] is None for s in accounts.values())


def test_the_code_stores_warnings_reach_lint(repo: Path) -> None:
    _configure(repo)
    found = {(d.path, d.severity, d.code) for d in lint_workspace(load_workspace(repo)).diagnostics}
    assert ("billing/lost.py", "warning", "unreadable-blob") in found
    assert ("billing/half.py", "warning", "parse-error") in found


def test_every_good_file_still_loads_beside_the_broken_ones(repo: Path) -> None:
    _configure(repo)
    stores = Stores.load(load_workspace(repo))
    assert stores.failures == ()
    assert {"mem:tree:note-good", "zk:notes:ledger", "zk:notes:rounding", "repo:repo:billing/ledger.py"} <= set(
        stores.nodes
    )


def test_a_committed_note_the_vault_skips_stays_findable_as_a_file_of_the_code_store(repo: Path) -> None:
    """A source claims the files it read; one it could not read is still the repository's text."""
    _configure(repo)
    nodes = Stores.load(load_workspace(repo)).nodes
    assert "repo:repo:notes/Broken.md" in nodes and "zk:notes:broken" not in nodes
    assert "repo:repo:notes/Ledger.md" not in nodes


@needs_permissions
def test_a_store_folder_nobody_may_read_is_one_load_failure_and_the_others_still_load(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(repo)
    tree = repo / ".memory" / "tree"
    tree.chmod(0)
    try:
        payload = json.loads(_lint(repo, capsys, "--json"))
        stores = Stores.load(load_workspace(repo))
    finally:
        tree.chmod(0o755)
    [lost] = [d for d in payload["diagnostics"] if d["code"] == "load-failed"]
    assert (lost["path"], lost["severity"]) == (".memory", "error")
    assert "PermissionError" in lost["message"]
    accounts = {s["label"]: s for s in payload["sources"]}
    assert accounts["memory .memory"]["unread"].startswith("failed to load (PermissionError")
    assert accounts["notes notes"]["files_read"] == 2 and accounts["code ."]["files_read"] == 4
    assert [f.address for f in stores.failures] == ["mem:tree:*"]
    assert {"zk:notes:ledger", "repo:repo:billing/ledger.py"} <= set(stores.nodes)


def test_adopt_reports_what_each_adopted_source_read_and_will_skip(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", "--adopt", str(repo)]) == 0
    lines = capsys.readouterr().out.splitlines()
    _, notes_locked = _unreadable("notes/Locked.md")
    extra = 0 if AS_ROOT else 1
    checked = lines[lines.index("read once to check:") + 1 :]
    assert (
        f"  notes notes: 2 files read, {2 + extra} skipped: 1 broken front matter (notes/Broken.md), "
        f"1 not UTF-8 (notes/Latin.md){notes_locked}"
    ) in checked
    assert not any(line.startswith("  code ") for line in checked)  # the code store is lint's (see adoption_report)


def test_adopt_json_lists_the_accounts_and_the_hints(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(repo, {f"guides/step-{n}.md": f"# Step {n}\n\nPlain prose, no links.\n" for n in range(6)})
    assert main(["init", "--adopt", str(repo), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    notes = next(s for s in payload["read"] if s["label"] == "notes notes")
    assert notes["files_read"] == 2
    assert {g["reason"] for g in notes["groups"]} >= {"broken front matter", "not UTF-8"}
    assert [h for h in payload["hints"] if h.startswith("guides/ holds 6 markdown files")]


def test_adopt_text_prints_the_hints_after_the_accounts(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_files(repo, {f"guides/step-{n}.md": f"# Step {n}\n\nPlain prose, no links.\n" for n in range(6)})
    assert main(["init", "--adopt", str(repo)]) == 0
    out = capsys.readouterr().out
    assert out.index("read once to check:") < out.index("hints:\n  guides/ holds 6 markdown files")
    assert "{kind: notes, path: guides}" in out
