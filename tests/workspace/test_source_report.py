"""A store's account: files read, files skipped grouped by reason, or why nothing was read (pure values)."""

from __future__ import annotations

from pathlib import Path

from adapters.base import Diagnostic, LoadResult, Node, Skipped
from synapse_server.workspace.loading import LoadFailure, StoreLoad, load_guarded
from synapse_server.workspace.source_config import SourceConfig
from synapse_server.workspace.source_report import SHOWN_PATHS, SourceReport, source_report, source_reports


def _node(address: str, path: str | None) -> Node:
    return Node(address, "note", address, "", "zk", path=path)


def _load(
    result: LoadResult, kind: str = "notes", folder: str = "vault", failure: LoadFailure | None = None
) -> StoreLoad:
    source = SourceConfig(kind="notes", path=folder) if kind == "notes" else None
    return StoreLoad(kind, "zk", folder, f"zk:{folder}:*", result, failure, source)


def test_skips_are_grouped_by_reason_largest_group_first_each_naming_its_first_paths_and_counting_the_rest() -> None:
    skipped = [Skipped(f"vault/n{i}.md", "not UTF-8") for i in range(5, 0, -1)]
    skipped.append(Skipped("vault/c.md", "broken front matter"))
    report = source_report(_load(LoadResult((), files_read=160, skipped=tuple(skipped))))
    assert (report.files_read, report.skipped) == (160, 6)
    [utf8, front] = report.groups
    assert (utf8.reason, utf8.count, utf8.paths) == ("not UTF-8", 5, ("vault/n1.md", "vault/n2.md", "vault/n3.md"))
    assert (front.reason, front.count, front.paths) == ("broken front matter", 1, ("vault/c.md",))
    assert len(utf8.paths) == SHOWN_PATHS
    assert report.line() == (
        "notes vault: 160 files read, 6 skipped: 5 not UTF-8 (vault/n1.md, vault/n2.md, vault/n3.md, … 2 more), "
        "1 broken front matter (vault/c.md)"
    )


def test_a_file_skipped_twice_for_one_reason_counts_once() -> None:
    twice = (Skipped("vault/a.md", "not UTF-8"), Skipped("vault/a.md", "not UTF-8"))
    report = source_report(_load(LoadResult((), files_read=1, skipped=twice)))
    assert report.skipped == 1
    assert report.line() == "notes vault: 1 file read, 1 skipped: 1 not UTF-8 (vault/a.md)"


def test_files_read_falls_back_to_the_distinct_files_behind_the_nodes() -> None:
    nodes = (_node("zk:v:a", "vault/a.md"), _node("zk:v:a2", "vault/a.md"), _node("zk:v:b", "vault/b.md"))
    assert source_report(_load(LoadResult((*nodes, _node("zk:v:c", None))))).files_read == 2
    assert source_report(_load(LoadResult(nodes, files_read=7))).files_read == 7


def test_a_store_that_failed_to_load_says_why_instead_of_counting_files() -> None:
    failed = _load(
        LoadResult(()), failure=LoadFailure("PermissionError", "[Errno 13] Permission denied: '.memory/tree'")
    )
    report = source_report(failed)
    assert report.unread == "failed to load (PermissionError: [Errno 13] Permission denied: '.memory/tree')"
    assert report.line() == f"notes vault: not read: {report.unread}"


def test_a_store_that_read_nothing_names_its_first_problem() -> None:
    missing = Diagnostic(".", 1, "no-repo", "code store unavailable: not a git repository")
    report = source_report(_load(LoadResult((), (missing,)), kind="code", folder="."))
    assert report.line() == "code .: not read: code store unavailable: not a git repository"


def test_an_absent_native_store_gets_no_line_but_an_adopted_source_always_does() -> None:
    absent = Diagnostic(".memory/tree", 1, "missing-store", "no memory tree directory", "info")
    loads = [
        _load(LoadResult((), (absent,)), kind="memory", folder=".memory"),
        _load(LoadResult((), files_read=0)),
        _load(LoadResult((_node("repo:x:a.py", "a.py"),)), kind="code", folder="."),
    ]
    assert [r.label for r in source_reports(loads)] == ["notes vault", "code ."]


def test_an_adapter_that_raises_is_one_lost_store_whose_failure_names_no_machine_path(tmp_path: Path) -> None:
    def explode() -> LoadResult:
        raise OSError(13, "Permission denied", str(tmp_path / ".memory" / "tree"))

    store = StoreLoad("memory", "memory", ".memory", "mem:tree:*", LoadResult(()))
    lost = load_guarded(store, explode, tmp_path)
    assert lost.failure == LoadFailure("PermissionError", "[Errno 13] Permission denied: '.memory/tree'")
    assert str(tmp_path) not in source_report(lost).line()
    kept = load_guarded(store, lambda: LoadResult((_node("mem:tree:a", ".memory/tree/a.md"),)), tmp_path)
    assert kept.failure is None and source_report(kept).line() == "memory .memory: 1 file read"


def test_the_json_form_round_trips_through_the_model() -> None:
    report = source_report(_load(LoadResult((), files_read=2, skipped=(Skipped("vault/x.md", "unreadable"),))))
    dumped = report.model_dump(mode="json")
    assert dumped["label"] == "notes vault"
    assert SourceReport.model_validate({k: v for k, v in dumped.items() if k != "label"}) == report
