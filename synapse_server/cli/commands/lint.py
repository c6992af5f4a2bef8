"""``synapse lint --root DIR [--json]``: code-style diagnostics for every store of a workspace.

Exit 1 when there is at least one error, 0 otherwise; an unusable root or an
invalid config is invalid input (exit 2, mapped by the CLI).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from synapse_server.cli.options import add_root, workspace_root
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "lint",
        help="check the workspace's stores for broken references, stale tethers and malformed files",
        description=(
            "Print one 'path:line: severity[code] message' line per problem and a summary line. "
            "Exit 1 when there are errors, 0 otherwise, 2 for invalid input."
        ),
    )
    add_root(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    parser.add_argument("--verbose", "-v", action="store_true", help="also show info notes (absent optional stores)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    report = lint_workspace(load_workspace(workspace_root(args)))
    if args.json:
        payload = report.to_dict()
        if args.verbose:
            payload["notes"] = [
                {"path": d.path, "line": d.line, "severity": d.severity, "code": d.code, "message": d.message}
                for d in report.notes
            ]
        print(json.dumps(payload, indent=2))
    else:
        print("\n".join(report.lines(verbose=args.verbose)))
    return 1 if report.errors else 0
