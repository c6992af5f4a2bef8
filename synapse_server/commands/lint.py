"""``synapse lint --root DIR [--json]``: code-style diagnostics for every store of a workspace.

Exit 1 when there is at least one error, 0 otherwise; an unusable root or an
invalid config is invalid input (exit 2, mapped by the CLI).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from synapse_server.config import load_workspace
from synapse_server.lint import lint_workspace


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "lint",
        help="check the workspace's stores for broken references, stale tethers and malformed files",
        description=(
            "Print one 'path:line: severity[code] message' line per problem and a summary line. "
            "Exit 1 when there are errors, 0 otherwise, 2 for invalid input."
        ),
    )
    parser.add_argument("--root", default=".", help="the workspace folder (default: the current folder)")
    parser.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    report = lint_workspace(load_workspace(Path(args.root)))
    if args.json:
        print(report.to_json())
    else:
        print("\n".join(report.lines()))
    return 1 if report.errors else 0
