"""A reload after an edit reads only the stores the edit touched, and gives exactly what a full load gives.

Each case edits real files in a private demo workspace (with an adopted notes
vault beside the native stores and the git-backed code store), reloads from
the earlier load with the inputs that moved, and compares node by node,
diagnostic by diagnostic, with a full :meth:`Stores.load` of the same files.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from adapters.base import TetherKind
from adapters.resolvers import CitationResolver, RunResolver
from synapse_server.navigation.view import Graph
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.freshness import Freshness, changed_parts
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

Edit = Callable[[Path], None]


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = make_demo(tmp_path / "demo")
    config = root / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "sources: [{kind: notes, path: vault}]\n", encoding="utf-8")
    vault = root / "vault"
    vault.mkdir()
    (vault / "Costs.md").write_text("# Costs\n\nSpread and impact, see [[Momentum]].\n", encoding="utf-8")
    (vault / "Momentum.md").write_text("# Momentum\n\nTwelve-one momentum.\n", encoding="utf-8")
    return root


def _memory_file(root: Path, stem: str = "deci-e17103e8") -> Path:
    return root / ".memory" / "tree" / f"{stem}.md"


def _zk_note(root: Path) -> Path:
    return sorted((root / ".zettelkasten").glob("*/notes/*.md"))[0]


def change_memory_id(root: Path) -> None:
    path = _memory_file(root)
    path.write_text(path.read_text(encoding="utf-8").replace("id: deci-e17103e8", "id: deci-0000beef", 1))


def edit_memory_file(root: Path) -> None:
    path = _memory_file(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more line after an edit.\n", encoding="utf-8")


def delete_memory_file(root: Path) -> None:
    _memory_file(root, "anno-e8f9a0b1").unlink()


def add_memory_file(root: Path) -> None:
    text = "---\nid: note-00c0ffee\nkind: note\ntitle: A new note\nparent: root-5e1f0a2b\n---\nFresh text.\n"
    _memory_file(root, "note-00c0ffee").write_text(text, encoding="utf-8")


def break_memory_file(root: Path) -> None:
    _memory_file(root).write_text("---\nid: [unclosed\n---\nbody\n", encoding="utf-8")


def edit_zk_note(root: Path) -> None:
    path = _zk_note(root)
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more line after an edit.\n", encoding="utf-8")


def break_zk_note(root: Path) -> None:
    _zk_note(root).write_text("---\ntitle: [broken\n", encoding="utf-8")


def repin_source_record(root: Path) -> None:
    """A source record's hash changed in place: the citation resolver's catalog must follow it."""
    path = root / ".zettelkasten" / "execution" / "sources" / "moreau-2020.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('sha256: "a1735e92', 'sha256: "00000000', 1), encoding="utf-8")


def rename_zk_note(root: Path) -> None:
    """The same id from another file: the address stays, the file it is read from does not."""
    path = _zk_note(root)
    path.rename(path.with_name("renamed-" + path.name))


def edit_vault(root: Path) -> None:
    (root / "vault" / "Momentum.md").write_text("# Momentum\n\nNow cites [[Costs]].\n", encoding="utf-8")


def delete_vault_file(root: Path) -> None:
    (root / "vault" / "Costs.md").unlink()


def commit_code(root: Path) -> None:
    (root / "extra.py").write_text("VALUE = 1\n", encoding="utf-8")
    subprocess.run(["git", "add", "extra.py"], cwd=root, check=True, capture_output=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "extra"],
        cwd=root,
        check=True,
        capture_output=True,
    )


def edit_config(root: Path) -> None:
    config = root / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("path: vault", "path: vault2"), encoding="utf-8")
    (root / "vault").rename(root / "vault2")


EDITS: dict[str, tuple[Edit, set[str]]] = {
    # edit -> the stores (labels) that must be read again; every other store is the earlier load's own object
    "memory entry edited": (edit_memory_file, {"memory .memory"}),
    "memory id changed": (change_memory_id, {"memory .memory"}),
    "memory file deleted": (delete_memory_file, {"memory .memory"}),
    "memory file added": (add_memory_file, {"memory .memory"}),
    "memory file broken": (break_memory_file, {"memory .memory"}),
    "zettelkasten note edited": (edit_zk_note, {"zettelkasten .zettelkasten"}),
    "zettelkasten note broken": (break_zk_note, {"zettelkasten .zettelkasten"}),
    "zettelkasten note renamed": (rename_zk_note, {"zettelkasten .zettelkasten"}),
    "source record repinned": (repin_source_record, {"zettelkasten .zettelkasten"}),
    "vault note edited": (edit_vault, {"notes vault", "code ."}),
    "vault note deleted": (delete_vault_file, {"notes vault", "code ."}),
    "code committed": (commit_code, {"runs runs", "notes vault", "code ."}),
}


def _reload(root: Path, edit: Edit) -> tuple[Stores, Stores, Stores]:
    """The earlier load, the incremental reload after ``edit``, and a full load of the edited files."""
    workspace = load_workspace(root)
    before = Freshness(workspace, watch=False)
    earlier = Stores.load(workspace)
    assert earlier.index_docs  # as the template holds them: the reload patches them
    edit(root)
    workspace = load_workspace(root)
    after = Freshness(workspace, watch=False)
    reloaded = earlier.reload(workspace, changed_parts(before.parts, after.parts))
    return earlier, reloaded, Stores.load(workspace)


def _tables(stores: Stores) -> tuple[object, ...]:
    """What the resolvers were built from: run hashes, committed runs, the source catalog."""
    runs, citations = stores.resolvers.by_kind[TetherKind.RUN], stores.resolvers.by_kind[TetherKind.CITATION]
    assert isinstance(runs, RunResolver) and isinstance(citations, CitationResolver)
    return dict(runs.run_hashes), set(runs.committed), dict(citations.sources)


def _same(reloaded: Stores, full: Stores) -> None:
    assert list(reloaded.nodes) == list(full.nodes)
    assert list(reloaded.nodes.values()) == list(full.nodes.values())
    assert reloaded.diagnostics == full.diagnostics
    assert reloaded.failures == full.failures
    assert [load.label for load in reloaded.loads] == [load.label for load in full.loads]
    assert [load.result for load in reloaded.loads] == [load.result for load in full.loads]
    assert _tables(reloaded) == _tables(full)
    assert reloaded.index_docs == full.index_docs


def _graph_same(earlier: Stores, reloaded: Stores, full: Stores) -> None:
    """The graph a template keeps, carried over the reload as the template does, equals one built afresh."""
    projects = sorted({a.split(":")[1] for a in full.nodes if a.startswith("zk:")})
    graph = Graph.build(earlier.scoped(projects))
    if reloaded.moved is None:
        carried = Graph.updated(graph, reloaded.scoped(projects))
    else:
        carried = Graph.swapped(graph, reloaded.nodes, reloaded.moved)
    fresh = Graph.build(full.scoped(projects))
    assert carried.nodes == fresh.nodes and list(carried.nodes) == list(fresh.nodes)
    assert carried.out_edges == fresh.out_edges and carried.in_edges == fresh.in_edges


@pytest.mark.parametrize("name", sorted(EDITS))
def test_reload_after_an_edit_equals_a_full_load_and_reads_only_the_touched_stores(
    workspace_root: Path, name: str
) -> None:
    edit, reread = EDITS[name]
    earlier, reloaded, full = _reload(workspace_root, edit)
    _same(reloaded, full)
    _graph_same(earlier, reloaded, full)
    assert reloaded.nodes != earlier.nodes or reloaded.diagnostics != earlier.diagnostics  # the edit showed
    previous = {load.label: load for load in earlier.loads}
    read_again = {load.label for load in reloaded.loads if previous.get(load.label) is not load}
    assert read_again == reread


IN_PLACE = {"memory entry edited", "zettelkasten note edited", "source record repinned", "vault note edited"}
"""Edits after which every address is where it was, read from the same file (a broken file loses its node, a
renamed one keeps its address from another file, a commit adds a file)."""


@pytest.mark.parametrize("name", sorted(EDITS))
def test_only_a_reload_that_kept_every_address_in_place_names_the_moved_nodes(workspace_root: Path, name: str) -> None:
    earlier, reloaded, _ = _reload(workspace_root, EDITS[name][0])
    if name not in IN_PLACE:
        assert reloaded.moved is None  # an address came, went or was renamed: everything is compared
        return
    assert reloaded.moved is not None
    assert reloaded.moved == {a for a, n in reloaded.nodes.items() if earlier.nodes[a] is not n}
    assert set(reloaded.nodes) == set(earlier.nodes)


def test_a_config_edit_reads_every_store_again(workspace_root: Path) -> None:
    earlier, reloaded, full = _reload(workspace_root, edit_config)
    _same(reloaded, full)
    assert "notes vault2" in {load.label for load in reloaded.loads}
    assert not {id(load) for load in earlier.loads} & {id(load) for load in reloaded.loads}


def test_a_store_that_failed_is_read_again_even_when_its_folder_did_not_move(workspace_root: Path) -> None:
    from dataclasses import replace

    from synapse_server.workspace.loading import LoadFailure

    workspace = load_workspace(workspace_root)
    earlier = Stores.load(workspace)
    failed = tuple(
        replace(load, failure=LoadFailure("OSError", "x")) if load.kind == "memory" else load for load in earlier.loads
    )
    reloaded = replace(earlier, loads=failed).reload(workspace, frozenset())
    _same(reloaded, Stores.load(workspace))
    assert next(load for load in reloaded.loads if load.kind == "memory").failure is None


def test_nothing_changed_reuses_every_store(workspace_root: Path) -> None:
    workspace = load_workspace(workspace_root)
    earlier = Stores.load(workspace)
    reloaded = earlier.reload(workspace, frozenset())
    assert all(a is b for a, b in zip(earlier.loads, reloaded.loads, strict=True))
    _same(reloaded, earlier)


def test_the_template_reloads_only_the_edited_store_and_embeds_only_the_edited_document(
    workspace_root: Path,
) -> None:
    from synapse_server.isolation.turn import preload
    from synapse_server.isolation.worker import Warm, refresh
    from tests.support.index_corpus import CountingEncoder, HashEncoder

    encoder = CountingEncoder(HashEncoder())
    warm = Warm(encoder, repr(None), None)
    refresh(warm, workspace_root)
    try:
        loaded = warm.preloaded
        assert loaded is not None
        encoder.texts.clear()
        path = _memory_file(workspace_root)
        path.write_text(path.read_text(encoding="utf-8") + "\nA sentence added after the load.\n", encoding="utf-8")
        refresh(warm, workspace_root)
        assert warm.preloaded is not None and warm.preloaded is not loaded
        stores = warm.preloaded.stores
        kept = {load.label for load in stores.loads if any(load is old for old in loaded.stores.loads)}
        assert kept == {load.label for load in stores.loads} - {"memory .memory"}
        _same(stores, Stores.load(load_workspace(workspace_root)))
        assert len(encoder.texts) == 1 and "A sentence added after the load." in encoder.texts[0]
        assert warm.preloaded.synced is not None and warm.preloaded.synced.reembedded == 1
        assert stores.moved == {"mem:tree:deci-e17103e8"}  # the index and graph were patched at that node alone
        fresh = preload(load_workspace(workspace_root), HashEncoder())
        for key, graph in fresh.graphs.items():
            kept = warm.preloaded.graphs[key]
            assert (kept.nodes, kept.out_edges, kept.in_edges) == (graph.nodes, graph.out_edges, graph.in_edges)
        assert isinstance(warm.preloaded.vectors, tuple) and isinstance(fresh.vectors, tuple)
        patched, loaded_afresh = warm.preloaded.vectors[1], fresh.vectors[1]
        assert patched.addresses == loaded_afresh.addresses
        assert np.array_equal(patched.vectors, loaded_afresh.vectors)
    finally:
        if warm.freshness is not None:
            warm.freshness.close()
