"""A check re-reads only the entries inotify events name, and its kept scan always equals a fresh one.

Each shortcut sits beside the misreading it must refuse: an event that names a
file is answered by a stat of that file, but a folder made, moved or removed,
a config edit and a sweep must still be seen; and after any sequence of
creates, edits, renames and deletes the kept scan's digests must equal those of
a scan from nothing (else a reload would load the wrong stores, or none).
Real files on disk, the real inotify queue.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.freshness import Freshness, _local, changed_parts, fingerprint
from synapse_server.workspace.inotify import DirectoryWatch
from tests.support.procs import wait_until

ENTRY = "---\nid: {id}\nkind: note\ntitle: {title}\nparent: root-5e1f0a2b\n---\nZebra liquidity dried up.\n"


@pytest.fixture(autouse=True)
def _watched() -> None:
    if DirectoryWatch.create() is None:
        pytest.skip("inotify is not available here: every check is a full scan")


def _fresh_parts(root: Path) -> dict[str, str]:
    scan = Freshness(load_workspace(root), watch=False)
    return scan.parts


def test_an_edit_named_by_an_event_is_seen_by_a_stat_not_a_rescan(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo))
    try:
        rescans = freshness.rescans
        entry = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
        entry.write_text(entry.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
        assert freshness.current() is False
        assert freshness.rescans == rescans and freshness.updates == 1
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            assert renewed.parts == _fresh_parts(fresh_demo)
            assert renewed.value == fingerprint(load_workspace(fresh_demo))
            assert changed_parts(freshness.parts, renewed.parts) == {os.fspath(entry.parent.parent)}
        finally:
            renewed.close()
    finally:
        freshness.close()


def test_creates_renames_and_deletes_leave_the_kept_scan_equal_to_a_fresh_one(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo))
    tree = fresh_demo / ".memory" / "tree"
    notes = sorted((fresh_demo / ".zettelkasten").rglob("*.md"))
    try:
        (tree / "note-0000aaaa.md").write_text(ENTRY.format(id="note-0000aaaa", title="Zebra"), encoding="utf-8")
        os.replace(notes[0], notes[0].with_name("renamed-" + notes[0].name))
        notes[1].unlink()
        (tree / "note-0000aaaa.md").write_text(ENTRY.format(id="note-0000aaaa", title="Zebra 2"), encoding="utf-8")
        assert freshness.current() is False
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            assert renewed.rescans == freshness.rescans, "named entries are re-read, the stores are not rescanned"
            assert renewed.parts == _fresh_parts(fresh_demo)
            os.replace(notes[0].with_name("renamed-" + notes[0].name), notes[0])  # and back: the first digest again
            assert renewed.current() is False
            again = renewed.renewed(load_workspace(fresh_demo))
            try:
                assert again.parts == _fresh_parts(fresh_demo)
            finally:
                again.close()
        finally:
            renewed.close()
    finally:
        freshness.close()


def test_a_new_subfolder_is_rescanned_and_watched_so_its_later_edits_are_seen(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo))
    folder = fresh_demo / ".zettelkasten" / "brand-new"
    try:
        rescans = freshness.rescans
        folder.mkdir()
        (folder / "fresh.md").write_text("---\ntitle: Fresh\n---\nA fresh note.\n", encoding="utf-8")
        assert freshness.current() is False
        assert freshness.rescans == rescans + 1, "a folder made is not an entry a stat can read"
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            assert renewed.current() is True
            (folder / "fresh.md").write_text("---\ntitle: Fresh\n---\nA changed note.\n", encoding="utf-8")
            assert renewed.current() is False, "the rescan must have watched the new folder"
        finally:
            renewed.close()
    finally:
        freshness.close()


def test_an_event_in_a_folder_above_the_stores_rescans(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo))
    try:
        rescans = freshness.rescans
        (fresh_demo / ".memory" / "tree").rename(fresh_demo / ".memory" / "moved")
        assert freshness.current() is False
        assert freshness.rescans == rescans + 1
    finally:
        freshness.close()


def test_a_config_edit_is_seen_and_a_renewal_with_other_store_folders_scans_afresh(fresh_demo: Path):
    config = fresh_demo / ".synapse" / "config.yaml"
    freshness = Freshness(load_workspace(fresh_demo))
    try:
        config.write_text(config.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
        assert freshness.current() is False
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            assert renewed.parts == _fresh_parts(fresh_demo)
        finally:
            renewed.close()
    finally:
        freshness.close()
    other = Freshness(load_workspace(fresh_demo))
    (fresh_demo / ".memory" / "tree" / "note-0000aaaa.md").write_text(
        ENTRY.format(id="note-0000aaaa", title="Zebra"), encoding="utf-8"
    )
    assert other.current() is False
    workspace = load_workspace(fresh_demo)
    moved = dataclasses.replace(workspace, config=workspace.config.model_copy(update={"runs": "elsewhere"}))
    renewed = other.renewed(moved)
    try:
        assert renewed.rescans == 1, "a workspace naming other store folders is scanned from nothing"
    finally:
        renewed.close()


def test_a_sweep_stats_every_file_even_with_an_empty_queue(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo), sweep_every_s=0.0)
    try:
        swept = freshness.rescans + freshness.restats
        # With no floor the sweep comes SWEEP_SHARE scan-times after the last scan: milliseconds on the demo.
        assert wait_until(lambda: freshness.current() and freshness.rescans + freshness.restats > swept, 10.0)
        if _local([fresh_demo]):
            assert freshness.restats > 0, "on a local disk a sweep stats the known files without listing folders"
    finally:
        freshness.close()


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


def test_an_edit_through_a_hard_link_no_event_reports_is_found_by_the_rescan_and_never_vouched_for(
    fresh_demo: Path, tmp_path: Path
):
    workspace = load_workspace(fresh_demo)
    stores, freshness = None, Freshness(workspace, sweep_every_s=0.0)
    entry = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    try:
        from synapse_server.workspace.stores import Stores

        stores = Stores.load(workspace)
        outside = tmp_path / "outside"
        outside.mkdir()
        link = outside / entry.name
        os.link(entry, link)  # made after the scan: no event, and no stat at each check
        with link.open("a", encoding="utf-8") as handle:
            handle.write("\nWritten through the link.\n")
        assert wait_until(lambda: not freshness.current(), timeout_s=10.0), "the sweep must find it"
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            assert renewed.vouch is not None and not renewed.vouch.file(os.fspath(entry))
            reloaded = stores.reload(renewed.workspace, changed_parts(freshness.parts, renewed.parts), renewed.vouch)
            assert "Written through the link." in reloaded.nodes["mem:tree:deci-c3d4e5f6"].body
        finally:
            renewed.close()
    finally:
        freshness.close()


def test_a_file_stamped_in_the_tick_of_the_scan_is_never_vouched_for_after_a_rescan(fresh_demo: Path):
    young = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    young.write_text(young.read_text(encoding="utf-8") + "\nJust before the scan.\n", encoding="utf-8")
    freshness = Freshness(load_workspace(fresh_demo))
    try:
        folder = fresh_demo / ".zettelkasten" / "brand-new"
        folder.mkdir()  # a folder event: the next check rescans in full
        (folder / "fresh.md").write_text("---\ntitle: Fresh\n---\nA fresh note.\n", encoding="utf-8")
        rescans = freshness.rescans
        assert freshness.current() is False and freshness.rescans == rescans + 1
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            # Unchanged since the scan, yet written in the scan's own tick (a second write could keep its stamp).
            assert renewed.vouch is not None and not renewed.vouch.file(os.fspath(young))
            assert not renewed.vouch.file(os.fspath(folder / "fresh.md"))
        finally:
            renewed.close()
    finally:
        freshness.close()


def test_only_paths_spelled_as_the_scan_spells_them_inside_a_store_are_vouched_for(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo))
    tree = fresh_demo / ".memory" / "tree"
    try:
        edited = tree / "deci-c3d4e5f6.md"
        edited.write_text(edited.read_text(encoding="utf-8") + "\nAn edit.\n", encoding="utf-8")
        assert freshness.current() is False
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            vouch = renewed.vouch
            assert vouch is not None
            other = next(p for p in sorted(tree.glob("*.md")) if p != edited)
            assert not vouch.file(os.fspath(edited)) and not vouch.folder(os.fspath(tree))
            assert vouch.file(os.fspath(other)), "an entry no event named is vouched for"
            assert not vouch.file(os.fspath(tree) + "/./" + other.name), "another spelling of it is not"
            assert not vouch.file(os.fspath(fresh_demo / ".synapse" / "config.yaml")), "nor a file outside the stores"
            notes = next(p.parent for p in (fresh_demo / ".zettelkasten").rglob("*.md"))
            assert vouch.folder(os.fspath(notes))
        finally:
            renewed.close()
    finally:
        freshness.close()


def test_a_store_on_a_filesystem_that_may_change_without_events_is_swept_by_listing_every_folder(
    fresh_demo: Path,
):
    assert _local([fresh_demo / ".memory"]) == _local([fresh_demo]), "one mount, one answer"
    assert not _local([Path("/proc/self")]), "a virtual filesystem is never trusted to report every change"
    freshness = Freshness(load_workspace(fresh_demo), watch=False)
    try:
        rescans = freshness.rescans
        assert freshness.current() is True
        assert freshness.rescans == rescans + 1 and freshness.restats == 0, "without a watch every check lists"
    finally:
        freshness.close()


def test_a_renewed_check_sweeps_and_sees_edits_like_a_fresh_one(fresh_demo: Path):
    freshness = Freshness(load_workspace(fresh_demo), sweep_every_s=0.0)
    entry = fresh_demo / ".memory" / "tree" / "deci-c3d4e5f6.md"
    try:
        entry.write_text(entry.read_text(encoding="utf-8") + "\nAn edit.\n", encoding="utf-8")
        assert wait_until(lambda: not freshness.current(), timeout_s=10.0)
        renewed = freshness.renewed(load_workspace(fresh_demo))
        try:
            fresh = Freshness(load_workspace(fresh_demo), watch=False)
            assert vars(renewed).keys() == vars(fresh).keys(), "a renewed check carries every field a fresh one has"
            swept = renewed.rescans + renewed.restats
            assert wait_until(lambda: renewed.current() and renewed.rescans + renewed.restats > swept, 10.0)
            entry.write_text(entry.read_text(encoding="utf-8") + "\nAnother edit.\n", encoding="utf-8")
            assert renewed.current() is False
        finally:
            renewed.close()
    finally:
        freshness.close()
