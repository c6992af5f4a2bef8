"""ADR folders read in place: Nygard/adr-tools and MADR layouts as memory decisions with file tethers."""

from __future__ import annotations

from pathlib import Path

from adapters.adr import AdrAdapter
from adapters.base import Node, TetherKind
from adapters.resolvers import workspace_resolvers
from synapse_server.navigation.epistemics import derive
from tests.support.source_fixtures import NYGARD, WHY_ANSWER, adr_repo, commit_all, madr_files, make_repo


def _load(root: Path, folder: str = "doc/adr") -> tuple[dict[str, Node], list[str]]:
    result = AdrAdapter(Path(folder), root, root).load()
    return {n.address: n for n in result.nodes}, [d.format() for d in result.diagnostics]


def test_nygard_records_become_decisions_with_titles_numbers_dates_and_mapped_status(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    nodes, diagnostics = _load(root)
    assert diagnostics == []
    assert sorted(nodes) == [f"mem:adr:{name.removesuffix('.md')}" for name in sorted(NYGARD)]
    cents = nodes["mem:adr:0005-keep-ledger-amounts-in-integer-cents"]
    assert (cents.type, cents.family, cents.title) == ("decision", "memory", "Keep ledger amounts in integer cents")
    assert cents.meta["adr_number"] == 5 and cents.meta["created"] == "2024-03-20"
    assert cents.meta["status"] == "active" and cents.meta["adr_status"] == "accepted"
    assert nodes["mem:adr:0002-publish-invoices-as-pdf-files"].meta["status"] == "superseded"


def test_sections_stay_headed_units_in_the_body(tmp_path: Path) -> None:
    nodes, _ = _load(adr_repo(tmp_path / "repo"))
    body = nodes["mem:adr:0005-keep-ledger-amounts-in-integer-cents"].body
    assert "# 5." not in body  # the title is the node's title, not a body line
    for heading in ("## Status", "## Context", "## Decision", "## Consequences"):
        assert heading in body
    assert body.index("## Decision") < body.index(WHY_ANSWER) < body.index("## Consequences")


def test_supersede_and_amend_links_are_edges_mirrored_on_their_targets(tmp_path: Path) -> None:
    nodes, _ = _load(adr_repo(tmp_path / "repo"))
    edges = {(e.src.split(":")[2][:4], e.rel, e.dst.split(":")[2][:4]) for n in nodes.values() for e in n.edges}
    assert {("0004", "supersedes", "0002"), ("0002", "superseded-by", "0004")} <= edges
    assert {("0005", "amends", "0003"), ("0003", "amended-by", "0005")} <= edges


def test_a_committed_record_is_pinned_at_its_last_commit_and_grounded(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    nodes, _ = _load(root)
    node = nodes["mem:adr:0001-record-architecture-decisions"]
    (tether,) = node.tethers
    assert tether.kind is TetherKind.GIT_PIN and tether.target == "doc/adr/0001-record-architecture-decisions.md"
    resolvers = workspace_resolvers(root, root, nodes.values())
    assert derive(node, [resolvers.resolve(tether)]).status == "grounded"


def test_a_pin_becomes_outdated_once_a_later_commit_changes_the_record(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    nodes, _ = _load(root)
    (old,) = nodes["mem:adr:0003-store-the-ledger-in-sqlite"].tethers
    path = root / "doc/adr/0003-store-the-ledger-in-sqlite.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nA later note.\n", encoding="utf-8")
    commit_all(root, "Edit 0003")
    fresh, _ = _load(root)
    check = workspace_resolvers(root, root, fresh.values()).resolve(old)
    assert check.state == "outdated"
    (new,) = fresh["mem:adr:0003-store-the-ledger-in-sqlite"].tethers
    assert new.ref != old.ref and workspace_resolvers(root, root, fresh.values()).resolve(new).state == "ok"


def test_uncommitted_edits_are_tethered_by_content_hash_not_by_a_pin(tmp_path: Path) -> None:
    root = adr_repo(tmp_path / "repo")
    path = root / "doc/adr/0004-render-invoices-as-html-email.md"
    path.write_text(path.read_text(encoding="utf-8").replace("plain-text part", "text part"), encoding="utf-8")
    nodes, _ = _load(root)
    (tether,) = nodes["mem:adr:0004-render-invoices-as-html-email"].tethers
    assert tether.kind is TetherKind.CONTENT_HASH and tether.target == "doc/adr/0004-render-invoices-as-html-email.md"


def test_madr_front_matter_bullets_and_status_links_are_read(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    madr_files(root / "docs" / "decisions")
    nodes, diagnostics = _load(root, "docs/decisions")
    assert diagnostics == []
    assert "mem:adr:README" not in nodes and "mem:adr:template" not in nodes
    first = nodes["mem:adr:0001-use-madr-for-decisions"]
    assert first.meta["layout"] == "madr" and first.meta["deciders"] == "Ana Ruiz, Tom Becker"
    assert first.tethers[0].kind is TetherKind.CONTENT_HASH  # nothing committed yet
    queue = nodes["mem:adr:0002-choose-a-message-queue"]
    assert queue.meta["status"] == "superseded"
    assert any(e.rel == "superseded-by" and e.dst.endswith("0003-move-to-a-managed-queue") for e in queue.edges)
    assert nodes["mem:adr:0004-adopt-graphql-for-the-public-api"].meta["status"] == "abandoned"
    retry = nodes["mem:adr:0005-retry-failed-captures"]
    assert (retry.meta["adr_status"], retry.meta["status"], retry.meta["created"]) == (
        "proposed",
        "active",
        "2024-07-01",
    )
    assert "## Decision Outcome" in retry.body and "* Status: proposed" in retry.body


def test_an_unknown_status_and_a_link_to_no_record_are_warnings(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    folder = root / "doc" / "adr"
    folder.mkdir(parents=True)
    (folder / "0001-x.md").write_text(
        "# 1. X\n\n## Status\n\nPondering\n\nSupersedes [9. Gone](0009-gone.md)\n\n## Decision\n\nWe do X.\n",
        encoding="utf-8",
    )
    nodes, diagnostics = _load(root)
    assert nodes["mem:adr:0001-x"].meta["status"] is None
    assert any("warning[adr-status]" in d for d in diagnostics)
    assert any("warning[dangling-ref]" in d and "0009-gone" in d for d in diagnostics)
