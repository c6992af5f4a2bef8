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


def parse_section(fig: dict[str, Any]) -> str:
    """The MemDSL parse/serialize table and the atomic-units scaling rows of parse_bench."""
    parsed = fig.get("parse") or []
    rows = [[f"{r['kind']} {r['size']}", fmt(r["bytes"]), fmt(r["parse_mb_s"], ".2f"), fmt(r["parse_per_s"], ",.0f"),
             fmt(r["serialize_mb_s"], ".2f"), fmt(r["serialize_per_s"], ",.0f")]
            for r in parsed if "size" in r]  # fmt: skip
    scaling = [[r["body"], fmt(r["chars"]), fmt(r["ms"], ".1f"), "-" if r.get("ratio") is None else fmt(r["ratio"], ".2f")]
               for r in parsed if r.get("kind") == "atomic_units"]  # fmt: skip
    if not rows and not scaling:
        return ""
    header = ["artifact", "bytes", "parse MB/s", "parse /s", "serialize MB/s", "serialize /s"]
    text = f"## MemDSL wire protocol (parse_bench.py, best of 3 batches)\n\n{table(header, rows)}"
    if scaling:
        text += (
            "\n\n`atomic_units` on hostile bodies (time per call; ratio to the half-size row, about 2 when linear):\n\n"
        )
        text += table(["body", "chars", "ms", "ratio"], scaling)
    return text
