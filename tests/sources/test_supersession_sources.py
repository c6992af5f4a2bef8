"""Every adopted store says which records are superseded: ADR status words and links, memory-tree front matter,
memdsl relations, mirrored onto the record that is replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.adr import AdrAdapter
from adapters.base import Node
from adapters.mem_files import MemFilesAdapter
from adapters.memory import MemoryAdapter
from adapters.resolvers import workspace_resolvers
from synapse_server.navigation.epistemics import derive
from tests.support.source_fixtures import adr_repo, commit_all, make_repo, write_files


def _facts(root: Path, nodes: dict[str, Node], address: str):  # type: ignore[no-untyped-def]
    resolvers = workspace_resolvers(root, root, nodes.values())
    node = nodes[address]
    return derive(node, [resolvers.resolve(t) for t in node.tethers])


def test_an_adr_superseded_by_link_keeps_grounded_and_names_its_successor(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    nodes = {n.address: n for n in AdrAdapter(Path("doc/adr"), root, root).load().nodes}
    old = _facts(root, nodes, "mem:adr:0002-publish-invoices-as-pdf-files")
    assert (old.status, old.supersession, old.superseded_by) == (
        "grounded",
        "superseded",
        ("mem:adr:0004-render-invoices-as-html-email",),
    )
    assert old.superseded_disclosure == (
        "mem:adr:0002-publish-invoices-as-pdf-files is superseded by "
        "mem:adr:0004-render-invoices-as-html-email (status: superseded)"
    )
    assert not _facts(root, nodes, "mem:adr:0004-render-invoices-as-html-email").superseded


@pytest.mark.parametrize(
    ("status", "word", "memory_status"),
    [
        pytest.param("Reverted", "reverted", "abandoned", id="reverted"),
        pytest.param("Deprecated", "deprecated", "superseded", id="deprecated"),
        pytest.param("Rejected", "rejected", "abandoned", id="rejected"),
        pytest.param("Partly superseded by [2. B](0002-b.md)", "partly superseded", "active", id="partly"),
    ],
)
def test_the_adr_status_vocabulary_feeds_the_disclosure(
    tmp_path: Path, status: str, word: str, memory_status: str
) -> None:
    root = make_repo(tmp_path / "repo")
    record = "# {n}. {t}\n\nDate: 2024-01-01\n\n## Status\n\n{s}\n\n## Decision\n\nWe will do {t}.\n"
    write_files(
        root,
        {
            "doc/adr/0001-a.md": record.format(n=1, t="A", s=status),
            "doc/adr/0002-b.md": record.format(n=2, t="B", s="Accepted"),
        },
    )
    commit_all(root, "records")
    result = AdrAdapter(Path("doc/adr"), root, root).load()
    assert [d.code for d in result.diagnostics] == []  # every word of the vocabulary is known: no adr-status warning
    nodes = {n.address: n for n in result.nodes}
    assert (nodes["mem:adr:0001-a"].meta["adr_status"], nodes["mem:adr:0001-a"].meta["status"]) == (
        word,
        memory_status,
    )
    facts = _facts(root, nodes, "mem:adr:0001-a")
    assert facts.status == "grounded" and facts.supersession == word
    assert facts.superseded_disclosure is not None and facts.superseded_disclosure.endswith(f"(status: {word})")


def test_memory_tree_supersedes_front_matter_is_mirrored_on_the_replaced_entry(tmp_path: Path) -> None:
    entry = "---\nid: {id}\nkind: decision\ntitle: {title}\nstatus: active\n{extra}---\n{body}\n"
    write_files(
        tmp_path,
        {
            ".memory/tree/deci-old.md": entry.format(
                id="deci-old", title="Flat costs", extra="", body="Costs are 5 bps flat."
            ),
            ".memory/tree/deci-new.md": entry.format(
                id="deci-new", title="Spread costs", extra="supersedes: [deci-old]\n", body="Costs follow the spread."
            ),
        },
    )
    result = MemoryAdapter(tmp_path / ".memory", tmp_path, "code").load()
    nodes = {n.address: n for n in result.nodes}
    old = derive(nodes["mem:tree:deci-old"], [])
    assert (old.supersession, old.superseded_by) == ("superseded", ("mem:tree:deci-new",))
    assert "supersedes" not in nodes["mem:tree:deci-new"].meta  # a relation, not an extra field
    assert not derive(nodes["mem:tree:deci-new"], []).superseded


def test_memory_tree_superseded_by_front_matter_marks_the_entry_itself(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            ".memory/tree/deci-old.md": "---\nid: deci-old\nkind: decision\ntitle: Old\nstatus: superseded\n"
            "superseded-by: mem:tree:deci-new\n---\nOld rule.\n",
            ".memory/tree/deci-new.md": "---\nid: deci-new\nkind: decision\ntitle: New\n---\nNew rule.\n",
        },
    )
    nodes = {n.address: n for n in MemoryAdapter(tmp_path / ".memory", tmp_path, "code").load().nodes}
    assert derive(nodes["mem:tree:deci-old"], []).superseded_disclosure == (
        "mem:tree:deci-old is superseded by mem:tree:deci-new (status: superseded)"
    )
    assert ("mem:tree:deci-new", "mem:tree:deci-old", "supersedes") in {
        (e.src, e.dst, e.rel) for e in nodes["mem:tree:deci-new"].edges
    }


def test_a_memdsl_supersedes_relation_is_mirrored_on_its_target(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "memory/team.mem": 'decision old_rule {\n  decision: "Ship on Fridays."\n}\n'
            'decision new_rule {\n  decision: "Ship on Tuesdays."\n  supersedes: [old_rule]\n}\n'
        },
    )
    nodes = {n.address: n for n in MemFilesAdapter(tmp_path / "memory", tmp_path, None).load().nodes}
    old = derive(nodes["mem:mem:old_rule"], [])
    assert (old.supersession, old.superseded_by) == ("superseded", ("mem:mem:new_rule",))
