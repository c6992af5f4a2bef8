"""How a memdsl declaration reads in its node body: the statement verbatim, then every field as a citable line.

The body is what search ranks and what a navigator quotes, so nothing a
declaration says may be left out of it: a decision's ``reason``, a goal's
``success_signal`` and a scope written as a call form (``project("Aurora")``)
are all answers to someone's question. The shape:

- the statement (``rule``, ``claim``, ``decision``, …) verbatim on its own
  line; a boundary's first line also carries its force
  (``Rule (hard, must obey): …``) so the obligation survives into the evidence;
- every other field in source order as one list item, ``- label: value``, the
  label the field name with ``_`` read as a space (``- next action: …``); a
  list reads ``a, b`` (an empty one ``none``, which is a statement too: a
  boundary with no exceptions); a value is kept verbatim, call forms included;
- a block reads one line per entry: ``lifecycle`` and ``relations`` entries
  under their own names (``- status: active``, ``- conflicts with: …``),
  ``guard`` phrases quoted (``- guard deny any: "card number", "PAN"``), any
  other block prefixed by its name (``- access policy readers: …``);
- evidence last, one line per block: ``- evidence (chat): "quote"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["UNNAMED_BLOCKS", "body_lines", "label"]

UNNAMED_BLOCKS = frozenset({"lifecycle", "relations"})
"""Blocks whose entries read under their own names: ``status`` says the same inside ``lifecycle`` as outside it."""


def label(key: str) -> str:
    """A field name as a reader says it: ``next_action`` -> ``next action``."""
    return key.replace("_", " ")


def body_lines(kind: str, fields: Mapping[str, Any], statement_key: str | None) -> list[str]:
    """The lines of a declaration's body (see the module docstring for the shape)."""
    lines: list[str] = []
    statement = fields.get(statement_key) if statement_key else None
    if isinstance(statement, str):
        if kind == "boundary":
            force = fields.get("force") if isinstance(fields.get("force"), str) else None
            binding = "must obey" if force == "hard" else "should obey"
            lines += [f"Rule ({force or 'unstated force'}, {binding}): {statement}", ""]
        lines += [statement, ""]
    for key, value in fields.items():
        if key == statement_key or key == "evidence" or (key == "force" and kind == "boundary"):
            continue
        lines.extend(_field_lines(key, value))
    for block in _blocks(fields.get("evidence")):
        lines.append(_evidence_line(block))
    if "evidence" in fields and not _blocks(fields["evidence"]):
        lines.append(f"- evidence: {_flat(fields['evidence'])}")
    return lines


def _field_lines(key: str, value: Any) -> list[str]:
    if isinstance(value, dict):
        return _block_lines(key, value)
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return [line for item in value for line in _block_lines(key, item)]
    return [f"- {label(key)}: {_flat(value)}"]


def _block_lines(key: str, block: Mapping[str, Any]) -> list[str]:
    prefix = "" if key in UNNAMED_BLOCKS else f"{label(key)} "
    lines: list[str] = []
    for inner, value in block.items():
        if key == "guard" and not isinstance(value, dict):
            lines.append(f"- guard {label(inner)}: {_quoted(value)}")
        elif isinstance(value, dict):
            lines.extend(_block_lines(f"{prefix}{inner}".strip(), value))
        else:
            lines.append(f"- {prefix}{label(inner)}: {_flat(value)}")
    if not block:
        lines.append(f"- {label(key)}: none")
    return lines


def _evidence_line(block: Mapping[str, Any]) -> str:
    source, quote = block.get("source"), block.get("quote")
    rest = "; ".join(f"{label(k)}: {_flat(v)}" for k, v in block.items() if k not in ("source", "quote"))
    if not isinstance(quote, str):
        return f"- evidence: {'; '.join(part for part in (_flat(source) if source else '', rest) if part) or 'none'}"
    where = f" ({_flat(source)})" if source is not None else ""
    return f'- evidence{where}: "{quote}"' + (f" ({rest})" if rest else "")


def _blocks(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict)]
    return []


def _flat(value: Any) -> str:
    """A value as text: a list reads ``a, b`` (``none`` when empty), a block ``key: value; …``."""
    if isinstance(value, list):
        return ", ".join(_flat(item) for item in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{label(k)}: {_flat(v)}" for k, v in value.items()) or "none"
    return str(value)


def _quoted(value: Any) -> str:
    """Guard phrases quoted one by one, so a phrase holding a comma still reads as one phrase."""
    items = value if isinstance(value, list) else [value]
    return ", ".join(f'"{item}"' if isinstance(item, str) else _flat(item) for item in items) or "none"
