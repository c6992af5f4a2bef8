"""ADRs as public repositories keep them: every layout adopted, every status word mapped, over real git.

Fixtures (tests/sources/wild/adr-*, licences in each README): Log4brains' own
monorepo (three ADR folders, dated names, ``.log4brains.yml``), the Hedera
smart-contracts branch with ``adr-NNN.md`` at the repository root (MADR 4 front
matter), GOV.UK's adr-tools records (Nygard, ``.adr-dir``, Pending / Approved /
Partly superseded), MADR's own records (``on hold``) and Elastisys Compliant
Kubernetes (MADR 2 ``- Status:`` bullets with supersede links).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adapters.adr import NOT_A_RECORD, AdrAdapter
from adapters.base import LoadResult, Node
from adapters.index import Embedder
from adapters.resolvers import workspace_resolvers
from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.actions.search import SearchParams, search
from synapse_server.navigation.epistemics import derive
from synapse_server.workspace.adopt import adopt, detect
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from tests.support.source_fixtures import commit_all, git
from tests.support.wild_repos import wild_repo


def _found(root: Path) -> list[tuple[str, str | None, int]]:
    return [(f.source.path, f.source.name, f.files) for f in detect(root) if f.source.kind == "adr"]


def _load(root: Path, folder: str, name: str = "adr") -> tuple[LoadResult, dict[str, Node]]:
    result = AdrAdapter(Path(folder), root, root, name).load()
    return result, {n.address: n for n in result.nodes}


def _states(nodes: dict[str, Node]) -> dict[str, tuple[str | None, str | None, str | None]]:
    return {a.split(":", 2)[2]: (n.meta["adr_status"], n.meta["adr_state"], n.meta["status"]) for a, n in nodes.items()}


def test_every_adr_folder_of_a_monorepo_is_its_own_source_with_a_distinct_segment(tmp_path: Path) -> None:
    root = wild_repo("adr-log4brains", tmp_path / "log4brains")
    assert _found(root) == [
        ("docs/adr", None, 9),
        ("packages/core/docs/adr", "packages-core-docs-adr", 3),
        ("packages/web/docs/adr", "packages-web-docs-adr", 5),
    ]  # the core package's integration-test project is another project's test data, never adopted
    _, core = _load(root, "packages/core/docs/adr", "packages-core-docs-adr")
    assert "mem:packages-core-docs-adr:20201003-markdown-parsing-is-part-of-the-domain" in core


@pytest.mark.parametrize(
    ("fixture", "found"),
    [
        pytest.param("adr-madr", [("docs/decisions", None, 5)], id="madr"),
        pytest.param("adr-compliantkubernetes", [("docs/adr", None, 8)], id="madr-2"),
        pytest.param("adr-govuk-aws", [("docs/architecture/decisions", None, 8)], id="nygard"),
        pytest.param("adr-hedera-root", [(".", None, 5)], id="root"),
    ],
)
def test_adopt_finds_each_fixtures_records_and_counts_only_records(
    tmp_path: Path, fixture: str, found: list[tuple[str, str | None, int]]
) -> None:
    assert _found(wild_repo(fixture, tmp_path / fixture)) == found


def test_a_folder_named_only_by_a_tool_setting_is_adopted(tmp_path: Path) -> None:
    root = wild_repo("adr-govuk-aws", tmp_path / "govuk")
    assert _found(root) == [("docs/architecture/decisions", None, 8)]
    shutil.move(root / "docs" / "architecture" / "decisions", root / "docs" / "records")
    (root / ".adr-dir").write_text("docs/records\n", encoding="utf-8")  # what `adr init docs/records` writes
    assert _found(root) == [("docs/records", None, 8)]


def test_adr_files_at_the_repository_root_are_adopted_and_the_readme_beside_them_is_not(tmp_path: Path) -> None:
    root = wild_repo("adr-hedera-root", tmp_path / "hedera")
    assert _found(root) == [(".", None, 5)]
    result, nodes = _load(root, ".")
    assert sorted(nodes) == [f"mem:adr:adr-00{n}" for n in range(1, 6)]
    assert [(s.path, s.reason) for s in result.skipped] == [("README.md", NOT_A_RECORD)]
    assert result.files_read == 5 and result.diagnostics == ()
    four = nodes["mem:adr:adr-004"]
    assert four.title == "Testing Framework Selection for System Contracts Repository"  # "ADR 004: " is the number
    assert (four.meta["adr_number"], four.meta["created"], four.meta["layout"]) == (4, "2025-10-06", "madr")
    assert four.meta["chosen_option"] == "Support only Hardhat (Option 1)"
    assert four.body.splitlines()[0] == 'status: "proposed"'  # front matter opens the body: the status is readable


def test_dated_file_names_give_a_date_not_a_record_number(tmp_path: Path) -> None:
    root = wild_repo("adr-log4brains", tmp_path / "log4brains")
    _, nodes = _load(root, "docs/adr")
    lunr = nodes["mem:adr:20201103-use-lunr-for-search"]
    assert (lunr.meta["adr_number"], lunr.meta["created"]) == (None, "2020-11-03")
    assert lunr.meta["chosen_option"] == "Option 2: Lunr.js"


@pytest.mark.parametrize(
    ("fixture", "folder", "expected"),
    [
        pytest.param(
            "adr-govuk-aws",
            "docs/architecture/decisions",
            {
                "0001-record-architecture-decisions": ("accepted", "accepted", "active"),
                "0003-aws-networking-outline": ("partly superseded", "partly superseded", "active"),
                "0004-dns-definitions-for-hosts-and-services": ("superseded", "superseded", "superseded"),
                "0006-puppet-architecture": ("pending", "proposed", "active"),
                "0036-performance-platform-and-backdrop-architecture": ("proposed", "proposed", "active"),
                "0038-mongo_replacement_by_documentdb": ("approved", "accepted", "active"),
            },
            id="nygard-govuk",
        ),
        pytest.param(
            "adr-madr",
            "docs/decisions",
            {
                "0003-provide-own-madr-tools": ("on hold", "on hold", "active"),
                "0005-use-dashes-in-filenames": (None, None, None),  # MADR's own records mostly state none
            },
            id="madr-4-front-matter",
        ),
        pytest.param(
            "adr-compliantkubernetes",
            "docs/adr",
            {
                "0003-push-metrics-via-influxdb": ("superseded", "superseded", "superseded"),
                "0010-run-managed-services-in-workload-cluster": ("proposed", "proposed", "active"),
                "0019-push-metrics-via-thanos": ("accepted", "accepted", "active"),
            },
            id="madr-2-bullets",
        ),
        pytest.param(
            "adr-log4brains",
            "packages/core/integration-tests/ro-project/docs/adr",
            {
                "20201028-superseded-adr": ("superseded", "superseded", "superseded"),
                "20201029-proposed-adr": ("proposed", "proposed", "active"),
                "20201029-rejected-adr": ("rejected", "rejected", "abandoned"),
                "20201030-draft-adr": ("draft", "proposed", "active"),
            },
            id="log4brains-statuses",
        ),
    ],
)
def test_every_status_word_maps_to_a_state_and_keeps_its_own_words(
    tmp_path: Path, fixture: str, folder: str, expected: dict[str, tuple[str | None, str | None, str | None]]
) -> None:
    root = wild_repo(fixture, tmp_path / fixture)
    result, nodes = _load(root, folder)
    states = _states(nodes)
    assert {stem: states[stem] for stem in expected} == expected
    assert [d.format() for d in result.diagnostics if d.code == "adr-status"] == []


def test_a_raw_status_line_is_kept_beside_its_mapped_words(tmp_path: Path) -> None:
    root = wild_repo("adr-compliantkubernetes", tmp_path / "ck8s")
    _, nodes = _load(root, "docs/adr")
    proposed = nodes["mem:adr:0010-run-managed-services-in-workload-cluster"].meta
    assert proposed["adr_status_text"].startswith("proposed. **This ADR did not reach consensus")


def test_a_superseded_madr_2_record_discloses_the_record_that_replaces_it(tmp_path: Path) -> None:
    root = wild_repo("adr-compliantkubernetes", tmp_path / "ck8s")
    _, nodes = _load(root, "docs/adr")
    resolvers = workspace_resolvers(root, root, nodes.values())
    old = nodes["mem:adr:0003-push-metrics-via-influxdb"]
    facts = derive(old, [resolvers.resolve(t) for t in old.tethers])
    assert facts.status == "grounded"
    assert facts.superseded_disclosure == (
        "mem:adr:0003-push-metrics-via-influxdb is superseded by mem:adr:0019-push-metrics-via-thanos "
        "(status: superseded)"
    )


def test_a_rejected_log4brains_record_is_disclosed_as_not_current(tmp_path: Path) -> None:
    root = wild_repo("adr-log4brains", tmp_path / "log4brains")
    _, nodes = _load(root, "packages/core/integration-tests/ro-project/docs/adr")
    rejected = derive(nodes["mem:adr:20201029-rejected-adr"], [])
    assert rejected.superseded_disclosure == "mem:adr:20201029-rejected-adr is not current (status: rejected)"
    superseded = derive(nodes["mem:adr:20201028-superseded-adr"], [])
    assert superseded.superseded_by == ("mem:adr:20201029-superseder",)


def test_a_record_last_changed_by_a_merge_of_two_edits_is_pinned_where_head_has_its_bytes(tmp_path: Path) -> None:
    root = wild_repo("adr-govuk-aws", tmp_path / "govuk")
    path = root / "docs/architecture/decisions/0006-puppet-architecture.md"
    original = path.read_text(encoding="utf-8")
    git(root, "checkout", "--quiet", "-b", "side")
    path.write_text("<!-- reviewed on the side branch -->\n" + original, encoding="utf-8")
    commit_all(root, "Side branch edits the top of the record")
    git(root, "checkout", "--quiet", "main")
    path.write_text(original + "\nReviewed on main.\n", encoding="utf-8")
    commit_all(root, "Main edits the end of the record")
    git(root, "merge", "--quiet", "--no-edit", "side")  # both edits kept: the merge's blob is neither parent's
    assert "<!-- reviewed on the side branch -->" in path.read_text(encoding="utf-8")
    _, nodes = _load(root, "docs/architecture/decisions")
    (tether,) = nodes["mem:adr:0006-puppet-architecture"].tethers
    check = workspace_resolvers(root, root, nodes.values()).resolve(tether)
    assert (tether.kind.value, check.state) == ("git-pin", "ok"), check.detail
    assert tether.ref == git(root, "rev-parse", "HEAD")  # the merge itself wrote these bytes
    adopt(root)
    report = lint_workspace(load_workspace(root))
    assert [d.format() for d in report.diagnostics if d.code == "outdated-pin"] == []


def test_a_record_merged_unchanged_from_a_branch_keeps_the_branch_commit_as_its_pin(tmp_path: Path) -> None:
    root = wild_repo("adr-govuk-aws", tmp_path / "govuk")
    path = root / "docs/architecture/decisions/0038-mongo_replacement_by_documentdb.md"
    git(root, "checkout", "--quiet", "-b", "side")
    path.write_text(path.read_text(encoding="utf-8") + "\nA note.\n", encoding="utf-8")
    edited = commit_all(root, "Edit on a branch")
    git(root, "checkout", "--quiet", "main")
    (root / "README.md").write_text("GOV.UK AWS\n", encoding="utf-8")
    commit_all(root, "Unrelated change on main")
    git(root, "merge", "--quiet", "--no-edit", "side")
    _, nodes = _load(root, "docs/architecture/decisions")
    (tether,) = nodes["mem:adr:0038-mongo_replacement_by_documentdb"].tethers
    assert tether.ref == edited
    assert workspace_resolvers(root, root, nodes.values()).resolve(tether).state == "ok"


def test_lint_reports_the_files_an_adr_source_skipped_and_why(tmp_path: Path) -> None:
    root = wild_repo("adr-log4brains", tmp_path / "log4brains")
    adopt(root)
    report = lint_workspace(load_workspace(root))
    (docs,) = [s for s in report.sources if s.kind == "adr" and s.path == "docs/adr"]
    assert (docs.files_read, docs.skipped) == (9, 3)
    assert [(g.reason, g.count) for g in docs.groups] == [(NOT_A_RECORD, 3)]
    assert "docs/adr: 9 files read, 3 skipped: 3 not a record" in "\n".join(report.lines())


def test_search_finds_an_adopted_adr_by_a_word_of_its_body(tmp_path: Path, embedder: Embedder) -> None:
    root = wild_repo("adr-log4brains", tmp_path / "log4brains")
    adopt(root)
    deps = Deps(ServerSettings(root=root, prespawn=False), embedder=embedder)
    try:
        found = search(deps, SearchParams(query="Lunr", limit=10))
        core = search(deps, SearchParams(query="hexagonal architecture", limit=10))
    finally:
        deps.close()
    assert found.hits[0].address == "mem:adr:20201103-use-lunr-for-search"
    assert any(h.address.startswith("mem:packages-core-docs-adr:") for h in core.hits[:3])
