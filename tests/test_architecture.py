"""The package picture of docs/architecture.md, pinned: which package may import which, and nothing loose.

Every import between two packages of ``synapse_server`` (read from the source, type-only imports included)
must be an arrow this table allows, so a new module lands in the layer it belongs to or the table changes
on purpose. ``__main__`` modules are entry points above every layer and are not checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import synapse_server

PACKAGE = Path(synapse_server.__file__).parent
LEAVES = {"errors", "names"}
"""Top-level modules every layer may use: the typed failures and the validators of names."""
ALLOWED: dict[str, set[str]] = {
    "language": set(),
    "processes": set(),
    "context": set(),
    "demo": set(),
    "licensing": {"language"},
    "models": {"processes"},
    "navigation": {"language", "licensing", "models"},
    "present": {"language", "navigation"},
    "workspace": {"demo", "models"},
    "host_turns": {"models", "navigation"},
    "overlay": {"language", "models", "workspace"},
    "isolation": {"context", "models", "navigation", "processes", "workspace"},
    "eval": {"overlay", "workspace"},
    "actions": {"context", "host_turns", "isolation", "models", "navigation", "overlay", "workspace"},
    "mcp": {"actions", "context", "models", "processes"},
    "dashboard": {"actions", "language", "mcp", "models", "navigation", "overlay", "present", "workspace"},
    "cli": {
        "actions",
        "dashboard",
        "eval",
        "isolation",
        "language",
        "mcp",
        "models",
        "navigation",
        "overlay",
        "present",
        "workspace",
    },
}


def package_of(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imported_packages(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        found.update(name.split(".")[1] for name in names if name.startswith("synapse_server."))
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__main__.py")


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_the_packages_its_layer_may_use(module: Path) -> None:
    own = package_of(module)
    if own in LEAVES:
        assert imported_packages(module) <= {"errors"}, "a leaf module imports only errors"
        return
    assert own in ALLOWED or own == "__init__", f"{own} is not in the package table of docs/architecture.md"
    allowed = ALLOWED.get(own, set()) | LEAVES | {own}
    assert imported_packages(module) <= allowed, sorted(imported_packages(module) - allowed)


def test_the_table_has_no_cycle() -> None:
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path, name))
        if name in done:
            return
        for target in ALLOWED[name]:
            visit(target, (*path, name))
        done.add(name)

    for name in ALLOWED:
        visit(name, ())


def test_only_the_leaves_sit_loose_at_the_top_and_every_package_says_what_it_holds() -> None:
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert loose == LEAVES
    for folder in (p for p in PACKAGE.iterdir() if (p / "__init__.py").exists()):
        assert folder.name in ALLOWED, folder.name
        assert ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))), folder.name


def test_the_architecture_page_draws_every_package() -> None:
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name in (*ALLOWED, *LEAVES):
        assert f"`{name}`" in page or f"`{name}/`" in page, name
