"""A reload after an event names a file patches the store's earlier read at that file, and only where the
new parse fits in place; every other edit reads the folder whole. Either way the stores equal a full load.

Each hostile case is an edit whose new parse would be wrong to drop into the old slot: an id moved onto
another note's, a duplicate that may now be admitted, a broken file, a new parent or supersession link
(which change other entries' nodes).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters import file_memo
from adapters.file_memo import FileMemo
from adapters.store_patch import PATCH_MAX, FolderRead, rereads
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.freshness import Freshness, changed_parts
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.inotify import DirectoryWatch
from synapse_server.workspace.stores import Stores

NOTES = Path(".zettelkasten") / "execution" / "notes"
TREE = Path(".memory") / "tree"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    if DirectoryWatch.create() is None:
        pytest.skip("inotify is not available here")
    monkeypatch.setattr(file_memo, "SETTLE_NS", 0)  # every demo file counts as written long ago
    yield make_demo(tmp_path / "demo")


def _memo(stores: Stores, kind: str) -> FileMemo:
    memo = next(load.memo for load in stores.loads if load.kind == kind)
    assert memo is not None
    return memo


class Loaded:
    """A workspace loaded and watched, reloaded after an edit the way the server and the template do."""

    def __init__(self, root: Path) -> None:
        self.root = root
        workspace = load_workspace(root)
        self.freshness = Freshness(workspace)
        self.stores = Stores.load(workspace)

    def reload(self) -> Stores:
        workspace = load_workspace(self.root)
        assert not self.freshness.current()
        after = self.freshness.renewed(workspace)
        try:
            return self.stores.reload(workspace, changed_parts(self.freshness.parts, after.parts), after.vouch)
        finally:
            after.close()
            self.freshness.close()

    def replace(self, relative: Path, old: str, new: str) -> None:
        path = self.root / relative
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def loaded(root: Path) -> Iterator[Loaded]:
    state = Loaded(root)
    yield state
    state.freshness.close()


def _same_as_full_load(stores: Stores, root: Path) -> None:
    full = Stores.load(load_workspace(root))
    assert list(stores.nodes) == list(full.nodes)
    assert list(stores.nodes.values()) == list(full.nodes.values())
    assert stores.diagnostics == full.diagnostics
    assert [load.result for load in stores.loads] == [load.result for load in full.loads]


def _files(root: Path, folder: Path) -> int:
    return len(list((root / folder).glob("*.md")))


def test_an_edited_note_is_parsed_alone_and_every_other_note_is_kept_unasked(loaded: Loaded, root: Path) -> None:
    note = NOTES / "20260525-0915-impact-coefficient.md"
    loaded.replace(note, "---\n", "---\ntags: [edited]\n")
    stores = loaded.reload()
    memo = _memo(stores, "zettelkasten")
    notes = sum(1 for _ in (root / ".zettelkasten").glob("*/notes/*.md"))
    assert memo.parsed == 1 and memo.unasked == notes - 1  # no lookup for the notes no event named
    assert stores.nodes["zk:execution:20260525-0915-impact-coefficient"].meta["tags"] == ("edited",)
    _same_as_full_load(stores, root)


def test_an_edited_entry_is_parsed_alone_and_only_its_node_is_built_again(loaded: Loaded, root: Path) -> None:
    earlier = loaded.stores
    entry = root / TREE / "deci-e17103e8.md"
    entry.write_text(entry.read_text(encoding="utf-8") + "\nA line written after the load.\n", encoding="utf-8")
    stores = loaded.reload()
    memo = _memo(stores, "memory")
    assert (memo.parsed, memo.unasked) == (1, _files(root, TREE) - 1)
    rebuilt = {a for a, n in stores.nodes.items() if n.family == "memory" and earlier.nodes[a] is not n}
    assert rebuilt == {"mem:tree:deci-e17103e8"}
    assert "A line written after the load." in stores.nodes["mem:tree:deci-e17103e8"].body
    _same_as_full_load(stores, root)


def test_a_note_given_another_notes_id_is_a_duplicate_not_a_swap(loaded: Loaded, root: Path) -> None:
    taken = "20260525-0900-square-root-impact"
    loaded.replace(
        NOTES / "20260525-0915-impact-coefficient.md", "id: 20260525-0915-impact-coefficient", f"id: {taken}"
    )
    stores = loaded.reload()
    assert "zk:execution:20260525-0915-impact-coefficient" not in stores.nodes
    assert stores.nodes[f"zk:execution:{taken}"].path.endswith("20260525-0900-square-root-impact.md")
    assert any(d.code == "duplicate-id" and "impact-coefficient" in d.path for d in stores.diagnostics)
    _same_as_full_load(stores, root)


def test_a_duplicate_given_a_fresh_id_is_admitted_on_the_next_reload(root: Path) -> None:
    note = root / NOTES / "20260525-0915-impact-coefficient.md"
    note.write_text(note.read_text(encoding="utf-8").replace("0915-impact-coefficient", "0900-square-root-impact", 1))
    state = Loaded(root)  # loaded with the duplicate: its file is dropped
    assert "zk:execution:20260525-0915-impact-coefficient" not in state.stores.nodes
    state.replace(NOTES / note.name, "id: 20260525-0900-square-root-impact", "id: 20260525-0915-impact-coefficient")
    stores = state.reload()
    assert "zk:execution:20260525-0915-impact-coefficient" in stores.nodes
    assert not any(d.code == "duplicate-id" for d in stores.diagnostics)
    _same_as_full_load(stores, root)


def test_an_edited_duplicate_stays_dropped_and_never_displaces_the_note_it_duplicates(root: Path) -> None:
    note = root / NOTES / "20260525-0915-impact-coefficient.md"
    note.write_text(note.read_text(encoding="utf-8").replace("0915-impact-coefficient", "0900-square-root-impact", 1))
    state = Loaded(root)
    first = state.stores.nodes["zk:execution:20260525-0900-square-root-impact"]
    note.write_text(note.read_text(encoding="utf-8") + "\nThe duplicate, edited.\n", encoding="utf-8")
    stores = state.reload()
    assert stores.nodes["zk:execution:20260525-0900-square-root-impact"] == first
    assert any(d.code == "duplicate-id" and note.name in d.path for d in stores.diagnostics)
    _same_as_full_load(stores, root)


CLAIM = "zk:research:20260505-0900-volatility-scaling-helps"
DEBATE = Path(".zettelkasten") / "research" / "debate.yaml"


def test_an_unchanged_contested_claim_stays_the_earlier_object(loaded: Loaded, root: Path) -> None:
    earlier = loaded.stores
    assert earlier.nodes[CLAIM].meta["contested"] is True
    loaded.replace(NOTES / "20260525-0915-impact-coefficient.md", "---\n", "---\ntags: [edited]\n")
    stores = loaded.reload()
    assert stores.nodes[CLAIM] is earlier.nodes[CLAIM]  # nothing it is made of moved
    assert stores.moved == {"zk:execution:20260525-0915-impact-coefficient"}


def test_an_edited_debate_entry_marks_its_claim_anew(loaded: Loaded, root: Path) -> None:
    loaded.replace(DEBATE, "nearly disappears.", "disappears entirely.")
    stores = loaded.reload()
    assert stores.nodes[CLAIM].meta["debate"][0]["rationale"].endswith("disappears entirely.")
    _same_as_full_load(stores, root)


def test_an_edited_contested_claim_keeps_its_mark(loaded: Loaded, root: Path) -> None:
    claim = root / ".zettelkasten" / "research" / "notes" / "20260505-0900-volatility-scaling-helps.md"
    claim.write_text(claim.read_text(encoding="utf-8") + "\nA line written after the load.\n", encoding="utf-8")
    stores = loaded.reload()
    node = stores.nodes[CLAIM]
    assert node.meta["contested"] is True and "A line written after the load." in node.body
    assert any(e.rel == "contested-by" for e in node.edges)
    _same_as_full_load(stores, root)


def test_a_broken_note_loses_its_node_and_says_why(loaded: Loaded, root: Path) -> None:
    (root / NOTES / "20260525-0915-impact-coefficient.md").write_text("---\ntitle: [broken\n", encoding="utf-8")
    stores = loaded.reload()
    assert "zk:execution:20260525-0915-impact-coefficient" not in stores.nodes
    assert any("impact-coefficient" in d.path and d.severity == "error" for d in stores.diagnostics)
    _same_as_full_load(stores, root)


def test_an_entry_that_now_supersedes_another_mirrors_the_edge_onto_it(loaded: Loaded, root: Path) -> None:
    target = next(
        a
        for a, n in loaded.stores.nodes.items()
        if n.family == "memory" and a != "mem:tree:deci-e17103e8" and not n.meta.get("supersedes")
    )
    loaded.replace(TREE / "deci-e17103e8.md", "---\n", f"---\nsupersedes: {target.split(':')[-1]}\n")
    stores = loaded.reload()
    assert any(e.rel == "superseded-by" and e.dst == "mem:tree:deci-e17103e8" for e in stores.nodes[target].edges)
    _same_as_full_load(stores, root)


def test_an_entry_given_a_new_id_moves_its_children_warnings_with_it(loaded: Loaded, root: Path) -> None:
    loaded.replace(TREE / "deci-e17103e8.md", "id: deci-e17103e8", "id: deci-0000beef")
    stores = loaded.reload()
    assert "mem:tree:deci-0000beef" in stores.nodes and "mem:tree:deci-e17103e8" not in stores.nodes
    _same_as_full_load(stores, root)


def test_a_patch_rereads_what_its_last_read_did_not_keep_and_gives_up_past_its_limit(tmp_path: Path) -> None:
    listing = [tmp_path / f"{i}.md" for i in range(PATCH_MAX + 10)]
    keys = tuple(str(p) for p in listing)
    earlier = FolderRead(listing, keys, {k: i for i, k in enumerate(keys)}, frozenset({3}))

    class Named:
        def __init__(self, edited: frozenset[str] | None) -> None:
            self.named = edited

        def file(self, path: str) -> bool:
            return False

        def folder(self, path: str) -> bool:
            return False

        def edited(self, folder: str) -> frozenset[str] | None:
            return self.named

    assert rereads(FileMemo(None, Named(frozenset({keys[7]}))), tmp_path, earlier, listing) == [3, 7]
    assert rereads(FileMemo(None, Named(frozenset())), tmp_path, earlier, list(listing)) == [3]  # equal listing
    assert rereads(FileMemo(None, Named(None)), tmp_path, earlier, listing) is None  # folder not watched whole
    assert rereads(FileMemo(None, None), tmp_path, earlier, listing) is None  # no freshness check
    assert rereads(FileMemo(None, Named(frozenset())), tmp_path, earlier, listing[1:]) is None  # listing moved
    assert rereads(FileMemo(None, Named(frozenset(keys))), tmp_path, earlier, listing) is None  # too many named
    assert rereads(FileMemo(None, Named(frozenset())), tmp_path, None, listing) is None  # nothing read before
