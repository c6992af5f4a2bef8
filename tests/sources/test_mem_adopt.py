"""Adopting .mem folders: one source per folder named by the folder, other projects' test inputs left out and reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.base import Skipped
from adapters.mem_files import BROKEN_EXAMPLE, PROPOSAL, TEST_FIXTURE, MemFilesAdapter, left_out
from synapse_server.workspace.adopt import _walk, detect
from synapse_server.workspace.source_kinds.mem import MemKind, folder_names
from tests.support.source_fixtures import write_files

FACT = 'fact {ident} {{\n  claim: "A fact."\n}}\n'


def _mem(root: Path, files: list[str]) -> None:
    write_files(root, {path: FACT.format(ident=Path(path).stem.replace("-", "_")) for path in files})


def _mem_findings(root: Path) -> list[tuple[str, str | None, int]]:
    return [(f.source.path, f.source.name, f.files) for f in detect(root) if f.source.kind == "mem"]


def test_several_mem_folders_are_named_by_their_folders_not_numbered(tmp_path: Path) -> None:
    _mem(tmp_path, ["examples/alex/self.mem", "examples/alex/projects.mem", "examples/mira/self.mem", "notes/x.mem"])
    assert _mem_findings(tmp_path) == [
        ("examples/alex", "alex", 2),
        ("examples/mira", "mira", 1),
        ("notes", "notes", 1),
    ]


def test_a_single_mem_folder_keeps_the_plain_mem_segment(tmp_path: Path) -> None:
    _mem(tmp_path, ["memory/team.mem", "memory/sub/more.mem"])
    assert _mem_findings(tmp_path) == [("memory", None, 2)]


def test_two_folders_of_one_name_take_their_parents_names_deterministically(tmp_path: Path) -> None:
    _mem(tmp_path, ["team-a/memory/x.mem", "team-b/memory/y.mem", "memory/z.mem", "other/tree/t.mem"])
    assert [name for _, name, _ in _mem_findings(tmp_path)] == ["memory", "mem-tree", "team-a-memory", "team-b-memory"]


@pytest.mark.parametrize(
    ("paths", "expected"),
    [
        ([("a", "memory"), ("b", "memory")], ["a-memory", "b-memory"]),
        ([("x", "a-b", "c"), ("y", "a", "b-c"), ("c",)], ["a-b-c", "b-c", "c"]),  # only the clashing ones grow
        ([("a b", "c"), ("a-b", "c")], ["a-b-c", "a-b-c-2"]),  # the same after every parent: numbered in order
        ([("日本",), ("x", "日本")], ["folder", "x"]),
        ([(), ("adr",)], ["repo", "mem-adr"]),
    ],
)
def test_folder_names_are_distinct_and_depend_only_on_the_paths(
    paths: list[tuple[str, ...]], expected: list[str]
) -> None:
    assert folder_names(paths, "repo") == expected


@pytest.mark.parametrize(
    ("folder", "names", "reason"),
    [
        (("tests", "fixtures", "phase_minus_one"), ["baseline.mem"], TEST_FIXTURE),
        (("pkg", "testdata"), ["ok.mem"], TEST_FIXTURE),
        (("examples", "invalid-inputs"), ["a.mem"], BROKEN_EXAMPLE),
        (("examples", "lint-demo"), ["broken.mem"], BROKEN_EXAMPLE),
        (("memory",), ["team.mem", "broken.mem"], None),  # a broken file beside real memory is read
        (("memory",), ["contest.mem", "attestation.mem"], None),  # words, not substrings
        ((), ["broken.mem"], None),  # the folder searched itself is never left out
    ],
)
def test_the_left_out_rule(folder: tuple[str, ...], names: list[str], reason: str | None) -> None:
    assert left_out(folder, names) == reason


def test_adopt_leaves_out_test_fixtures_and_broken_examples_and_names_them(tmp_path: Path) -> None:
    _mem(
        tmp_path,
        ["examples/alex/self.mem", "examples/lint-demo/broken.mem", "tests/fixtures/p/dup.mem", "src/test/x.mem"],
    )
    assert _mem_findings(tmp_path) == [("examples/alex", None, 1)]
    assert MemKind().left_out(tmp_path, _walk(tmp_path)) == [
        Skipped("examples/lint-demo/broken.mem", BROKEN_EXAMPLE),
        Skipped("src/test/x.mem", TEST_FIXTURE),
        Skipped("tests/fixtures/p/dup.mem", TEST_FIXTURE),
    ]


def test_a_source_reads_its_memory_and_reports_each_file_it_left_out(tmp_path: Path) -> None:
    _mem(tmp_path, ["mem/a.mem", "mem/tests/b.mem", "mem/demo/broken.mem", "mem/.memdsl/proposals/p.mem"])
    write_files(tmp_path, {"mem/latin1.mem": ""})
    (tmp_path / "mem" / "latin1.mem").write_bytes('fact x { claim: "caf\xe9" }\n'.encode("latin-1"))
    result = MemFilesAdapter(tmp_path / "mem", tmp_path, None).load()
    assert [n.address for n in result.nodes] == ["mem:mem:a"]
    assert result.files_read == 1
    assert sorted(result.skipped, key=lambda s: s.path) == [
        Skipped("mem/.memdsl/proposals/p.mem", PROPOSAL),
        Skipped("mem/demo/broken.mem", BROKEN_EXAMPLE),
        Skipped("mem/latin1.mem", "not UTF-8"),
        Skipped("mem/tests/b.mem", TEST_FIXTURE),
    ]
    assert [d.code for d in result.diagnostics] == ["encoding"]  # the unreadable file is also a finding


def test_naming_a_fixture_folder_in_sources_reads_it(tmp_path: Path) -> None:
    _mem(tmp_path, ["tests/fixtures/p/dup.mem"])
    result = MemFilesAdapter(tmp_path / "tests" / "fixtures" / "p", tmp_path, None).load()
    assert [n.address for n in result.nodes] == ["mem:mem:dup"] and result.skipped == ()


def test_adopt_hints_name_each_left_out_folder_and_how_to_read_it_anyway(tmp_path: Path) -> None:
    _mem(
        tmp_path,
        ["examples/alex/self.mem", "examples/lint-demo/broken.mem", "tests/fixtures/a.mem", "tests/fixtures/b.mem"],
    )
    assert MemKind().hints(tmp_path, _walk(tmp_path)) == [
        "examples/lint-demo/ holds 1 .mem file left out as a deliberately broken example; "
        "to read it as memory, add `- {kind: mem, path: examples/lint-demo}` to sources:",
        "tests/fixtures/ holds 2 .mem files left out as a test fixture; "
        "to read them as memory, add `- {kind: mem, path: tests/fixtures}` to sources:",
    ]
