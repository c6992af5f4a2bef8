"""memdsl's own examples and test fixtures (0.4.0 and 0.9.2 sdists, verbatim) adopted, loaded, linted and searched.

Integration level: each fixture is committed to a real git repository; adopt,
lint and search run as a user runs them (the CLI as a subprocess), and the
loaded nodes are read through the workspace's own loader.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.base import Node, Skipped, TetherKind
from adapters.mem_files import BROKEN_EXAMPLE, TEST_FIXTURE, MemFilesAdapter
from synapse_server.workspace.adopt import _walk, adopt
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.source_kinds.mem import MemKind
from synapse_server.workspace.stores import Stores
from tests.support.source_fixtures import git
from tests.support.wild_repos import wild_files, wild_repo

REPO_ROOT = Path(__file__).resolve().parents[2]
HEADER = re.compile(r"^(\S+) (\S+) \{$")
"""A declaration header as every upstream example writes it, one per line: an independent count of what to expect."""

ADOPTED = {
    "memdsl-0.4": [("examples/alex", "alex"), ("examples/compliance", "compliance"), ("examples/mira", "mira")],
    "memdsl-0.9": [
        ("examples/alex", "alex"),
        ("examples/compliance", "compliance"),
        ("examples/dialect", "dialect"),
        ("examples/domains/assistant", "assistant"),
        ("examples/domains/coding", "coding"),
        ("examples/domains/writing", "writing"),
        ("examples/mira", "mira"),
    ],
}


def synapse(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI of this checkout, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "synapse_server", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(params=sorted(ADOPTED))
def fixture(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _declared(folder: Path) -> dict[str, str]:
    """Every declaration id under ``folder`` with its kind, read line by line from the upstream files."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*.mem")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if (match := HEADER.match(line)) and match.group(1) not in ("module", "use"):
                found[match.group(2)] = match.group(1)
    return found


def _loaded(root: Path) -> dict[str, Node]:
    adopt(root)
    return {a: n for a, n in Stores.load(load_workspace(root)).nodes.items() if a.startswith("mem:")}


def test_adopt_finds_each_example_folder_under_its_own_name_and_only_those(fixture: str, tmp_path: Path) -> None:
    root = wild_repo(fixture, tmp_path / "repo")
    done = adopt(root)
    assert [(f.source.kind, f.source.path, f.source.name) for f in done.findings] == [
        ("mem", path, name) for path, name in ADOPTED[fixture]
    ]
    assert git(root, "status", "--porcelain") == "?? .synapse/"


def test_adopt_leaves_out_the_broken_example_and_the_packages_test_fixtures(fixture: str, tmp_path: Path) -> None:
    root = wild_repo(fixture, tmp_path / "repo")
    left = MemKind().left_out(root, _walk(root))
    fixtures = sorted(p.name for p in (root / "tests" / "fixtures" / "phase_minus_one").glob("*.mem"))
    assert left == [
        Skipped("examples/lint-demo/broken.mem", BROKEN_EXAMPLE),
        *(Skipped(f"tests/fixtures/phase_minus_one/{name}", TEST_FIXTURE) for name in fixtures),
    ]
    assert len(fixtures) == (11 if fixture == "memdsl-0.9" else 0)


def test_init_adopt_names_each_left_out_folder_and_reads_every_adopted_file(tmp_path: Path) -> None:
    root = wild_repo("memdsl-0.9", tmp_path / "repo")
    done = synapse("init", "--adopt", ".", cwd=root)
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert (
        "tests/fixtures/phase_minus_one/ holds 11 .mem files left out as a test fixture; to read them as "
        "memory, add `- {kind: mem, path: tests/fixtures/phase_minus_one}` to sources:" in lines
    )
    assert any(
        line.startswith("examples/lint-demo/ holds 1 .mem file left out as a deliberately broken") for line in lines
    )
    assert "mem examples/domains/coding: 1 file read" in lines


def test_every_declaration_of_the_examples_loads_as_a_git_pinned_memory_entry(fixture: str, tmp_path: Path) -> None:
    root = wild_repo(fixture, tmp_path / "repo")
    nodes = _loaded(root)
    expected = {
        f"mem:{name}:{ident}": kind
        for path, name in ADOPTED[fixture]
        for ident, kind in _declared(wild_files(fixture) / path).items()
    }
    assert len(expected) == (26 if fixture == "memdsl-0.4" else 42)  # counted by hand in the upstream files
    assert {address: node.type for address, node in nodes.items()} == expected
    assert all(n.tethers[0].kind is TetherKind.GIT_PIN and n.family == "memory" for n in nodes.values())


def test_call_form_values_and_every_field_are_readable_lines_of_the_body(fixture: str, tmp_path: Path) -> None:
    nodes = _loaded(wild_repo(fixture, tmp_path / "repo"))
    migration = nodes["mem:alex:aurora.db_postgres_migration"].body.splitlines()
    assert migration[0] == "Migrate Aurora to Postgres for multi-device sync."
    for line in (
        '- scope: project("Aurora")',
        "- reason: Sync conflicts and concurrent writes outgrew SQLite.",
        "- alternatives: litestream, turso",
        '- evidence (chat): "SQLite is finally hurting. Time for Postgres."',
    ):
        assert line in migration
    assert '- scope: relationship("Person.Advisor")' in nodes["mem:mira:advisor.working_style"].body.splitlines()
    issue = nodes["mem:alex:aurora.pricing_undecided"].body.splitlines()
    assert "- next action: Interview five beta users about willingness to pay." in issue
    rule = nodes["mem:compliance:schedule.no_meetings_before_10"].body.splitlines()
    assert rule[0] == "Rule (hard, must obey): Never schedule meetings before 10:00."
    assert '- guard deny regex: "\\b0?[0-9]:[0-5][0-9]\\b"' in rule


def test_relations_become_edges_and_the_superseded_decision_knows_its_successor(fixture: str, tmp_path: Path) -> None:
    nodes = _loaded(wild_repo(fixture, tmp_path / "repo"))
    old = nodes["mem:alex:aurora.db_sqlite_first"]
    assert ("superseded-by", "mem:alex:aurora.db_postgres_migration") in {(e.rel, e.dst) for e in old.edges}
    assert old.meta["status"] == "superseded"
    free = {(e.rel, e.dst) for e in nodes["mem:alex:aurora.pricing_free_tier"].edges}  # from a relations { } block
    assert {("conflicts-with", "mem:alex:aurora.revenue_target_2026"), ("subject", "mem:alex:Project.Aurora")} <= free


def test_namespaced_kinds_of_0_9_keep_their_lifecycle_access_policy_and_module(tmp_path: Path) -> None:
    nodes = _loaded(wild_repo("memdsl-0.9", tmp_path / "repo"))
    rule = nodes["mem:coding:git.no_force_push"]
    assert (rule.type, rule.meta["mem_status"], rule.meta["module"]) == (
        "coding.project_rule",
        "active",
        "coding.memory",
    )
    body = rule.body.splitlines()
    assert body[0] == "Never force-push the main branch."
    assert {"- access policy readers: developer, coding_agent", "- status: active", "- exceptions: none"} <= set(body)
    bug = nodes["mem:coding:windows.review_lock"]
    assert bug.meta["as_of"] == "2026-07-10" and '- scope: component("review")' in bug.body.splitlines()
    mapping = nodes["mem:dialect:starboard.little_workshop"]
    assert ("target", "mem:dialect:Fictional.Starboard") in {(e.rel, e.dst) for e in mapping.edges}


def test_lint_on_the_examples_reports_no_errors_and_no_warnings(fixture: str, tmp_path: Path) -> None:
    root = wild_repo(fixture, tmp_path / "repo")
    assert synapse("init", "--adopt", ".", cwd=root).returncode == 0
    done = synapse("lint", "--json", cwd=root)
    report = json.loads(done.stdout)
    assert (report["errors"], report["warnings"]) == (0, 0), report["diagnostics"]


@pytest.mark.parametrize(
    ("fixture_name", "query", "address"),
    [
        ("memdsl-0.4", "litestream", "mem:alex:aurora.db_postgres_migration"),  # only in the alternatives field
        ("memdsl-0.9", "ripgrep", "mem:coding:search.rg"),
        ("memdsl-0.9", "the little workshop", "mem:dialect:starboard.little_workshop"),
    ],
)
def test_search_after_adopt_finds_a_declaration_by_a_word_of_its_body(
    fixture_name: str, query: str, address: str, tmp_path: Path
) -> None:
    root = wild_repo(fixture_name, tmp_path / "repo")
    assert synapse("init", "--adopt", ".", cwd=root).returncode == 0
    done = synapse("search", query, "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    hits = [hit["address"] for hit in json.loads(done.stdout)["hits"]]
    assert hits[0] == address


def test_a_source_over_the_whole_package_reads_the_examples_and_reports_what_it_left_out(tmp_path: Path) -> None:
    root = wild_repo("memdsl-0.9", tmp_path / "repo")
    result = MemFilesAdapter(Path("."), root, root).load()
    reasons: dict[str, list[str]] = {}
    for skip in result.skipped:
        reasons.setdefault(skip.reason, []).append(skip.path)
    assert reasons == {
        BROKEN_EXAMPLE: ["examples/lint-demo/broken.mem"],
        TEST_FIXTURE: sorted(f"tests/fixtures/phase_minus_one/{p.name}" for p in root.glob("tests/fixtures/*/*.mem")),
    }
    assert result.files_read == len(list(root.glob("examples/**/*.mem"))) - 1
    assert {d.path for d in result.diagnostics if d.code == "mem-syntax"} == set()


def test_naming_the_fixture_folder_reads_it_and_its_deliberate_faults_are_findings(tmp_path: Path) -> None:
    root = wild_repo("memdsl-0.9", tmp_path / "repo")
    result = MemFilesAdapter(Path("tests/fixtures/phase_minus_one"), root, root).load()
    assert result.skipped == () and result.files_read == 11
    duplicates = [d for d in result.diagnostics if d.code == "duplicate-id"]
    assert "tests/fixtures/phase_minus_one/duplicate_id.mem" in {d.path for d in duplicates}
