"""A reload after one edited file parses that file alone, and still equals a full load of the edited files.

The stores keep each file's parse under its stat stamp (:class:`adapters.file_memo.FileMemo`); these pin
what may be reused and, for each shortcut, the misreading it must not make: a record whose parse reads
another file, a node whose children live in other files, a config that renames what a file means.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters import file_memo
from adapters.file_memo import FileMemo
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.freshness import Freshness, changed_parts
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.inotify import DirectoryWatch
from synapse_server.workspace.stores import Stores


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh demo whose files count as settled (written long enough ago to vouch for their content)."""
    monkeypatch.setattr(file_memo, "SETTLE_NS", 0)
    return make_demo(tmp_path / "demo")


def _memo(stores: Stores, kind: str) -> FileMemo:
    memo = next(load.memo for load in stores.loads if load.kind == kind)
    assert memo is not None
    return memo


@pytest.fixture(params=[False, True], ids=["stamps", "events"])
def watch(request: pytest.FixtureRequest) -> bool:
    """Each case runs as a reload after a full fingerprint (every stamp compared) and as the server runs it
    after an inotify event: the renewed check vouches for the files no event named, read without a stat."""
    if request.param and DirectoryWatch.create() is None:
        pytest.skip("inotify is not available here")
    return bool(request.param)


def _reload(root: Path, earlier: Stores, before: Freshness) -> Stores:
    workspace = load_workspace(root)
    if not before.watched:
        return earlier.reload(workspace, changed_parts(before.parts, Freshness(workspace, watch=False).parts))
    assert not before.current()
    after = before.renewed(workspace)
    try:
        assert after.vouch is not None
        return earlier.reload(workspace, changed_parts(before.parts, after.parts), after.vouch)
    finally:
        after.close()


def _load(root: Path, watch: bool) -> tuple[Stores, Freshness]:
    workspace = load_workspace(root)
    freshness = Freshness(workspace, watch=watch)  # scanned before the load, as the server and template do
    return Stores.load(workspace), freshness


def _same_as_full_load(stores: Stores, root: Path) -> None:
    full = Stores.load(load_workspace(root))
    assert list(stores.nodes.values()) == list(full.nodes.values())
    assert stores.diagnostics == full.diagnostics


def test_one_edited_memory_entry_is_the_only_file_parsed_again(root: Path, watch: bool) -> None:
    earlier, before = _load(root, watch)
    entries = len(_memo(earlier, "memory"))
    path = root / ".memory" / "tree" / "deci-e17103e8.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nA line written after the load.\n", encoding="utf-8")
    reloaded = _reload(root, earlier, before)
    memo = _memo(reloaded, "memory")
    assert (memo.parsed, memo.hits) == (1, entries - 1)
    assert "A line written after the load." in reloaded.nodes["mem:tree:deci-e17103e8"].body
    untouched = [a for a, n in earlier.nodes.items() if n.family == "memory" and a != "mem:tree:deci-e17103e8"]
    assert untouched and all(reloaded.nodes[a] is earlier.nodes[a] for a in untouched)
    _same_as_full_load(reloaded, root)


def test_a_moved_parent_rebuilds_both_parents_children_though_their_files_did_not_change(
    root: Path, watch: bool
) -> None:
    earlier, before = _load(root, watch)
    child = next(n for n in earlier.nodes.values() if n.family == "memory" and n.meta.get("parent"))
    old_parent = f"mem:tree:{child.meta['parent']}"
    new_parent = next(
        a for a, n in earlier.nodes.items() if n.family == "memory" and a not in (old_parent, child.address)
    )
    path = root / str(child.path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(f"parent: {child.meta['parent']}", f"parent: {new_parent.split(':')[-1]}", 1))
    reloaded = _reload(root, earlier, before)
    assert _memo(reloaded, "memory").parsed == 1
    assert child.address not in {e.dst for e in reloaded.nodes[old_parent].edges if e.rel == "child"}
    assert child.address in {e.dst for e in reloaded.nodes[new_parent].edges if e.rel == "child"}
    _same_as_full_load(reloaded, root)


def test_a_source_whose_cached_text_changed_is_read_again_though_its_record_did_not(root: Path, watch: bool) -> None:
    earlier, before = _load(root, watch)
    text = root / ".zettelkasten" / "execution" / "sources" / "texts" / "moreau-2020.txt"
    text.write_text(text.read_text(encoding="utf-8") + "\nA paragraph the record never changed for.\n")
    reloaded = _reload(root, earlier, before)
    node = reloaded.nodes["zk:execution:moreau-2020"]
    assert node is not earlier.nodes["zk:execution:moreau-2020"]
    assert _memo(reloaded, "zettelkasten").parsed == 1  # no note moved: only the source was read again
    _same_as_full_load(reloaded, root)


def test_a_source_whose_missing_text_appears_loses_its_dangling_warning_on_reload(root: Path, watch: bool) -> None:
    record = root / ".zettelkasten" / "execution" / "sources" / "moreau-2020.yaml"
    text = root / ".zettelkasten" / "execution" / "sources" / "texts" / "moreau-2020.txt"
    kept = text.read_text(encoding="utf-8")
    text.unlink()
    earlier, before = _load(root, watch)
    assert any(d.code == "dangling-ref" and d.path.endswith("moreau-2020.yaml") for d in earlier.diagnostics)
    text.write_text(kept, encoding="utf-8")
    reloaded = _reload(root, earlier, before)
    assert not any(d.code == "dangling-ref" and d.path.endswith(record.name) for d in reloaded.diagnostics)
    _same_as_full_load(reloaded, root)


def test_a_rewrite_that_keeps_size_and_mtime_is_still_seen_by_its_ctime(root: Path, watch: bool) -> None:
    earlier, before = _load(root, watch)
    path = next((root / ".zettelkasten" / "research" / "notes").glob("*.md"))
    st = os.stat(path)
    text = path.read_text(encoding="utf-8")
    changed = text.replace("momentum", "MOMENTUM", 1)
    assert changed != text and len(changed) == len(text)
    path.write_text(changed, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime set back, as a careless tool might
    reloaded = _reload(root, earlier, before)
    assert _memo(reloaded, "zettelkasten").parsed == 1
    _same_as_full_load(reloaded, root)


def test_a_config_edit_parses_every_file_again(root: Path, watch: bool) -> None:
    earlier, before = _load(root, watch)
    config = root / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    reloaded = _reload(root, earlier, before)
    assert _memo(reloaded, "memory").hits == 0 and _memo(reloaded, "zettelkasten").hits == 0
    _same_as_full_load(reloaded, root)


def test_a_deleted_entry_leaves_no_node_and_the_memo_forgets_it(root: Path, watch: bool) -> None:
    earlier, before = _load(root, watch)
    entries = len(_memo(earlier, "memory"))
    (root / ".memory" / "tree" / "anno-e8f9a0b1.md").unlink()
    reloaded = _reload(root, earlier, before)
    assert "mem:tree:anno-e8f9a0b1" not in reloaded.nodes
    assert len(_memo(reloaded, "memory")) == entries - 1 and _memo(reloaded, "memory").parsed == 0
    _same_as_full_load(reloaded, root)


def test_a_new_entry_is_listed_though_every_other_listing_and_parse_is_reused(root: Path, watch: bool) -> None:
    earlier, before = _load(root, watch)
    text = "---\nid: note-00c0ffee\nkind: note\ntitle: A new note\nparent: root-5e1f0a2b\n---\nFresh text.\n"
    (root / ".memory" / "tree" / "note-00c0ffee.md").write_text(text, encoding="utf-8")
    reloaded = _reload(root, earlier, before)
    assert "mem:tree:note-00c0ffee" in reloaded.nodes and _memo(reloaded, "memory").parsed == 1
    _same_as_full_load(reloaded, root)


def test_a_file_written_within_the_settling_time_is_parsed_again_at_every_reload(
    root: Path, watch: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_memo, "SETTLE_NS", 3600 * 10**9)  # every file here is younger than an hour
    earlier, before = _load(root, watch)
    entries = len(list((root / ".memory" / "tree").glob("*.md")))
    path = root / ".memory" / "tree" / "deci-e17103e8.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    reloaded = _reload(root, earlier, before)
    memo = _memo(reloaded, "memory")
    assert (memo.hits, memo.parsed, len(memo)) == (0, entries, 0)  # nothing vouched for, nothing kept
    _same_as_full_load(reloaded, root)
