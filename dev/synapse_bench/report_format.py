"""Formatting shared by the report's sections: Markdown tables and figures (a dash when not measured)."""

from __future__ import annotations

from typing import Any


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; every column after the first is right-aligned (they hold figures)."""
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def fmt(value: Any, spec: str | None = None) -> str:
    """A figure (floats ``.1f`` and ints ``,d`` unless ``spec`` says otherwise), or a dash when not measured."""
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return format(value, spec or (".1f" if isinstance(value, float) else ",d"))
