"""``synapse matrix --root DIR [--kind generic|claim] [--synthesize]``: the overlay as practice x canon.

Read-only. Exit 0 (also when no overlay was built: the matrix is then empty
with drift ``missing``), 2 for invalid input.
"""

from __future__ import annotations

import argparse
from typing import Any

from synapse_server.cli.commands.lens_cli import add_common_arguments, add_json_argument, run_lens
from synapse_server.names import project_list_arg
from synapse_server.overlay.lens import params_from
from synapse_server.overlay.matrix import MatrixParams, MatrixResult, run_matrix


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "matrix",
        help="project the overlay as a practice x canon matrix (optional roll-up synthesis)",
        description="Rows are memory entries, columns notes, cells typed edges. Read-only. Exit 0, 2 invalid input.",
    )
    add_common_arguments(parser, projects_help="comma-separated zk projects; '' = memory only")
    parser.add_argument("--kind", choices=("generic", "claim"), default="generic", help="which overlay to read")
    parser.add_argument("--synthesize", action="store_true", help="add row, column and apex roll-ups")
    parser.add_argument("--limit", type=int, default=-1, help="rows and columns shown, each (-1 = all)")
    parser.add_argument("--model", default=None, help="model spec for roll-ups (default: config / SYNAPSE_MODEL)")
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values = {"kind": args.kind, "projects": project_list_arg(args.projects), "synthesize": args.synthesize}
    params = params_from(MatrixParams, {**values, "limit": args.limit, "model": args.model})
    return run_lens(args, run_matrix, params, _text)


def _text(result: MatrixResult) -> str:
    lines = [result.summary, f"overlay: {result.overlay.path} ({result.overlay.drift}: {result.overlay.detail})"]
    names = {axis.address: axis.title or axis.address for axis in (*result.rows, *result.columns)}
    for label, axes, hidden in (("rows (practice)", result.rows, result.hidden_rows),
                                ("columns (canon)", result.columns, result.hidden_columns)):  # fmt: skip
        lines.append(f"{label}:")
        for axis in axes:
            counts = ", ".join(f"{n} {r}" for r, n in axis.relations.items())
            lines.append(f"  {axis.address}  {names[axis.address]}  [{counts}; weight {axis.weight:.2f}]")
        if hidden:
            lines.append(f"  ... and {hidden} more (raise --limit)")
    lines.append("cells:")
    for cell in result.cells:
        strength = f", {cell.claim_strength}" if cell.claim_strength else ""
        strength += ", shared file only" if cell.basis == "shared-file" else ""
        lines.append(
            f"  {names[cell.practice]} --{cell.relation} ({cell.confidence:.2f}, priority {cell.priority:.2f}"
            f"{strength})--> {names[cell.canon]}"
        )
    if result.synthesis is not None:
        synthesis = result.synthesis
        lines += [f"synthesis ({synthesis.mode}: {synthesis.model.id}): {synthesis.note}", f"  apex: {synthesis.apex}"]
        lines += [f"  {r.address}: {r.text}" for r in (*synthesis.rows, *synthesis.columns)]
    return "\n".join(lines)
