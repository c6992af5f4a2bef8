"""``synapse get ID --root DIR [--json]``: the get action from a shell (a memory id or any canonical address)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.actions.get import GetParams, get_node
from synapse_server.cli.options import add_root, workspace_root
from synapse_server.mcp.dispatch import result_payload, validated


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "get",
        help="print one node's full body and metadata",
        description="Print a memory entry (by id, e.g. deci-e17103e8) or any node by canonical address.",
    )
    parser.add_argument("id", metavar="ID", help="a memory id or a canonical address (zk:research:<id>, ...)")
    add_root(parser)
    parser.add_argument("--json", action="store_true", help="print the tool's JSON instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    root = workspace_root(args)
    params = validated(GetParams, {"id": args.id})
    deps = Deps(ServerSettings(root=root, prespawn=False))
    try:
        out = get_node(deps, params)
    finally:
        deps.close()
    if args.json:
        print(json.dumps(result_payload("get", out), ensure_ascii=False, indent=2))
        return 0
    print(f"{out.address}  [{out.type}, {out.family}{'/' + out.tier if out.tier else ''}]")
    print(f"title: {out.title}")
    if out.path:
        print(f"file: {out.path}" + (f":{out.line}" if out.line else ""))
    for tether in out.tethers:
        print(f"tether: {tether.kind} {tether.target}" + (f"@{tether.ref}" if tether.ref else ""))
    print()
    print(out.body + ("\n[... truncated]" if out.truncated else ""))
    return 0
