"""Python symbols of one source file, found with :mod:`ast` (no imports, no execution).

Split from :mod:`adapters.code` so the git reading and the syntax walk stay
small and testable apart. Only definitions a reader would navigate to become
symbols: the module, its classes and functions, methods, and classes nested in
classes. Functions defined inside functions and definitions under ``if`` or
``try`` blocks are left to the enclosing symbol's body.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Literal

SymbolKind = Literal["module", "class", "function", "method"]


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition: its dotted name, kind, 1-based inclusive line span and first docstring line."""

    name: str
    kind: SymbolKind
    start: int
    end: int
    doc: str
    parent: str | None


def module_name(path: str) -> str | None:
    """``pkg/mod.py`` -> ``pkg.mod``, ``pkg/__init__.py`` -> ``pkg``; None for a non-Python or root ``__init__``."""
    if not path.endswith(".py"):
        return None
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or any(not part for part in parts):
        return None
    return ".".join(parts)


def python_symbols(source: str, module: str) -> list[Symbol]:
    """The module and its definitions in source order; raises SyntaxError (or RecursionError) from the parser."""
    tree = ast.parse(source)
    line_count = max(1, source.count("\n") + (0 if source.endswith("\n") else 1))
    symbols = [Symbol(module, "module", 1, line_count, _doc(tree), None)]
    seen = {module}
    _walk(tree.body, module, in_class=False, symbols=symbols, seen=seen)
    return symbols


def _walk(body: list[ast.stmt], parent: str, *, in_class: bool, symbols: list[Symbol], seen: set[str]) -> None:
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            kind: SymbolKind = "class"
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "method" if in_class else "function"
        else:
            continue
        name = f"{parent}.{stmt.name}"
        if name in seen:  # a redefinition (property setter, overload): the first definition names it
            continue
        seen.add(name)
        start = min([stmt.lineno, *(dec.lineno for dec in stmt.decorator_list)])
        end = stmt.end_lineno if stmt.end_lineno is not None else stmt.lineno
        symbols.append(Symbol(name, kind, start, end, _doc(stmt), parent))
        if isinstance(stmt, ast.ClassDef):
            _walk(stmt.body, name, in_class=True, symbols=symbols, seen=seen)


def _doc(node: ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    doc = ast.get_docstring(node, clean=True)
    return doc.strip().split("\n", 1)[0].strip() if doc else ""


def source_lines(source: str, start: int, end: int) -> str:
    """Lines ``start``..``end`` (1-based, inclusive) of ``source``."""
    return "\n".join(source.splitlines()[start - 1 : end])
