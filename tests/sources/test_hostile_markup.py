"""Runs of markup in adopted notes, ADRs and ``.mem`` files load in linear time, and link lines stay right.

A run of ``[`` once made the link patterns backtrack for tens of seconds while
holding the GIL, and each link's line was counted from the top of its note, so
200k links cost minutes. Every check here reads real files through the real
adapters and ``synapse lint``; the time limits are generous bounds that only a
quadratic scan misses (a linear read of these files takes well under a second).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from adapters.adr import AdrAdapter
from adapters.base import LoadResult
from adapters.mem_files import MemFilesAdapter
from adapters.notes import NotesAdapter
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import LintReport, lint_workspace
from tests.support.source_fixtures import write_files

SIZE = 100_000
LOAD_S = 5.0
LINT_S = 10.0

RUNS = {
    "brackets": "[" * SIZE,
    "wikilink-openers": "[[a|" * (SIZE // 4),
    "wikilink-headings": "[[a#" * (SIZE // 4),
    "link-openers": "[](x" * (SIZE // 4),
    "embed-openers": "![" * (SIZE // 2),
    "parens": "(" * SIZE,
    "backticks": "`" * SIZE,
    "hashes": "#" * SIZE,
    "stars": "*" * SIZE,
    "pipes": "|" * SIZE,
    "spaces": "a" + " " * SIZE + "b",
    "digits": "1" * SIZE,
    "newlines": "\n" * SIZE,
}
"""One hostile run per shape; each is about 100 KB."""


def _timed(load: object) -> tuple[LoadResult, float]:
    started = time.perf_counter()
    result = load()  # type: ignore[operator]
    return result, time.perf_counter() - started


def _hostile_vault(folder: Path) -> None:
    files = {f"{name}.md": f"# {name}\n\nBefore [[Ledger]].\n{run}\nAfter [[Ledger]].\n" for name, run in RUNS.items()}
    files["Ledger.md"] = "# Ledger\n\nAmounts are integer cents; see [the rounding note](rounding.md).\n"
    files["rounding.md"] = "# Rounding\n\nBanker's rounding, per [[Ledger]].\n"
    write_files(folder, files)


def _hostile_adrs(folder: Path) -> None:
    files = {
        f"{number:04d}-{name}.md": (
            f"# {number}. Title {run}\n\nDate: {run}\n\n## Status\n\n"
            f"Superseded by [Use cents](0001-use-cents.md) {run}\n\n## Context\n\n{run}\n"
        )
        for number, (name, run) in enumerate(RUNS.items(), 2)
    }
    files["0001-use-cents.md"] = "# 1. Use cents\n\nDate: 2024-01-08\n\n## Status\n\nAccepted\n\n## Context\n\nDrift.\n"
    write_files(folder, files)


def _hostile_mem(folder: Path) -> None:
    files = {}
    for name, run in RUNS.items():
        flat = run.replace("\n", " ")
        ident = name.replace("-", "_")
        files[f"{name}.mem"] = (
            f'fact hostile.{ident} {{\n  claim: "{flat}"\n}}\nfact broken.{ident} {{\n  note: {flat}\n}}\n'
            f"{run}\nfact {run} {{\n}}\nfact a {flat}\n"
        )
    files["good.mem"] = 'fact ledger.cents {\n  claim: "Amounts are integer cents."\n}\n'
    write_files(folder, files)


def test_runs_of_markup_in_a_vault_load_in_linear_time_and_links_still_resolve(tmp_path: Path) -> None:
    _hostile_vault(tmp_path / "vault")
    result, seconds = _timed(NotesAdapter(tmp_path / "vault", tmp_path, None, "vault").load)
    assert seconds < LOAD_S, f"loading the vault took {seconds:.1f} s"
    nodes = {node.address: node for node in result.nodes}
    assert {f"zk:vault:{name}" for name in RUNS} <= set(nodes)
    for name in RUNS:
        assert [e.dst for e in nodes[f"zk:vault:{name}"].edges if e.rel == "links-to"] == ["zk:vault:ledger"]
    assert [e.dst for e in nodes["zk:vault:ledger"].edges if e.rel == "links-to"] == ["zk:vault:rounding"]


def test_runs_of_markup_in_adrs_load_in_linear_time_and_status_links_still_resolve(tmp_path: Path) -> None:
    _hostile_adrs(tmp_path / "doc" / "adr")
    result, seconds = _timed(AdrAdapter(tmp_path / "doc" / "adr", tmp_path, None).load)
    assert seconds < LOAD_S, f"loading the ADRs took {seconds:.1f} s"
    nodes = {node.address: node for node in result.nodes}
    assert len(nodes) == len(RUNS) + 1
    superseded = [a for a, n in nodes.items() if any(e.rel == "superseded-by" for e in n.edges)]
    assert len(superseded) == len(RUNS)
    assert nodes["mem:adr:0002-brackets"].title == "Title " + RUNS["brackets"]


def test_runs_of_markup_in_mem_files_load_in_linear_time_and_cost_only_their_declarations(tmp_path: Path) -> None:
    _hostile_mem(tmp_path / "memory")
    result, seconds = _timed(MemFilesAdapter(tmp_path / "memory", tmp_path, None).load)
    assert seconds < LOAD_S, f"loading the .mem files took {seconds:.1f} s"
    addresses = {node.address for node in result.nodes}
    assert {"mem:mem:ledger.cents"} | {f"mem:mem:hostile.{name.replace('-', '_')}" for name in RUNS} <= addresses


def test_a_mem_file_of_many_declarations_loads_in_linear_time_with_each_line_right(tmp_path: Path) -> None:
    count = 45_000
    text = "".join(f"fact d{i} {{}}\n# {'padding ' * 3}\n" for i in range(count))  # about 1.8 MB
    write_files(tmp_path / "memory", {"many.mem": text + "fact d7 {}\n"})
    result, seconds = _timed(MemFilesAdapter(tmp_path / "memory", tmp_path, None).load)
    assert seconds < LINT_S, f"loading {count} declarations took {seconds:.1f} s"
    assert len(result.nodes) == count
    assert [(d.code, d.line) for d in result.diagnostics] == [("duplicate-id", 2 * count + 1)]


def _big_vault(folder: Path, links: int) -> dict[int, str]:
    """A note of ``links`` ``[[Big]]`` lines (one link each) with a few dangling links at known file lines."""
    dangling = {5_000: "Missing-a", 123_457: "Missing-b", links - 1: "Missing-c"}
    lines = [f"[[{dangling[i]}]]" if i in dangling else "[[Big]]" for i in range(links)]
    write_files(folder, {"Huge.md": "---\ntitle: Huge\n---\n\n" + "\n".join(lines) + "\n", "Big.md": "# Big\n"})
    return {5 + i: name for i, name in dangling.items()}  # the body starts on file line 5


def test_a_note_of_200k_links_loads_in_linear_time_with_each_link_on_its_own_line(tmp_path: Path) -> None:
    expected = _big_vault(tmp_path / "vault", 200_000)
    assert (tmp_path / "vault" / "Huge.md").stat().st_size > 1_500_000
    result, seconds = _timed(NotesAdapter(tmp_path / "vault", tmp_path, None, "vault").load)
    assert seconds < LOAD_S, f"loading the note took {seconds:.1f} s"
    huge = next(n for n in result.nodes if n.address == "zk:vault:huge")
    assert [e.dst for e in huge.edges if e.rel == "links-to"] == ["zk:vault:big"]
    found = {d.line: d.message for d in result.diagnostics if d.code == "dangling-ref"}
    assert set(found) == set(expected)
    for line, name in expected.items():
        assert f"[[{name}]]" in found[line]


def _timed_lint(root: Path) -> tuple[LintReport, float]:
    workspace = load_workspace(root)
    started = time.perf_counter()
    report = lint_workspace(workspace)
    return report, time.perf_counter() - started


@pytest.mark.parametrize("kind", ["notes", "adr", "mem"])
def test_lint_reads_runs_of_markup_in_linear_time(tmp_path: Path, kind: str) -> None:
    writers = {"notes": _hostile_vault, "adr": _hostile_adrs, "mem": _hostile_mem}
    writers[kind](tmp_path / "src")
    write_files(tmp_path, {".synapse/config.yaml": f"sources: [{{kind: {kind}, path: src}}]\n"})
    report, seconds = _timed_lint(tmp_path)
    assert seconds < LINT_S, f"lint took {seconds:.1f} s"
    assert report.files >= len(RUNS)


def test_lint_of_a_note_of_200k_links_is_linear_and_names_the_dangling_lines(tmp_path: Path) -> None:
    expected = _big_vault(tmp_path / "vault", 200_000)
    write_files(tmp_path, {".synapse/config.yaml": "sources: [{kind: notes, path: vault}]\n"})
    report, seconds = _timed_lint(tmp_path)
    assert seconds < LINT_S, f"lint took {seconds:.1f} s"
    dangling = {d.line for d in report.diagnostics if d.code == "dangling-ref" and d.path == "vault/Huge.md"}
    assert dangling == set(expected)
