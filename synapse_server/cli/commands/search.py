"""``synapse search QUERY --root DIR [--projects a,b] [--limit N] [--json]``: the search action from a shell.

``--json`` prints exactly the tool's JSON; ``--projects ''`` means memory only.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.actions.search import SearchHit, SearchParams, search
from synapse_server.cli.options import add_root, workspace_root
from synapse_server.mcp.dispatch import result_payload, validated
from synapse_server.names import project_list_arg


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "search",
        help="hybrid search across the memory tree and the zettelkasten",
        description="Keyword + meaning search (RRF-fused) across memory (practice) and the scoped zk projects (canon).",
    )
    parser.add_argument("query", metavar="QUERY", help="keywords or a question")
    add_root(parser)
    parser.add_argument("--projects", default=None, help="comma-separated zk projects; '' = memory only")
    parser.add_argument("--limit", type=int, default=10, help="how many hits (1-100, default 10)")
    parser.add_argument("--expand", action="store_true", help="also list the hits' 1-hop overlay neighbours")
    parser.add_argument("--json", action="store_true", help="print the tool's JSON instead of text")
    parser.set_defaults(handler=run)


def channels(hit: SearchHit) -> str:
    """Why a hit is here: its keyword rank, its semantic rank and cosine similarity."""
    keyword = f"keyword #{hit.lexical_rank}" if hit.lexical_rank is not None else "no keyword"
    semantic = f"semantic #{hit.semantic_rank}" if hit.semantic_rank is not None else "no semantic"
    similarity = f" sim {hit.similarity:.2f}" if hit.similarity is not None else ""
    return f"[{keyword}, {semantic}{similarity}]"


def run(args: argparse.Namespace) -> int:
    root = workspace_root(args)
    values: dict[str, Any] = {"query": args.query, "limit": args.limit, "expand": args.expand}
    if args.projects is not None:
        values["projects"] = project_list_arg(args.projects)
    params = validated(SearchParams, values)
    deps = Deps(ServerSettings(root=root, prespawn=False))
    try:
        out = search(deps, params)
    finally:
        deps.close()
    if args.json:
        print(json.dumps(result_payload("search", out), ensure_ascii=False, indent=2))
        return 0
    print(out.summary)
    for hit in out.hits:
        where = f"{hit.store}/{hit.tier}" if hit.tier else hit.store
        print(f"{hit.rank:>3}. [{where}] {hit.title}  ({hit.address})  {channels(hit)}")
        print(f"     {' '.join(hit.snippet.split())}")
        if hit.also:
            print(f"     also: {', '.join(hit.also)}")
    for item in out.expansions:
        print(
            f"  +  [{item.store}/{item.tier}] {item.title or item.address}  ({item.address}) {item.relation} via {item.via}"
        )
    return 0
