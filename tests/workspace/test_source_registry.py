"""Source kinds are registered once: the config, adoption, loading and docs/sources.md all follow the registry."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

import synapse_server
from synapse_server.workspace.source_config import SourceConfig
from synapse_server.workspace.source_kinds import SOURCE_KINDS, kinds_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "sources.md"
BLOCK = re.compile(r"<!-- source-kinds:start -->\n(.*?)\n<!-- source-kinds:end -->", re.S)


def _docs() -> str:
    return DOCS.read_text(encoding="utf-8")


def _first_column(table_heading: str) -> list[str]:
    """The backticked first cells of the markdown table whose header row starts with ``table_heading``."""
    lines = _docs().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(table_heading))
    cells: list[str] = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells.append(line.split("|")[1].strip().strip("`"))
    return cells


def test_the_kinds_table_in_the_docs_is_the_one_the_registry_renders() -> None:
    found = BLOCK.search(_docs())
    assert found is not None, "docs/sources.md lost its <!-- source-kinds --> block"
    assert found.group(1) == kinds_table(), "regenerate the table with kinds_table() from the registry"


def test_the_docs_tables_name_exactly_the_registered_kinds() -> None:
    registered = list(SOURCE_KINDS)
    assert _first_column("| kind | adopt finds") == registered
    assert _first_column("| kind | file | node") == registered, "the Mapping table"
    kind_row = next(line for line in _docs().splitlines() if line.startswith("| `kind` |"))
    assert re.findall(r"`([a-z]+)`", kind_row.split("|")[2]) == registered, "the `kind` field row"


def test_the_config_accepts_exactly_the_registered_kinds() -> None:
    assert SourceConfig.model_json_schema()["properties"]["kind"]["enum"] == list(SOURCE_KINDS)
    for name in SOURCE_KINDS:
        assert SourceConfig(kind=name, path="somewhere").kind == name
    with pytest.raises(ValidationError) as caught:
        SourceConfig(kind="wiki", path="docs")
    assert caught.value.errors()[0]["type"] == "literal_error"


@pytest.mark.parametrize("name", list(SOURCE_KINDS))
def test_each_kind_declares_what_adopt_loading_and_the_docs_need(name: str) -> None:
    kind = SOURCE_KINDS[name]
    assert kind.name == name
    assert kind.family in {"memory", "zk", "data"}
    assert kind.unit and kind.finds
    assert re.fullmatch(r"[A-Za-z0-9_-]+", kind.default_segment("some/folder name"))
    assert kind.wildcard("seg").endswith(":*")


@pytest.mark.parametrize("name", list(SOURCE_KINDS))
def test_an_entry_that_read_nothing_is_warned_about_by_its_kind(name: str) -> None:
    from adapters.base import LoadResult

    source = SourceConfig(kind=name, path="empty")
    warnings = SOURCE_KINDS[name].lint(source, LoadResult((), ()))
    assert [code for code, _ in warnings] == ["empty-store"]
    assert repr("empty") in warnings[0][1]


def test_no_module_dispatches_on_a_source_kinds_name() -> None:
    """A comparison such as ``source.kind == "notes"`` outside the registry is a kind the registry cannot see."""
    package = Path(synapse_server.__file__).parent
    found: list[str] = []
    for module in sorted(package.rglob("*.py")):
        if "source_kinds" in module.parts:
            continue
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "kind":
                names = [c.value for c in node.comparators if isinstance(c, ast.Constant)]
                if any(value in SOURCE_KINDS for value in names):
                    found.append(f"{module.relative_to(package)}:{node.lineno}")
    assert not found


def test_every_lint_code_a_kind_declares_is_explained_in_the_lint_codes_table() -> None:
    explained = {code for cell in _first_column("| code | severity") for code in re.split(r"`, `", cell)}
    declared = {code for kind in SOURCE_KINDS.values() for code in kind.codes}
    assert declared <= explained, sorted(declared - explained)
