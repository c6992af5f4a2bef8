"""A running server sees every store change at the next call, and an unchanged workspace costs no rescan."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.freshness import Freshness
from synapse_server.workspace.inotify import DirectoryWatch

pytestmark = pytest.mark.both_backends

ENTRY = "---\nid: note-0000aaaa\nkind: note\ntitle: {title}\nparent: root-5e1f0a2b\n---\nZebra liquidity dried up.\n"


def _deps(root: Path, embedder: Embedder | None = None, *, watch: bool = True) -> Deps:
    return Deps(ServerSettings(root=root, prespawn=False), embedder=embedder, watch=watch)


def _titles(deps: Deps) -> dict[str, str]:
    return {a: n.title for a, n in deps.stores().nodes.items()}


@pytest.fixture(params=[True, False], ids=["watched", "scanned"])
def watch(request: pytest.FixtureRequest) -> bool:
    """Every case runs with the inotify watch and with full scans (where inotify is missing)."""
    if request.param and DirectoryWatch.create() is None:
        pytest.skip("inotify is not available here")
    return bool(request.param)


def test_an_unchanged_workspace_is_checked_without_rescanning_the_stores(fresh_demo: Path):
    deps = _deps(fresh_demo)
    try:
        deps.stores()
        freshness = deps.freshness
        if not freshness.watched:
            pytest.skip("inotify is not available here: every check rescans")
        before = freshness.rescans
        for _ in range(5):
            deps.workspace(), deps.stores()
        assert deps.freshness is freshness and freshness.rescans == before
    finally:
        deps.close()


def test_each_kind_of_store_change_is_seen_by_the_next_call(fresh_demo: Path, watch: bool):
    deps = _deps(fresh_demo, watch=watch)
    tree = fresh_demo / ".memory" / "tree"
    entry = tree / "note-0000aaaa.md"
    try:
        assert "mem:tree:note-0000aaaa" not in _titles(deps)
        entry.write_text(ENTRY.format(title="Zebra liquidity"), encoding="utf-8")  # a new file
        assert _titles(deps)["mem:tree:note-0000aaaa"] == "Zebra liquidity"
        with entry.open("r+", encoding="utf-8") as handle:  # an edit in place, same size
            text = handle.read()
            handle.seek(0)
            handle.write(text.replace("Zebra liquidity", "Zebra volatility"[:15]))
        assert _titles(deps)["mem:tree:note-0000aaaa"] == "Zebra volatilit"
        replacement = tree / ".tmp-note"
        replacement.write_text(ENTRY.format(title="Renamed over"), encoding="utf-8")
        os.replace(replacement, entry)  # an editor's atomic save
        assert _titles(deps)["mem:tree:note-0000aaaa"] == "Renamed over"
        entry.unlink()
        assert "mem:tree:note-0000aaaa" not in _titles(deps)
    finally:
        deps.close()


def test_a_note_in_a_new_folder_and_a_removed_store_are_seen(fresh_demo: Path, watch: bool):
    deps = _deps(fresh_demo, watch=watch)
    try:
        before = _titles(deps)
        project = fresh_demo / ".zettelkasten" / "zebra"
        project.mkdir()
        (project / "notes").mkdir()  # two new folders, the note in the innermost
        note = project / "notes" / "20260101-0000-zebra.md"
        note.write_text(
            "---\nid: 20260101-0000-zebra\ntype: concept\ntitle: Zebra concept\n---\nZebras trade on Fridays.\n",
            encoding="utf-8",
        )
        after = _titles(deps)
        assert set(after) - set(before) == {"zk:zebra:20260101-0000-zebra"}
        shutil.rmtree(fresh_demo / "runs")
        assert not any(a.startswith("data:") for a in _titles(deps))
    finally:
        deps.close()


def test_a_config_change_is_seen_and_a_broken_config_stays_an_error_until_fixed(fresh_demo: Path, watch: bool):
    deps = _deps(fresh_demo, watch=watch)
    config = fresh_demo / ".synapse" / "config.yaml"
    original = config.read_text(encoding="utf-8")
    try:
        assert deps.write_free() is False
        config.write_text(original + "\nwrite_free: true\n", encoding="utf-8")
        assert deps.write_free() is True
        config.write_text(original + "\nno_such_key: 1\n", encoding="utf-8")
        for _ in range(2):  # the second call must not fall back on the last good load
            with pytest.raises(Exception, match="no_such_key"):
                deps.workspace()
        config.write_text(original, encoding="utf-8")
        assert deps.write_free() is False
    finally:
        deps.close()


def test_a_commit_is_seen_through_the_git_head(fresh_demo: Path):
    import git

    workspace = load_workspace(fresh_demo)
    freshness = Freshness(workspace)
    try:
        assert freshness.current()
        repo = git.Repo(fresh_demo)
        (fresh_demo / "NEW.md").write_text("a new file at HEAD\n", encoding="utf-8")
        repo.index.add(["NEW.md"])
        repo.index.commit("add a file")
        assert not freshness.current()
    finally:
        freshness.close()


def test_a_search_sees_a_new_entry_written_while_the_server_runs(fresh_demo: Path, embedder: Embedder):
    from synapse_server.actions.search import SearchParams, search

    deps = _deps(fresh_demo, embedder)
    try:
        first = search(deps, SearchParams(query="zebra liquidity", projects=[]))
        assert all(h.address != "mem:tree:note-0000aaaa" for h in first.hits)
        (fresh_demo / ".memory" / "tree" / "note-0000aaaa.md").write_text(
            ENTRY.format(title="Zebra liquidity note"), encoding="utf-8"
        )
        second = search(deps, SearchParams(query="zebra liquidity", projects=[]))
        assert second.hits[0].address == "mem:tree:note-0000aaaa"
    finally:
        deps.close()


def test_the_server_reloads_an_edit_by_parsing_one_file_and_writing_one_document(
    fresh_demo: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
):
    from adapters import file_memo
    from synapse_server.actions.search import SearchParams, search

    monkeypatch.setattr(file_memo, "SETTLE_NS", 0)  # the demo was written just now: let its files vouch
    deps = _deps(fresh_demo, embedder)
    try:
        search(deps, SearchParams(query="liquidity", projects=[]))
        with deps.index_lock:
            store_class = type(deps.index().store)

        def every_row(*_: object) -> None:
            raise AssertionError("a reload after one edit read a snapshot of every row")

        monkeypatch.setattr(store_class, "snapshot", every_row)
        path = fresh_demo / ".memory" / "tree" / "deci-e17103e8.md"
        path.write_text(path.read_text(encoding="utf-8") + "\nZebra crossings were priced in.\n", encoding="utf-8")
        second = search(deps, SearchParams(query="zebra crossings priced", projects=[]))
        assert second.hits[0].address == "mem:tree:deci-e17103e8"
        memo = next(load.memo for load in deps.stores().loads if load.kind == "memory")
        assert memo is not None and memo.parsed == 1
        with deps.index_lock:
            synced = deps.index().last_sync
        assert synced is not None and (synced.added, synced.updated, synced.removed) == (0, 1, 0)
        monkeypatch.undo()
        full = Deps(ServerSettings(root=fresh_demo, prespawn=False), embedder=embedder, watch=False)
        try:
            assert list(full.stores().nodes.values()) == list(deps.stores().nodes.values())
            assert search(full, SearchParams(query="zebra crossings priced", projects=[])).hits == second.hits
        finally:
            full.close()
    finally:
        deps.close()


def test_a_single_file_store_is_fingerprinted_and_its_edits_seen(tmp_path: Path):
    from synapse_server.workspace.freshness import _walk

    target = tmp_path / "decisions.mem"
    target.write_text("one\n", encoding="utf-8")
    watch = DirectoryWatch.create()
    folders: dict[str, dict[str, str | None]] = {}
    try:
        assert [p for p, _ in _walk(target, watch, folders, "k")] == [str(target)]
        assert folders == {str(tmp_path): {"k": "decisions.mem"}}, "its folder's other entries are not its own"
        if watch is not None:
            assert watch.changed() is False
            target.write_text("two\n", encoding="utf-8")
            assert watch.changed() is True
    finally:
        if watch is not None:
            watch.close()
