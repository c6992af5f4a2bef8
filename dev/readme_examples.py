"""The README's example outputs, regenerated from real calls: ``python -m dev.readme_examples``.

Builds the demo workspace in a temporary folder, calls the one tool in memory (the same path an MCP host
takes) with the offline ``extractive`` model, and writes the card the README's first command prints between
the ``demo-card`` markers and each action's one-line ``summary`` into the table between the ``actions-table``
markers of README.md; then one turn the host's own model completes (``model: host``) between the
``host-transcript`` markers. ``--check`` rewrites nothing and exits 1 when the README differs from what the calls
return (CI runs it through tests/test_readme_examples.py).
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
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
HOST_BEGIN = "<!-- host-transcript -->"
HOST_END = "<!-- /host-transcript -->"
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
    from synapse_server.mcp.server import build_server

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


HOST_QUESTION = "What annualised volatility target do the momentum positions use?"
HOST_CLAIM = "The momentum signal scales positions to a 10% annualised volatility target."
ENVELOPE_LINES_SHOWN = 4


async def host_transcript(root: Path) -> str:
    """One navigate turn the host's own model completes (``model: host``), as a host sees it: the pending
    turn, the reply its model writes, the verdict. Random parts (the token, the turn id) are shortened."""
    from mcp import Client
    from mcp.types import Implementation

    from synapse_server.actions.deps import ServerSettings
    from synapse_server.mcp.server import build_server
    from synapse_server.navigation.prompt import sections

    server = build_server(ServerSettings(root=root, model="host"))
    async with Client(server, client_info=Implementation(name="claude-code", version="2.1")) as client:
        pending = (
            await client.call_tool("synapse", {"action": "navigate", "question": HOST_QUESTION})
        ).structured_content
        if not pending or pending.get("verdict") != "pending":
            raise RuntimeError(f"the host turn did not start: {pending}")
        found = sections(pending["prompt"])
        envelope = found["ENVELOPE"].splitlines()
        ref = next(line.split(" ")[1] for line in envelope if " mem:tree:deci-c3d4e5f6 " in line)
        reply = "\n".join(
            (
                "@memdsl.out/2",
                "@answer",
                f"claim c1 [restatement] cites {ref} :: {HOST_CLAIM}",
                f"prose :: {HOST_CLAIM}",
                f"cite c1 :: {HOST_CLAIM}",
                "conclude c1",
            )
        )
        done = (
            await client.call_tool("synapse", {"action": "navigate", "turn": pending["turn"], "reply": reply})
        ).structured_content or {}
    rules = pending["prompt"].index("=== QUESTION ===")
    shown = [f"    {line}" for line in envelope[:ENVELOPE_LINES_SHOWN]]
    return "\n".join(
        [
            "```text",
            f'-> synapse(action="navigate", question="{HOST_QUESTION}")',
            f"<- verdict: {pending['verdict']}   step: {pending['step']}   model: {pending['model']['provider']} "
            f"({pending['model']['id']})",
            f"   turn: st1.<claims>.<signature> (a signed token, {len(pending['turn'])} characters)",
            f"   prompt: {rules:,} characters of navigator rules, then:",
            "    === QUESTION ===",
            f"    {found['QUESTION']}",
            "    === END QUESTION ===",
            "    === ENVELOPE ===",
            *shown,
            f"    ... ({len(envelope) - ENVELOPE_LINES_SHOWN} more lines)",
            '-> synapse(action="navigate", turn="st1.<claims>.<signature>", reply=<the artifact below>)',
            *(f"    {line}" for line in reply.splitlines()),
            f"<- {done.get('summary')}",
            f"   model: {json.dumps(done.get('model'))}",
            f"   envelope_resource: {str(done.get('envelope_resource'))[:16]}<turn id>/envelope",
            "```",
        ]
    )


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
    from synapse_server.workspace.init import make_demo

    with tempfile.TemporaryDirectory(prefix="synapse-readme-") as scratch:
        root = make_demo(Path(scratch) / "synapse-demo")
        found = asyncio.run(summaries(root))
        transcript = asyncio.run(host_transcript(root))
    current = args.readme.read_text(encoding="utf-8")
    card = found.pop(-1)
    wanted = regenerated(regenerated(current, table(found)), card, CARD_BEGIN, CARD_END)
    wanted = regenerated(wanted, transcript, HOST_BEGIN, HOST_END)
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
