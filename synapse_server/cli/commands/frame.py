"""``synapse frame QUESTION --root DIR``: facets of a question, each established, contested or thin.

Read-only (the search index under the cache folder may warm). Exit 0, 2 for invalid input.
"""

from __future__ import annotations

import argparse
from typing import Any

from synapse_server.cli.commands.lens_cli import add_common_arguments, add_json_argument, run_lens
from synapse_server.names import project_list_arg
from synapse_server.overlay.frame import FrameParams, FrameResult, run_frame
from synapse_server.overlay.lens import params_from


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "frame",
        help="frame a research question into facets across memory and the zettelkasten",
        description="Each facet is established, contested or thin, with the hits that make it so. Exit 0, 2 invalid.",
    )
    parser.add_argument("question", help="the research question")
    add_common_arguments(parser, projects_help="comma-separated zk projects; '' = memory only")
    parser.add_argument("--limit", type=int, default=-1, help="search hits examined per facet (-1 = 8)")
    parser.add_argument("--model", default=None, help="model spec for facets (default: config / SYNAPSE_MODEL)")
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values = {"question": args.question, "projects": project_list_arg(args.projects), "limit": args.limit}
    params = params_from(FrameParams, {**values, "model": args.model})
    return run_lens(args, run_frame, params, _text, search=True)


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
