"""The overlay is a lower floor: none of its modules may import the action layer, the CLI or the dashboard."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import synapse_server.overlay

OVERLAY = Path(synapse_server.overlay.__file__).parent
UPPER = ("synapse_server.actions", "synapse_server.commands", "synapse_server.dashboard", "synapse_server.dispatch")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("module", sorted(OVERLAY.glob("*.py")), ids=lambda p: p.name)
def test_an_overlay_module_imports_nothing_from_the_floors_above(module: Path) -> None:
    assert not {name for name in imported(module) if name.startswith(UPPER)}
