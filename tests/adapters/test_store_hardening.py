"""Hostile store files: FIFOs, YAML alias bombs, huge bodies and path-like ids become diagnostics, never hangs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters import MemoryAdapter, RunsAdapter, ZettelkastenAdapter
from adapters.frontmatter import StoreFileError, parse_yaml_record, read_text
from adapters.memory import MAX_BODY_BYTES
from adapters.paths import NotRegularFile, read_regular_bytes
from adapters.resolvers.content_hash import sha256_file
from tests.support.store_builders import front_matter, write

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(8)
)


def _codes(diagnostics: object) -> set[str]:
    return {d.code for d in diagnostics}  # type: ignore[attr-defined]


def test_a_fifo_is_refused_without_opening_it_for_a_blocking_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile):
        read_regular_bytes(fifo)
    with pytest.raises(StoreFileError) as caught:
        read_text(fifo, "pipe.md")
    assert caught.value.diagnostic.code == "unreadable"
    with pytest.raises(OSError):
        sha256_file(fifo)


def test_a_fifo_memory_entry_and_run_file_are_unreadable_diagnostics(tmp_path: Path) -> None:
    write(tmp_path, ".memory/tree/note-00000001.md", front_matter("id: note-00000001\nkind: note\n", "Fine."))
    os.mkfifo(tmp_path / ".memory" / "tree" / "note-00000002.md")
    (tmp_path / "runs" / "run-1").mkdir(parents=True)
    os.mkfifo(tmp_path / "runs" / "run-1" / "run.yaml")
    memory = MemoryAdapter(tmp_path / ".memory", tmp_path, "demo").load()
    runs = RunsAdapter(tmp_path / "runs", tmp_path).load()
    assert [n.address for n in memory.nodes] == ["mem:tree:note-00000001"]
    assert "unreadable" in _codes(memory.diagnostics)
    assert "unreadable" in _codes(runs.diagnostics)


def test_yaml_aliases_in_a_store_file_are_refused_as_a_yaml_diagnostic() -> None:
    with pytest.raises(StoreFileError) as caught:
        parse_yaml_record("id: run-1\nparams:\n  " + BOMB.replace("\n", "\n  "), "runs/run-1/run.yaml")
    assert caught.value.diagnostic.code == "yaml"
    assert "alias" in caught.value.diagnostic.message


def test_an_alias_bomb_in_front_matter_loads_no_entry(tmp_path: Path) -> None:
    fields = "id: note-0000000b\nkind: note\nextra:\n  " + BOMB.replace("\n", "\n  ")
    write(tmp_path, ".memory/tree/note-0000000b.md", front_matter(fields, "Body."))
    loaded = MemoryAdapter(tmp_path / ".memory", tmp_path, "demo").load()
    assert loaded.nodes == ()
    assert "front-matter" in _codes(loaded.diagnostics)


def test_deep_nesting_in_a_store_file_is_a_yaml_diagnostic_not_a_recursion_error() -> None:
    with pytest.raises(StoreFileError) as caught:
        parse_yaml_record("id: x\nparams: " + "[" * 5000 + "]" * 5000 + "\n", "runs/x/run.yaml")
    assert caught.value.diagnostic.code == "yaml"


def test_a_huge_memory_body_is_capped_with_a_diagnostic(tmp_path: Path) -> None:
    body = "Costs rose. " * (MAX_BODY_BYTES // 6)
    write(tmp_path, ".memory/tree/note-0000000c.md", front_matter("id: note-0000000c\nkind: note\n", body))
    loaded = MemoryAdapter(tmp_path / ".memory", tmp_path, "demo").load()
    (node,) = loaded.nodes
    assert len(node.body.encode("utf-8")) <= MAX_BODY_BYTES and node.body.startswith("Costs rose.")
    assert "body-too-large" in _codes(loaded.diagnostics)


def test_a_huge_zettelkasten_body_is_capped_with_a_diagnostic(tmp_path: Path) -> None:
    body = "Higher costs reduce returns. " * (MAX_BODY_BYTES // 10)
    write(tmp_path, ".zettelkasten/research/notes/n1.md", front_matter("id: n1\ntype: claim\ntitle: T\n", body))
    loaded = ZettelkastenAdapter(tmp_path / ".zettelkasten", None, {}, tmp_path, "demo").load()
    (node,) = [n for n in loaded.nodes if n.address == "zk:research:n1"]
    assert len(node.body.encode("utf-8")) <= MAX_BODY_BYTES
    assert "body-too-large" in _codes(loaded.diagnostics)


@pytest.mark.parametrize("ident", ["../../../etc/passwd", "a/b", "..", "x\\y"])
def test_a_memory_id_shaped_like_a_path_is_an_error(tmp_path: Path, ident: str) -> None:
    write(tmp_path, ".memory/tree/note-0000000d.md", front_matter(f"id: '{ident}'\nkind: note\n", "Body."))
    loaded = MemoryAdapter(tmp_path / ".memory", tmp_path, "demo").load()
    assert loaded.nodes == ()
    (diagnostic,) = [d for d in loaded.diagnostics if d.code == "bad-id"]
    assert diagnostic.severity == "error"
