"""``synapse build --root DIR [--kind generic|claim]``: (re)build a practice <-> canon overlay.

The one command that writes, and only ``.synapse/links/``. It calls the same
``build_overlay`` the MCP tool calls. ``--write-free`` (or ``SYNAPSE_WRITE_FREE=1``,
or ``write_free: true`` in the config) refuses before any work: exit 2, nothing written. Exit 0 on a
written overlay, 2 for invalid input, 1 for an operational failure (a model
provider that failed mid-build; the previous overlay is then left in place).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from synapse_server.actions.deps import WRITE_FREE_ENV, ServerSettings
from synapse_server.cli.options import add_root, workspace_root
from synapse_server.errors import InvalidInput
from synapse_server.names import project_list_arg
from synapse_server.overlay.build import MIN_CONFIDENCE, BuildReport, build_overlay, typer_model
from synapse_server.overlay.candidates import NEIGHBOURS
from synapse_server.overlay.store import refuse_if_write_free
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores, make_embedder


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "build",
        help="(re)build the typed practice <-> canon overlay under .synapse/links/ (the only write)",
        description=(
            "Propose memory <-> zettelkasten pairs (nearest neighbours + shared code paths), type each one and "
            "write the signed overlay. Exit 0 written, 2 invalid input or write-free, 1 operational failure."
        ),
    )
    add_root(parser)
    parser.add_argument("--kind", choices=("generic", "claim"), default="generic", help="which overlay to build")
    parser.add_argument(
        "--min-confidence",
        type=float,
        default=MIN_CONFIDENCE,
        help=f"keep edges whose typer confidence is at least this (default {MIN_CONFIDENCE})",
    )
    parser.add_argument(
        "--neighbours",
        type=int,
        default=NEIGHBOURS,
        help=f"semantic neighbours per memory entry (default {NEIGHBOURS}; x4 for claim)",
    )
    parser.add_argument("--projects", default=None, help="comma-separated zk projects (default: the config scope)")
    parser.add_argument(
        "--model", default=None, help="typer model spec: extractive (offline), script:PATH, command:CMD, openai:M, ..."
    )
    parser.add_argument(
        "--write-free",
        action="store_true",
        help=f"refuse to write (as a write-free server does; also {WRITE_FREE_ENV}=1 or write_free: true in the config)",
    )
    parser.add_argument("--json", action="store_true", help="print the build report as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    workspace = load_workspace(workspace_root(args))
    write_free = ServerSettings.from_environment(workspace.root, write_free=args.write_free).write_free
    refuse_if_write_free(workspace, write_free)  # before stores or a model: a refused build does no work
    projects = project_list_arg(args.projects)
    if not 0.0 <= args.min_confidence <= 1.0:
        raise InvalidInput("--min-confidence must be between 0 and 1", parameter="min_confidence")
    model = typer_model(workspace, args.model)
    line = ProgressLine(sys.stderr) if sys.stderr.isatty() else None
    try:
        report = build_overlay(
            workspace,
            Stores.load(workspace),
            make_embedder(workspace),
            kind=args.kind,
            model=model,
            min_confidence=args.min_confidence,
            projects=projects,
            neighbours=args.neighbours,
            progress=line,
        )
    finally:  # the summary, or an error, starts on a line of its own
        if line is not None:
            line.end()
    print(report.model_dump_json(indent=2) if args.json else _text(report))
    return 0


def _text(report: BuildReport) -> str:
    relations = ", ".join(f"{n} {r}" for r, n in report.relations.items()) or "none"
    lines = [
        f"{report.path}: {report.kept} links kept of {report.typed} typed ({report.candidates} candidates, "
        f"{report.skipped} skipped) by {report.typer}",
        f"relations: {relations}; min confidence {report.min_confidence}; scope: {', '.join(report.projects) or '-'}",
        f"signature {report.signature}",
    ]
    lines.extend(f"skipped because: {reason}" for reason in report.skip_reasons)
    return "\n".join(lines)


class ProgressLine:
    """One status line on a terminal, rewritten in place: each update is padded over the longer one before it
    (spaces, not a clear-line code, so the terminal-safe writer passes it as it is), and ``end`` closes it."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.width = 0

    def __call__(self, done: int, total: int, message: str) -> None:
        self.stream.write(f"\r{message}{' ' * (self.width - len(message))}")
        self.stream.flush()
        self.width = len(message)

    def end(self) -> None:
        if self.width:
            self.stream.write("\n")
            self.stream.flush()
        self.width = 0
