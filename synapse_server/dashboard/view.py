"""Plain values the templates need and should not compute (the matrix as a grid, badge classes), and page text made safe."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synapse_server.present.safe_text import terminal_safe

RELATIONS = ("contradicts", "corroborates", "applies", "instantiates", "motivated-by", "related")


def status_class(status: str | None) -> str:
    """The CSS class of a status badge; an unknown value gets the neutral one."""
    return f"badge-{status}" if status in {"grounded", "measured", "inferred"} else "badge-none"


@dataclass(frozen=True)
class Grid:
    """Rows (practice) by columns (canon), each slot the cell dict or None."""

    rows: list[dict[str, Any]]
    columns: list[dict[str, Any]]
    slots: list[list[dict[str, Any] | None]]
    relations: list[str]


def matrix_grid(payload: dict[str, Any]) -> Grid:
    """The matrix action's cells laid out on its rows and columns, in the action's order."""
    at = {(c["practice"], c["canon"]): c for c in payload["cells"]}
    rows, columns = payload["rows"], payload["columns"]
    slots = [[at.get((row["address"], col["address"])) for col in columns] for row in rows]
    present = {c["relation"] for c in payload["cells"]}
    return Grid(rows, columns, slots, [r for r in RELATIONS if r in present])


def page_safe(html: str) -> str:
    """A rendered page with every control and bidirectional character shown as a visible escape (``\\u202e``).

    Autoescaping stops markup, not a right-to-left override that visually reorders a title; the page gets the
    terminal card's own escaping. A line with nothing to escape (``isprintable``) is kept as it is, cheaply.
    """
    return "\n".join(line if line.isprintable() else terminal_safe(line) for line in html.split("\n"))
