"""The memory adapter turns .memory/tree entries into mem:tree nodes and isolates every malformed file."""

from __future__ import annotations

import os
from pathlib import Path

from adapters import Edge, MemoryAdapter, Node, Tether, TetherKind
from tests.support.store_builders import front_matter, write, write_bytes

DECISION = """
id: deci-e17103e8
kind: decision
title: Cost-model decision
status: active
parent: plan-1a2b3c4d
created: 2026-05-14T10:02:00Z
pins: [models/costs.py@3f7c2e1]
runs: [run-042]
cites: [zk:research:transaction-costs]
related: [expe-9f8e7d6c]
tags: [costs, backtest]
owner: ana
"""

PLAN = """
id: plan-1a2b3c4d
kind: plan
title: Backtest plan
"""


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(
        root,
        ".memory/tree/deci-e17103e8.md",
        front_matter(DECISION, "Transaction costs increased from 5 bps to 8 bps.\n"),
    )
    write(root, ".memory/tree/plan-1a2b3c4d.md", front_matter(PLAN, "Plan the backtest.\n"))
    write(
        root, ".memory/tree/expe-9f8e7d6c.md", front_matter("id: expe-9f8e7d6c\nkind: experiment\ntitle: Costs sweep")
    )
    return root


def _load(root: Path) -> dict[str, Node]:
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    return {node.address: node for node in result.nodes}


def test_an_entry_becomes_a_memory_node_with_its_kind_title_and_body(tmp_path: Path) -> None:
    root = _store(tmp_path)
    node = _load(root)["mem:tree:deci-e17103e8"]
    assert (node.type, node.title, node.family) == ("decision", "Cost-model decision", "memory")
    assert node.body == "Transaction costs increased from 5 bps to 8 bps."
    assert (node.path, node.line) == (".memory/tree/deci-e17103e8.md", 1)


def test_pins_and_runs_become_tethers_and_provenance(tmp_path: Path) -> None:
    node = _load(_store(tmp_path))["mem:tree:deci-e17103e8"]
    assert node.tethers == (
        Tether(TetherKind.GIT_PIN, "models/costs.py", "3f7c2e1"),
        Tether(TetherKind.RUN, "run-042"),
    )
    assert node.provenance == ("file:models/costs.py@3f7c2e1", "run:run-042")


def test_references_become_typed_edges_to_canonical_addresses(tmp_path: Path) -> None:
    node = _load(_store(tmp_path))["mem:tree:deci-e17103e8"]
    src = "mem:tree:deci-e17103e8"
    assert node.edges == (
        Edge(src, "mem:tree:plan-1a2b3c4d", "parent"),
        Edge(src, "mem:tree:expe-9f8e7d6c", "related"),
        Edge(src, "zk:research:transaction-costs", "cites"),
        Edge(src, "repo:demo:models/costs.py", "pins"),
        Edge(src, "data:runs:run-042", "runs"),
    )


def test_a_parent_gets_child_edges_computed_across_files(tmp_path: Path) -> None:
    plan = _load(_store(tmp_path))["mem:tree:plan-1a2b3c4d"]
    assert plan.edges == (Edge("mem:tree:plan-1a2b3c4d", "mem:tree:deci-e17103e8", "child"),)


def test_meta_keeps_fields_as_written_including_timestamps_and_extra_keys(tmp_path: Path) -> None:
    meta = _load(_store(tmp_path))["mem:tree:deci-e17103e8"].meta
    assert meta["created"] == "2026-05-14T10:02:00Z"
    assert meta["status"] == "active"
    assert meta["tags"] == ("costs", "backtest")
    assert meta["kind"] == "decision"
    assert meta["owner"] == "ana"
    assert meta["body_line"] == 16


def test_nodes_are_sorted_by_address(tmp_path: Path) -> None:
    assert list(_load(_store(tmp_path))) == [
        "mem:tree:deci-e17103e8",
        "mem:tree:expe-9f8e7d6c",
        "mem:tree:plan-1a2b3c4d",
    ]


def test_one_broken_file_is_one_diagnostic_with_path_and_line_and_the_rest_load(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/bad.md", "---\nid: bad\nkind: note\ntitle: [unclosed\n---\nbody\n")
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    assert len(result.nodes) == 3
    [diagnostic] = result.diagnostics
    assert (diagnostic.path, diagnostic.code, diagnostic.severity) == (".memory/tree/bad.md", "front-matter", "error")
    assert diagnostic.line == 5


def test_a_file_without_front_matter_is_a_front_matter_diagnostic(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/plain.md", "just text\n")
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    assert [(d.path, d.line, d.code) for d in result.diagnostics] == [(".memory/tree/plain.md", 1, "front-matter")]


def test_a_missing_id_is_a_missing_field_diagnostic_on_the_front_matter_line(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/noid.md", front_matter("kind: note\ntitle: No id"))
    [diagnostic] = MemoryAdapter(root / ".memory", root, "demo").load().diagnostics
    assert (diagnostic.code, diagnostic.field, diagnostic.line) == ("missing-field", "id", 2)


def test_an_id_holding_an_address_separator_is_a_bad_id(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/colon.md", front_matter("kind: note\ntitle: Colon\nid: 'a:b'"))
    [diagnostic] = MemoryAdapter(root / ".memory", root, "demo").load().diagnostics
    assert (diagnostic.code, diagnostic.field, diagnostic.line) == ("bad-id", "id", 4)


def test_a_field_of_the_wrong_type_is_a_bad_field_and_skips_the_file(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(
        root, ".memory/tree/scalar-pins.md", front_matter("id: scalar-pins\nkind: note\ntitle: T\npins: a.py@abc1234")
    )
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    assert "mem:tree:scalar-pins" not in {node.address for node in result.nodes}
    [diagnostic] = result.diagnostics
    assert (diagnostic.code, diagnostic.field, diagnostic.line) == ("bad-field", "pins", 5)


def test_a_pin_that_is_not_path_at_sha_is_a_bad_field(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/badpin.md", front_matter("id: badpin\nkind: note\ntitle: T\npins: [a.py@main]"))
    [diagnostic] = MemoryAdapter(root / ".memory", root, "demo").load().diagnostics
    assert (diagnostic.code, diagnostic.field) == ("bad-field", "pins")


def test_a_duplicate_id_keeps_the_first_file_in_name_order(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/zz-copy.md", front_matter("id: plan-1a2b3c4d\nkind: plan\ntitle: Copy"))
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    plan = {node.address: node for node in result.nodes}["mem:tree:plan-1a2b3c4d"]
    assert plan.title == "Backtest plan"
    codes = [(d.path, d.code) for d in result.diagnostics]
    assert (".memory/tree/zz-copy.md", "duplicate-id") in codes


def test_non_utf8_and_binary_files_are_diagnostics(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write_bytes(root, ".memory/tree/latin.md", b"---\nid: latin\nkind: note\ntitle: caf\xe9\n---\n")
    write_bytes(root, ".memory/tree/blob.md", b"---\x00\x01")
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    found = {(d.path, d.code, d.line) for d in result.diagnostics}
    assert found == {(".memory/tree/latin.md", "encoding", 4), (".memory/tree/blob.md", "binary", 1)}
    assert len(result.nodes) == 3


def test_warnings_keep_the_entry(tmp_path: Path) -> None:
    root = _store(tmp_path)
    write(root, ".memory/tree/odd.md", front_matter("id: other-name\nkind: musing\nstatus: pending\nparent: nowhere"))
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    node = {node.address: node for node in result.nodes}["mem:tree:other-name"]
    assert node.title == "other-name"
    codes = sorted((d.code, d.field) for d in result.diagnostics)
    assert codes == [
        ("bad-field", "kind"),
        ("bad-field", "status"),
        ("dangling-ref", "parent"),
        ("id-mismatch", "id"),
        ("missing-field", "title"),
    ]
    assert all(d.severity == "warning" for d in result.diagnostics)


def test_a_symlink_escaping_the_workspace_is_refused(tmp_path: Path) -> None:
    root = _store(tmp_path)
    outside = write(tmp_path, "outside/secret.md", front_matter("id: secret\nkind: note\ntitle: Secret"))
    os.symlink(outside, root / ".memory/tree/secret.md")
    result = MemoryAdapter(root / ".memory", root, "demo").load()
    assert "mem:tree:secret" not in {node.address for node in result.nodes}
    assert [(d.path, d.code) for d in result.diagnostics] == [(".memory/tree/secret.md", "path-escape")]


def test_a_symlink_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    root = _store(tmp_path)
    target = write(root, "drafts/kept.md", front_matter("id: kept\nkind: note\ntitle: Kept"))
    os.symlink(target, root / ".memory/tree/kept.md")
    assert "mem:tree:kept" in _load(root)


def test_a_missing_memory_tree_is_an_empty_store_with_an_info_diagnostic(tmp_path: Path) -> None:
    result = MemoryAdapter(tmp_path / ".memory", tmp_path, "demo").load()
    assert result.nodes == ()
    assert [(d.code, d.severity) for d in result.diagnostics] == [("missing-store", "info")]


def test_a_relative_memory_directory_is_taken_from_the_workspace_root(tmp_path: Path) -> None:
    root = _store(tmp_path)
    result = MemoryAdapter(Path(".memory"), root, "demo").load()
    assert len(result.nodes) == 3
