"""``synapse init [--demo] DIR``: create an empty workspace, or the complete demo workspace."""

from __future__ import annotations

import argparse
import json
from typing import Any

from synapse_server.workspace_init import init_workspace, make_demo


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        help="create a workspace (or the demo workspace)",
        description="Create an empty, valid Synapse workspace in DIR, or with --demo the complete demo workspace.",
    )
    parser.add_argument("dir", metavar="DIR", help="the workspace folder (created if absent)")
    parser.add_argument("--demo", action="store_true", help="write the momentum-research demo workspace instead")
    parser.add_argument("--json", action="store_true", help="print a JSON object instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.demo:
        make_demo(args.dir)
    else:
        init_workspace(args.dir)
    kind = "demo" if args.demo else "empty"
    if args.json:
        print(json.dumps({"workspace": args.dir, "kind": kind}))
    elif args.demo:
        print(f"demo workspace written to {args.dir}")
        print(f"see its seeded defects with: synapse lint --root {args.dir}")
    else:
        print(f"initialised an empty workspace in {args.dir}")
        print(f"check it with: synapse lint --root {args.dir}")
    return 0
