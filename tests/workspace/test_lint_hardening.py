"""Lint flags parent cycles and refuses memory ids shaped like paths as errors."""

from __future__ import annotations

from pathlib import Path

from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace


def _entry(root: Path, ident: str, parent: str | None, name: str | None = None) -> None:
    path = root / ".memory" / "tree" / f"{name or ident}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"id: '{ident}'", "kind: note", f"title: {ident}"] + ([f"parent: {parent}"] if parent else [])
    path.write_text("---\n" + "\n".join(lines) + "\n---\n\nBody.\n", encoding="utf-8")


def test_a_parent_cycle_is_an_error_on_every_entry_in_it(tmp_path: Path) -> None:
    _entry(tmp_path, "note-a", "note-b")
    _entry(tmp_path, "note-b", "note-c")
    _entry(tmp_path, "note-c", "note-a")
    _entry(tmp_path, "note-d", "note-a")  # hangs off the loop: not part of it
    _entry(tmp_path, "note-e", "note-e")
    report = lint_workspace(load_workspace(tmp_path))
    cycles = {(d.path, d.severity) for d in report.diagnostics if d.code == "parent-cycle"}
    assert cycles == {
        (".memory/tree/note-a.md", "error"),
        (".memory/tree/note-b.md", "error"),
        (".memory/tree/note-c.md", "error"),
        (".memory/tree/note-e.md", "error"),
    }


def test_a_tree_without_cycles_has_no_cycle_finding(tmp_path: Path) -> None:
    _entry(tmp_path, "root-1", None)
    _entry(tmp_path, "plan-1", "root-1")
    _entry(tmp_path, "note-1", "plan-1")
    report = lint_workspace(load_workspace(tmp_path))
    assert [d for d in report.diagnostics if d.code == "parent-cycle"] == []


def test_a_memory_id_like_a_traversal_is_a_lint_error(tmp_path: Path) -> None:
    _entry(tmp_path, "../../../etc/passwd", None, name="note-evil")
    report = lint_workspace(load_workspace(tmp_path))
    assert ("bad-id", "error") in {(d.code, d.severity) for d in report.diagnostics}
    assert report.errors >= 1
