"""The licensing rules as docs/grounding.md shows them, rendered from the registry.

``python -m synapse_server.licensing.docs`` prints the section; a test keeps
the doc and the registry in step, and another replays every example.
"""

from __future__ import annotations

import sys

from synapse_server.licensing.rules import JOIN_MARK_NOTE, REGISTRY, Rule

__all__ = ["rules_markdown"]

BEGIN = "<!-- licensing-rules: generated from synapse_server/licensing/rules.py -->"
END = "<!-- end licensing-rules -->"


def rules_markdown() -> str:
    """The rules section: one entry per rule, in priority order, with its example and refusal line."""
    parts = [BEGIN, ""]
    for index, entry in enumerate(REGISTRY, 1):
        parts.extend(_rule(index, entry))
    parts.extend([f"**join marks.** {JOIN_MARK_NOTE}", "", END])
    return "\n".join(parts)


def _rule(index: int, entry: Rule) -> list[str]:
    example = entry.example
    lines = [f"{index}. **`{entry.id.value}`**: {entry.what}. *Why:* {entry.why}.", ""]
    for title, body in example.nodes:
        shown = " / ".join(line for line in body.splitlines() if line.strip())
        lines.append(f"   - cited ({title}): `{shown}`")
    lines.append(f"   - passes: `{_last(example.passes)}`")
    lines.append(f"   - refused: `{_last(example.refused)}`")
    lines.append(f"   - refusal: `{example.refusal}`")
    lines.append("")
    return lines


def _last(lines: str) -> str:
    """The claim a reader compares: the last claim line, without its header."""
    last = lines.split("\n")[-1]
    head, _, text = last.partition(" :: ")
    derive = head.split(' derive "', 1)[1].rstrip('"') if ' derive "' in head else None
    return f'derive "{derive}" :: {text}' if derive else text


if __name__ == "__main__":
    sys.stdout.write(rules_markdown() + "\n")
