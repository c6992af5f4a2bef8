"""``synapse frame QUESTION --root DIR``: facets of a question, each established, contested or thin.

Read-only (the search index under the cache folder may warm). Exit 0, 2 for invalid input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from synapse_server.config import load_workspace
from synapse_server.overlay.frame import FrameParams, FrameResult, run_frame
from synapse_server.overlay.lens import params_from, projects_arg
from synapse_server.stores import Stores, make_embedder


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "frame",
        help="frame a research question into facets across memory and the zettelkasten",
        description="Each facet is established, contested or thin, with the hits that make it so. Exit 0, 2 invalid.",
    )
    parser.add_argument("question", help="the research question")
    parser.add_argument("--root", default=".", help="the workspace folder (default: the current folder)")
    parser.add_argument("--projects", default=None, help="comma-separated zk projects; '' = memory only")
    parser.add_argument("--limit", type=int, default=-1, help="search hits examined per facet (-1 = 8)")
    parser.add_argument("--model", default=None, help="model spec for facets (default: config / SYNAPSE_MODEL)")
    parser.add_argument("--json", action="store_true", help="print the JSON result instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values = {"question": args.question, "projects": projects_arg(args.projects), "limit": args.limit}
    params = params_from(FrameParams, {**values, "model": args.model})
    workspace = load_workspace(Path(args.root))
    result = run_frame(workspace, Stores.load(workspace), make_embedder(workspace), params)
    print(result.model_dump_json(indent=2) if args.json else _text(result))
    return 0


def _text(result: FrameResult) -> str:
    lines = [result.summary, f"facets by {result.decomposition} ({result.model.id})"]
    if result.note:
        lines.append(f"note: {result.note}")
    for facet in result.facets:
        lines.append(f"[{facet.status}] {facet.facet}: {facet.reason}")
        for hit in facet.hits:
            marks = [m for m, on in (("verified-looking", hit.verified_looking), ("contested", hit.contested)) if on]
            marks += [f"contradicted by {a}" for a in hit.contradicted_by]
            lines.append(
                f"    {hit.store:<6} {hit.address}  {hit.title}" + (f"  ({'; '.join(marks)})" if marks else "")
            )
    return "\n".join(lines)
