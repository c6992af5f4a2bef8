"""A check re-reads only the entries inotify events name, and its kept scan always equals a fresh one.

Each shortcut sits beside the misreading it must refuse: an event that names a
file is answered by a stat of that file, but a folder made, moved or removed,
a config edit and a sweep must still be seen; after any sequence of creates,
edits, renames and deletes the kept scan's digests must equal those of a scan
from nothing (else a reload would load the wrong stores, or none); and a
renewed check vouches only for files it knows no write touched.
Real files on disk, the real inotify queue.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.freshness import SWEEP_EVERY_S, Freshness, changed_parts, fingerprint
from synapse_server.workspace.inotify import DirectoryWatch
from synapse_server.workspace.mounts import all_local
from synapse_server.workspace.stores import Stores
from tests.support.procs import wait_until

ENTRY = "---\nid: {id}\nkind: note\ntitle: {title}\nparent: root-5e1f0a2b\n---\nZebra liquidity dried up.\n"
NOTE = "---\ntitle: Fresh\n---\n{body}\n"


@pytest.fixture(autouse=True)
def _watched() -> None:
    if DirectoryWatch.create() is None:
        pytest.skip("inotify is not available here: every check is a full scan")


@contextmanager
def checking(root: Path, *, watch: bool = True, sweep_every_s: float = SWEEP_EVERY_S) -> Iterator[Freshness]:
    """A freshness check of ``root``, closed afterwards (its inotify queue is a file descriptor)."""
    freshness = Freshness(load_workspace(root), watch=watch, sweep_every_s=sweep_every_s)
    try:
        yield freshness
    finally:
        freshness.close()


@contextmanager
def renewal(stale: Freshness, workspace: Workspace | Path) -> Iterator[Freshness]:
    """The check for the reload after ``stale`` saw a change, closed afterwards."""
    renewed = stale.renewed(workspace if isinstance(workspace, Workspace) else load_workspace(workspace))
    try:
        yield renewed
    finally:
        renewed.close()


def _fresh_parts(root: Path) -> dict[str, str]:
    return Freshness(load_workspace(root), watch=False).parts


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")


def test_an_edit_named_by_an_event_is_seen_by_a_stat_not_a_rescan(fresh_demo: Path):
    entry = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    with checking(fresh_demo) as freshness:
        rescans = freshness.rescans
        _append(entry, "One more line.")
        assert freshness.current() is False
        assert freshness.rescans == rescans and freshness.updates == 1
        with renewal(freshness, fresh_demo) as renewed:
            assert renewed.parts == _fresh_parts(fresh_demo)
            assert renewed.value == fingerprint(load_workspace(fresh_demo))
            assert changed_parts(freshness.parts, renewed.parts) == {os.fspath(entry.parent.parent)}


def test_creates_renames_and_deletes_leave_the_kept_scan_equal_to_a_fresh_one(fresh_demo: Path):
    tree = fresh_demo / ".memory" / "tree"
    notes = sorted((fresh_demo / ".zettelkasten").rglob("*.md"))
    renamed = notes[0].with_name("renamed-" + notes[0].name)
    with checking(fresh_demo) as freshness:
        (tree / "note-0000aaaa.md").write_text(ENTRY.format(id="note-0000aaaa", title="Zebra"), encoding="utf-8")
        os.replace(notes[0], renamed)
        notes[1].unlink()
        (tree / "note-0000aaaa.md").write_text(ENTRY.format(id="note-0000aaaa", title="Zebra 2"), encoding="utf-8")
        assert freshness.current() is False
        with renewal(freshness, fresh_demo) as renewed:
            assert renewed.rescans == freshness.rescans, "named entries are re-read, the stores are not rescanned"
            assert renewed.parts == _fresh_parts(fresh_demo)
            os.replace(renamed, notes[0])  # and back: the first digest again
            assert renewed.current() is False
            with renewal(renewed, fresh_demo) as again:
                assert again.parts == _fresh_parts(fresh_demo)


def test_a_new_subfolder_is_rescanned_and_watched_so_its_later_edits_are_seen(fresh_demo: Path):
    folder = fresh_demo / ".zettelkasten" / "brand-new"
    with checking(fresh_demo) as freshness:
        rescans = freshness.rescans
        folder.mkdir()
        (folder / "fresh.md").write_text(NOTE.format(body="A fresh note."), encoding="utf-8")
        assert freshness.current() is False
        assert freshness.rescans == rescans + 1, "a folder made is not an entry a stat can read"
        with renewal(freshness, fresh_demo) as renewed:
            assert renewed.current() is True
            (folder / "fresh.md").write_text(NOTE.format(body="A changed note."), encoding="utf-8")
            assert renewed.current() is False, "the rescan must have watched the new folder"


def test_an_event_in_a_folder_above_the_stores_rescans(fresh_demo: Path):
    with checking(fresh_demo) as freshness:
        rescans = freshness.rescans
        (fresh_demo / ".memory" / "tree").rename(fresh_demo / ".memory" / "moved")
        assert freshness.current() is False
        assert freshness.rescans == rescans + 1


def test_a_config_edit_is_seen_and_a_renewal_with_other_store_folders_scans_afresh(fresh_demo: Path):
    config = fresh_demo / ".synapse" / "config.yaml"
    with checking(fresh_demo) as freshness:
        _append(config, "# a comment")
        assert freshness.current() is False
        with renewal(freshness, fresh_demo) as renewed:
            assert renewed.parts == _fresh_parts(fresh_demo)
    with checking(fresh_demo) as other:
        _append(fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md", "An edit.")
        assert other.current() is False
        workspace = load_workspace(fresh_demo)
        moved = dataclasses.replace(workspace, config=workspace.config.model_copy(update={"runs": "elsewhere"}))
        with renewal(other, moved) as renewed:
            assert renewed.rescans == 1, "a workspace naming other store folders is scanned from nothing"


def test_a_sweep_stats_every_file_even_with_an_empty_queue(fresh_demo: Path):
    with checking(fresh_demo, sweep_every_s=0.0) as freshness:
        swept = freshness.rescans + freshness.restats
        # With no floor the sweep comes SWEEP_SHARE scan-times after the last scan: milliseconds on the demo.
        assert wait_until(lambda: freshness.current() and freshness.rescans + freshness.restats > swept, 10.0)
        if all_local([fresh_demo]):
            assert freshness.restats > 0, "on a local disk a sweep stats the known files without listing folders"


def test_a_store_on_a_filesystem_that_may_change_without_events_is_swept_by_listing_every_folder(
    fresh_demo: Path,
):
    assert all_local([fresh_demo / ".memory"]) == all_local([fresh_demo]), "one mount, one answer"
    assert not all_local([Path("/proc/self")]), "a virtual filesystem is never trusted to report every change"
    with checking(fresh_demo, watch=False) as freshness:
        rescans = freshness.rescans
        assert freshness.current() is True
        assert freshness.rescans == rescans + 1 and freshness.restats == 0, "without a watch every check lists"


def test_a_renewed_check_sweeps_and_sees_edits_like_a_fresh_one(fresh_demo: Path):
    entry = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    with checking(fresh_demo, sweep_every_s=0.0) as freshness:
        _append(entry, "An edit.")
        assert wait_until(lambda: not freshness.current(), timeout_s=10.0)
        with renewal(freshness, fresh_demo) as renewed:
            fresh = Freshness(load_workspace(fresh_demo), watch=False)
            assert vars(renewed).keys() == vars(fresh).keys(), "a renewed check carries every field a fresh one has"
            swept = renewed.rescans + renewed.restats
            assert wait_until(lambda: renewed.current() and renewed.rescans + renewed.restats > swept, 10.0)
            _append(entry, "Another edit.")
            assert renewed.current() is False


def test_the_server_reloads_an_edit_without_a_second_scan_of_the_stores(fresh_demo: Path):
    deps = Deps(ServerSettings(root=fresh_demo, prespawn=False), watch=True)
    try:
        deps.stores()
        first = deps.freshness
        rescans = first.rescans
        (fresh_demo / ".memory" / "tree" / "note-0000aaaa.md").write_text(
            ENTRY.format(id="note-0000aaaa", title="Zebra liquidity"), encoding="utf-8"
        )
        assert deps.stores().nodes["mem:tree:note-0000aaaa"].title == "Zebra liquidity"
        assert deps.freshness is not first and deps.freshness.rescans == rescans
        assert deps.freshness.watched, "the renewed check kept the watch"
    finally:
        deps.close()


def test_an_edit_through_a_hard_link_no_event_reports_is_found_by_the_sweep_and_never_vouched_for(
    fresh_demo: Path, tmp_path: Path
):
    entry = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    with checking(fresh_demo, sweep_every_s=0.0) as freshness:
        stores = Stores.load(freshness.workspace)
        outside = tmp_path / "outside"
        outside.mkdir()
        link = outside / entry.name
        os.link(entry, link)  # made after the scan: no event, and no stat at each check
        _append(link, "Written through the link.")
        assert wait_until(lambda: not freshness.current(), timeout_s=10.0), "the sweep must find it"
        with renewal(freshness, fresh_demo) as renewed:
            assert renewed.vouch is not None and not renewed.vouch.file(os.fspath(entry))
            reloaded = stores.reload(renewed.workspace, changed_parts(freshness.parts, renewed.parts), renewed.vouch)
            assert "Written through the link." in reloaded.nodes["mem:tree:deci-c3d4e5f6"].body


def test_a_file_stamped_in_the_tick_of_the_scan_is_never_vouched_for_after_a_rescan(fresh_demo: Path):
    young = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    _append(young, "Just before the scan.")
    folder = fresh_demo / ".zettelkasten" / "brand-new"
    with checking(fresh_demo) as freshness:
        folder.mkdir()  # a folder event: the next check rescans in full
        (folder / "fresh.md").write_text(NOTE.format(body="A fresh note."), encoding="utf-8")
        rescans = freshness.rescans
        assert freshness.current() is False and freshness.rescans == rescans + 1
        with renewal(freshness, fresh_demo) as renewed:
            # Unchanged since the scan, yet written in the scan's own tick (a second write could keep its stamp).
            assert renewed.vouch is not None and not renewed.vouch.file(os.fspath(young))
            assert not renewed.vouch.file(os.fspath(folder / "fresh.md"))


def test_only_paths_spelled_as_the_scan_spells_them_inside_a_store_are_vouched_for(fresh_demo: Path):
    tree = fresh_demo / ".memory" / "tree"
    edited = tree / "deci-c3d4e5f6.md"
    with checking(fresh_demo) as freshness:
        _append(edited, "An edit.")
        assert freshness.current() is False
        with renewal(freshness, fresh_demo) as renewed:
            vouch = renewed.vouch
            assert vouch is not None
            other = next(p for p in sorted(tree.glob("*.md")) if p != edited)
            assert not vouch.file(os.fspath(edited)) and not vouch.folder(os.fspath(tree))
            assert vouch.file(os.fspath(other)), "an entry no event named is vouched for"
            assert not vouch.file(os.fspath(tree) + "/./" + other.name), "another spelling of it is not"
            assert not vouch.file(os.fspath(fresh_demo / ".synapse" / "config.yaml")), "nor a file outside the stores"
            notes = next(p.parent for p in (fresh_demo / ".zettelkasten").rglob("*.md"))
            assert vouch.folder(os.fspath(notes))
