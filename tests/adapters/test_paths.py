"""Path hardening: nothing a store file names may lead a read outside its root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters.paths import PathEscape, check_relative, display_path, list_store_dirs, list_store_files, resolve_inside


def test_a_path_inside_the_root_resolves(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert resolve_inside(tmp_path, "a/b.txt") == (tmp_path / "a" / "b.txt").resolve()


def test_dot_dot_traversal_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PathEscape):
        resolve_inside(tmp_path / "root", "../secret.txt")


def test_an_absolute_path_outside_the_root_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PathEscape):
        resolve_inside(tmp_path / "root", tmp_path / "elsewhere")


def test_a_symlink_escaping_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    with pytest.raises(PathEscape):
        resolve_inside(root, "link.txt")


def test_a_nul_byte_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PathEscape):
        resolve_inside(tmp_path, "a\x00b")


@pytest.mark.parametrize("text", ["/etc/passwd", "../x", "a/../../x", "", "a\\b", "."])
def test_store_written_paths_must_be_plain_relative_paths(text: str) -> None:
    with pytest.raises(ValueError):
        check_relative(text)


def test_store_written_paths_are_normalised_to_posix_form() -> None:
    assert check_relative("./data//prices.csv") == "data/prices.csv"


def test_display_paths_are_workspace_relative_even_outside_it(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    assert display_path(workspace / "a" / "b.md", workspace) == "a/b.md"
    assert display_path(tmp_path / "lab" / "n.md", workspace) == "../lab/n.md"


def test_store_listings_are_sorted_and_report_escaping_links(tmp_path: Path) -> None:
    root = tmp_path / "root"
    store = root / "store"
    store.mkdir(parents=True)
    for name in ("b.md", "a.md", "c.txt", ".hidden.md"):
        (store / name).write_text("x", encoding="utf-8")
    (tmp_path / "out.md").write_text("x", encoding="utf-8")
    os.symlink(tmp_path / "out.md", store / "z.md")
    accepted, refused = list_store_files(store, ".md", root)
    assert [path.name for path in accepted] == ["a.md", "b.md"]
    assert [path.name for path, _ in refused] == ["z.md"]


def test_every_entry_of_a_store_folder_linked_out_of_the_root_is_refused(tmp_path: Path) -> None:
    # The listing resolves the folder once and each plain entry through it: a folder that is itself a link out
    # of the root must still refuse every file in it, not accept them because they are not links.
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("a.md", "b.md"):
        (outside / name).write_text("x", encoding="utf-8")
    os.symlink(outside, root / "notes")
    accepted, refused = list_store_files(root / "notes", ".md", root)
    assert accepted == []
    assert [(path.name, reason) for path, reason in refused] == [
        ("a.md", "resolves outside its root"),
        ("b.md", "resolves outside its root"),
    ]


def test_listings_keep_links_that_stay_inside_and_sort_out_the_other_kind(tmp_path: Path) -> None:
    root = tmp_path / "root"
    store = root / "store"
    (store / "sub.md").mkdir(parents=True)  # a folder named like a note is not a note
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "real.md").write_text("x", encoding="utf-8")
    (store / "plain.md").write_text("x", encoding="utf-8")
    os.symlink(root / "elsewhere" / "real.md", store / "linked.md")
    os.symlink(root / "elsewhere", store / "linked-dir")
    os.symlink(store / "missing.md", store / "dangling.md")
    files, refused = list_store_files(store, ".md", root)
    assert [path.name for path in files] == ["linked.md", "plain.md"] and refused == []
    dirs, refused = list_store_dirs(store, root)
    assert [path.name for path in dirs] == ["linked-dir", "sub.md"] and refused == []
    assert all(path.parent == store for path in files + dirs)  # the entry as listed, never its target


def test_a_display_path_is_lexical_under_the_root_and_resolved_otherwise(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "notes").mkdir(parents=True)
    os.symlink(real, tmp_path / "alias")
    assert display_path(tmp_path / "alias" / "notes" / "n.md", tmp_path / "alias") == "notes/n.md"
    assert display_path(real / "notes" / "n.md", tmp_path / "alias") == "notes/n.md"  # under the resolved root
    assert display_path(Path("notes/n.md"), real) == "notes/n.md"
