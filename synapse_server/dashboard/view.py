"""Plain values the templates need and should not compute (the matrix as a grid, badge classes), and page text made safe."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from synapse_server.language.safe_text import terminal_safe

RELATIONS = ("contradicts", "corroborates", "applies", "instantiates", "motivated-by", "related")
BASES = ("judged", "cosine", "shared-file")


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
    shown: int
    total: int


@dataclass(frozen=True)
class MatrixFilter:
    """What the matrix page shows: one relation, one basis, a confidence floor (``None`` = any)."""

    relation: str | None = None
    basis: str | None = None
    min_confidence: float | None = None

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> MatrixFilter:
        """Unknown values mean no filter: a hand-edited address shows the whole matrix, never an error."""
        relation, basis = query.get("relation"), query.get("basis")
        try:
            floor: float | None = float(query.get("min_confidence") or "")
        except ValueError:
            floor = None
        return cls(
            relation if relation in RELATIONS else None,
            basis if basis in BASES else None,
            floor if floor is not None and 0.0 <= floor <= 1.0 else None,
        )

    def keeps(self, cell: Mapping[str, Any]) -> bool:
        return (
            (self.relation is None or cell["relation"] == self.relation)
            and (self.basis is None or cell.get("basis") == self.basis)
            and (self.min_confidence is None or cell["confidence"] >= self.min_confidence)
        )

    @property
    def active(self) -> bool:
        return self != MatrixFilter()


def matrix_grid(payload: dict[str, Any], chosen: MatrixFilter | None = None) -> Grid:
    """The matrix action's cells laid out on its rows and columns, in the action's order.

    With a filter, only its cells are kept, and only the rows and columns that still hold one.
    """
    keep = chosen or MatrixFilter()
    cells = [c for c in payload["cells"] if keep.keeps(c)]
    at = {(c["practice"], c["canon"]): c for c in cells}
    rows, columns = payload["rows"], payload["columns"]
    if keep.active:
        rows = [r for r in rows if any(c["practice"] == r["address"] for c in cells)]
        columns = [col for col in columns if any(c["canon"] == col["address"] for c in cells)]
    slots = [[at.get((row["address"], col["address"])) for col in columns] for row in rows]
    present = {c["relation"] for c in payload["cells"]}
    return Grid(rows, columns, slots, [r for r in RELATIONS if r in present], len(at), len(payload["cells"]))


def page_safe(html: str) -> str:
    """A rendered page with every control and bidirectional character shown as a visible escape (``\\u202e``).

    Autoescaping stops markup, not a right-to-left override that visually reorders a title; the page gets the
    terminal card's own escaping. A line with nothing to escape (``isprintable``) is kept as it is, cheaply.
    """
    return "\n".join(line if line.isprintable() else terminal_safe(line) for line in html.split("\n"))
