"""memdsl .mem workspaces read with our own parser: declarations as memory entries, boundaries with their force."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.base import LoadResult, Node, Skipped, TetherKind
from adapters.mem_files import PROPOSAL, MemFilesAdapter
from adapters.mem_parse import parse_mem
from tests.support.source_fixtures import commit_all, make_repo, mem_files


def _result(tmp_path: Path) -> LoadResult:
    root = make_repo(tmp_path / "repo")
    mem_files(root / "memory")
    commit_all(root, "memory")
    return MemFilesAdapter(Path("memory"), root, root).load()


def _load(tmp_path: Path) -> tuple[dict[str, Node], list[str]]:
    result = _result(tmp_path)
    return {n.address: n for n in result.nodes}, [d.format() for d in result.diagnostics]


def test_declarations_become_memory_entries_typed_by_their_kind(tmp_path: Path) -> None:
    nodes, _ = _load(tmp_path)
    boundary = nodes["mem:mem:privacy.no_card_numbers_in_logs"]
    assert (boundary.type, boundary.family, boundary.line) == ("boundary", "memory", 5)
    assert boundary.meta["force"] == "hard" and boundary.meta["exceptions"] == ("pci_audit_export",)
    assert boundary.tethers[0].kind is TetherKind.GIT_PIN and boundary.path == "memory/team.mem"
    assert nodes["mem:mem:ledger.float_amounts"].meta["status"] == "superseded"


def test_a_boundary_body_keeps_the_rule_verbatim_with_its_force_guard_and_evidence(tmp_path: Path) -> None:
    body = _load(tmp_path)[0]["mem:mem:privacy.no_card_numbers_in_logs"].body
    assert body.splitlines()[0] == "Rule (hard, must obey): Never write a full card number to any log."
    assert "Never write a full card number to any log." in body.splitlines()
    assert '- guard deny any: "card number", "PAN"' in body
    assert '- evidence (incident): "A debug log held full card numbers for two days."' in body


def test_relations_and_subjects_become_edges(tmp_path: Path) -> None:
    nodes, _ = _load(tmp_path)
    cents = {(e.rel, e.dst) for e in nodes["mem:mem:ledger.integer_cents"].edges}
    assert {("supersedes", "mem:mem:ledger.float_amounts"), ("subject", "mem:mem:Billing")} <= cents
    issue = {(e.rel, e.dst) for e in nodes["mem:mem:ledger.currency_rounding"].edges}
    assert ("conflicts-with", "mem:mem:ledger.integer_cents") in issue


def test_a_broken_declaration_is_a_positioned_error_and_costs_only_itself(tmp_path: Path) -> None:
    nodes, diagnostics = _load(tmp_path)
    assert "mem:mem:billing.backlog" in nodes and "mem:mem:billing.oncall_rotation" not in nodes
    assert diagnostics == ["memory/broken.mem:3: error[mem-syntax] field 'force' needs ':' or '{' (column 3)"]


def test_proposals_awaiting_review_are_never_memory_and_are_reported_as_skipped(tmp_path: Path) -> None:
    result = _result(tmp_path)
    assert "mem:mem:x.y" not in {n.address for n in result.nodes}
    assert result.skipped == (Skipped("memory/.memdsl/proposals/p-20240701-000000-abcdef.mem", PROPOSAL),)


def test_a_file_with_a_broken_declaration_is_still_a_file_read(tmp_path: Path) -> None:
    assert _result(tmp_path).files_read == 2  # team.mem and broken.mem


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('fact a.b {\n  claim: "open\n}\n', 2, 10),
        ("fact a.b {\n  claim: [x, y\n}\n", 3, 1),  # the list meets the closing brace
        ("fact a.b {\n  claim: x\n", 2, 10),
        ("stray words\nfact a.b {\n}\n", 1, 1),
    ],
)
def test_syntax_errors_carry_line_and_column(text: str, line: int, column: int) -> None:
    _, errors = parse_mem(text)
    assert [(e.line, e.column) for e in errors] == [(line, column)]


def test_blocks_named_twice_collect_into_a_list_and_comments_are_ignored() -> None:
    (decl,), errors = parse_mem(
        'fact a.b {  # a comment\n  claim: "x # not a comment"\n  evidence { quote: "one" }\n  evidence { quote: "two" }\n}\n'
    )
    assert errors == [] and decl.fields["claim"] == "x # not a comment"
    assert decl.fields["evidence"] == [{"quote": "one"}, {"quote": "two"}]
