"""The README's example outputs, regenerated from real calls: ``python -m dev.readme_examples``.

Builds the demo workspace in a temporary folder, calls the one tool in memory (the same path an MCP host
takes) with the offline ``extractive`` model, and writes the card the README's first command prints between
the ``demo-card`` markers and each action's one-line ``summary`` into the table between the ``actions-table``
markers of README.md. ``--check`` rewrites nothing and exits 1 when the README differs from what the calls
return (CI runs it through tests/test_readme_examples.py).
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = "<!-- actions-table -->"
END = "<!-- /actions-table -->"
CARD_BEGIN = "<!-- demo-card -->"
CARD_END = "<!-- /demo-card -->"
DEMO_QUESTION = "How did the Sharpe ratio change after costs rose to 8 bps?"
"""The question of the README's first command: its card is the first thing a new user sees."""


@dataclass(frozen=True)
class Row:
    """One table row: the CLI command a reader types and the tool calls whose summaries it quotes."""

    action: str
    cli: str
    calls: tuple[dict[str, Any], ...]


ROWS = (
    Row(
        "navigate",
        'synapse navigate "What Sharpe ratio did the baseline backtest at 5 bps reach?"',
        ({"action": "navigate", "question": "What Sharpe ratio did the baseline backtest at 5 bps reach?"},),
    ),
    Row(
        "navigate",
        'synapse navigate "What is the breakeven round-trip cost for momentum?"',
        ({"action": "navigate", "question": "What is the breakeven round-trip cost for momentum?"},),
    ),
    Row(
        "search",
        'synapse search "transaction costs" --expand',
        ({"action": "search", "query": "transaction costs", "expand": True},),
    ),
    Row("get", "synapse get deci-e17103e8", ({"action": "get", "id": "deci-e17103e8"},)),
    Row(
        "build",
        "synapse build` / `synapse build --kind claim",
        ({"action": "build", "kind": "generic"}, {"action": "build", "kind": "claim"}),
    ),
    Row("connections", "synapse connections deci-e17103e8", ({"action": "connections", "id": "deci-e17103e8"},)),
    Row("matrix", "synapse matrix", ({"action": "matrix"},)),
    Row("synthesize", "synapse synthesize", ({"action": "synthesize"},)),
    Row("debate", "synapse debate", ({"action": "debate"},)),
    Row(
        "frame",
        'synapse frame "How do transaction costs affect momentum returns?"',
        ({"action": "frame", "question": "How do transaction costs affect momentum returns?"},),
    ),
)
"""In table order; the builds run first, so search can expand over the overlay and matrix reads it."""


async def summaries(root: Path) -> dict[int, str]:
    """Each row's summary (a row of several calls joins them with `` / ``), from calls on the workspace at root."""
    from mcp import Client

    from synapse_server.actions.deps import ServerSettings
    from synapse_server.server import build_server

    server = build_server(ServerSettings(root=root, model="extractive"))
    order = sorted(range(len(ROWS)), key=lambda i: ROWS[i].action != "build")
    found: dict[int, str] = {}
    async with Client(server) as client:
        for index in order:
            said = []
            for arguments in ROWS[index].calls:
                result = await client.call_tool("synapse", arguments)
                body = result.structured_content or {}
                if result.is_error or not isinstance(body.get("summary"), str):
                    raise RuntimeError(f"{arguments} returned no summary: {body}")
                said.append(body["summary"])
            found[index] = " / ".join(said)
        card = await client.call_tool("synapse", {"action": "navigate", "question": DEMO_QUESTION})
        found[-1] = demo_card(card.structured_content or {})
    return found


def demo_card(body: dict[str, Any]) -> str:
    """The card ``synapse navigate`` prints for the demo question, as plain text in a fenced block."""
    from synapse_server.actions.navigate_output import result_of
    from synapse_server.present.terminal_card import render_card

    result = result_of(body)
    return "```text\n" + render_card(result, colour=False, width=88) + "```"


def table(found: dict[int, str]) -> str:
    lines = ["| action | CLI | summary it returned |", "|---|---|---|"]
    for index, row in enumerate(ROWS):
        summary = " ".join(found[index].split()).replace("|", "\\|")
        lines.append(f"| {row.action} | `{row.cli}` | {summary} |")
    return "\n".join(lines)


def regenerated(readme: str, generated: str, begin: str = BEGIN, end_marker: str = END) -> str:
    """The README with the text between one pair of markers replaced by the generated text."""
    start, end = readme.find(begin), readme.find(end_marker)
    if start < 0 or end < start:
        raise ValueError(f"README.md has no {begin} ... {end_marker} block")
    return f"{readme[: start + len(begin)]}\n{generated}\n{readme[end:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.readme_examples", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare only: exit 1 when the README is stale")
    parser.add_argument("--readme", type=Path, default=README, help="the README to rewrite or check")
    args = parser.parse_args(argv)
    os.environ.pop("SYNAPSE_MODEL", None)  # the table is the offline model's, whatever the shell configures
    from synapse_server.workspace_init import make_demo

    with tempfile.TemporaryDirectory(prefix="synapse-readme-") as scratch:
        root = make_demo(Path(scratch) / "synapse-demo")
        found = asyncio.run(summaries(root))
    current = args.readme.read_text(encoding="utf-8")
    card = found.pop(-1)
    wanted = regenerated(regenerated(current, table(found)), card, CARD_BEGIN, CARD_END)
    if wanted == current:
        return 0
    if args.check:
        diff = difflib.unified_diff(current.splitlines(), wanted.splitlines(), "README.md", "regenerated", lineterm="")
        sys.stdout.write("\n".join(diff) + "\nREADME.md is stale: run python -m dev.readme_examples\n")
        return 1
    args.readme.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
