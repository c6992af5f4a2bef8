"""``synapse eval --root DIR [--queries FILE]`` (also ``python -m synapse_server.eval``): retrieval with vs
without expansion, and an edge spot-check; one argument set, one handler. Read-only.

Prints the text report (``--json`` for the structured one); exit 0 on a
completed run, 2 for invalid input (a bad root, queries file or option).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from synapse_server.cli.options import add_root, workspace_root
from synapse_server.errors import SynapseError
from synapse_server.eval.run import DEFAULT_K, DEFAULT_SAMPLE, format_report, run_eval
from synapse_server.names import project_list_arg
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores, make_embedder

__all__ = ["add_arguments", "handle", "main", "register"]


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="measure recall@k and MRR with and without overlay expansion; sample typed edges to judge",
        description="Labelled queries (default: the demo set) and a deterministic edge sample. Exit 0, 2 invalid.",
    )
    add_arguments(parser)
    parser.set_defaults(handler=handle)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    parser.add_argument("--queries", type=Path, default=None, help="labelled query set (default: the demo set)")
    parser.add_argument("--k", type=_positive, default=DEFAULT_K, help=f"search depth (default {DEFAULT_K})")
    parser.add_argument("--kind", choices=("generic", "claim"), default="generic", help="overlay used for expansion")
    parser.add_argument("--projects", default=None, help="comma-separated zk projects; '' = memory only")
    parser.add_argument(
        "--sample", type=_non_negative, default=DEFAULT_SAMPLE, help="typed edges in the precision spot-check"
    )
    parser.add_argument("--json", action="store_true", help="print the structured report")


def handle(args: argparse.Namespace) -> int:
    workspace = load_workspace(workspace_root(args))
    projects = project_list_arg(args.projects)
    report = run_eval(
        workspace,
        Stores.load(workspace, ("memory", "zk")),
        make_embedder(workspace),
        queries=args.queries,
        k=args.k,
        kind=args.kind,
        projects=projects,
        sample=args.sample,
    )
    print(json.dumps(report.model_dump(mode="json"), indent=2) if args.json else format_report(report))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m synapse_server.eval",
        description="Retrieval with vs without overlay expansion (recall@k, MRR) and a typed-edge spot-check.",
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return handle(args)
    except SynapseError as exc:
        sys.stderr.write(json.dumps({"error": {"kind": exc.kind, "message": exc.message}}) + "\n")
        return exc.exit_code


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value
