"""``synapse connections ID --root DIR [--kind generic|claim]``: the typed cross-store edges of one node.

``ID`` is a memory id, a note id or a full ``mem:``/``zk:`` address. Read-only.
Exit 0 (also when no overlay was built: the answer is then empty with drift
``missing``), 2 for an unknown, ambiguous or malformed id.
"""

from __future__ import annotations

import argparse
from typing import Any

from synapse_server.cli.options import add_root, workspace_root
from synapse_server.overlay.connections import ConnectionsResult, connections
from synapse_server.workspace.config import load_workspace


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "connections",
        help="list the typed practice <-> canon edges touching a memory entry or a note",
        description="Read the overlay built by synapse build. Exit 0, or 2 for an unknown or ambiguous id.",
    )
    parser.add_argument("id", help="a memory id (deci-...), a note id, or a mem:/zk: address")
    add_root(parser)
    parser.add_argument("--kind", choices=("generic", "claim"), default="generic", help="which overlay to read")
    parser.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = connections(load_workspace(workspace_root(args)), args.id, args.kind)
    print(result.model_dump_json(indent=2, exclude_none=True) if args.json else _text(result))
    return 0


_BASIS_SHOWN = {"judged": "judged", "cosine": "cosine only", "shared-file": "shared file only"}


def _text(result: ConnectionsResult) -> str:
    lines = [f"{result.node} ({result.role}); {result.kind} overlay {result.drift}: {result.detail}"]
    for link in result.edges:
        other = link.canon if result.role == "practice" else link.practice
        weight = f"priority {link.priority:.2f}, " if link.priority is not None else ""
        basis = _BASIS_SHOWN[link.evidence()]
        lines.append(
            f"  {link.relation:<13} {other}  ({weight}confidence {link.confidence:.2f}, {basis}, {link.typer})"
        )
        lines.append(f"                {link.rationale}")
    if not result.edges:
        lines.append("  no edges")
    return "\n".join(lines)
