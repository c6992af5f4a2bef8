"""``synapse synthesize --root DIR``: grounded briefs for the claim overlay's high-value cells.

Each brief cites the memory id, quotes only retrieved quotes, and is checked by
the traceability verifier; a brief that fails is printed FLAGGED with what
failed, never rewritten. Read-only. Exit 0, 2 for invalid input.
"""

from __future__ import annotations

import argparse
from typing import Any

from synapse_server.cli.commands.lens_cli import add_common_arguments, add_json_argument, run_lens
from synapse_server.names import project_list_arg
from synapse_server.overlay.briefs import SynthesizeParams, SynthesizeResult, brief_mark, run_synthesize
from synapse_server.overlay.lens import params_from


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "synthesize",
        help="grounded, verified briefs for the claim overlay's high-value practice-claim cells",
        description="Briefs cite the memory id and quote only retrieved quotes. Read-only. Exit 0, 2 invalid input.",
    )
    add_common_arguments(parser, projects_help="comma-separated zk projects; '' = memory only")
    parser.add_argument("--kind", choices=("claim",), default="claim", help="briefs read the claim overlay only")
    parser.add_argument("--min-confidence", type=float, default=-1.0, help="high-value threshold (-1 = 0.6)")
    parser.add_argument("--limit", type=int, default=-1, help="most briefs (-1 = 10)")
    parser.add_argument("--model", default=None, help="model spec for briefs (default: config / SYNAPSE_MODEL)")
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    values = {"kind": args.kind, "projects": project_list_arg(args.projects), "min_confidence": args.min_confidence}
    params = params_from(SynthesizeParams, {**values, "limit": args.limit, "model": args.model})
    return run_lens(args, run_synthesize, params, _text)


def _text(result: SynthesizeResult) -> str:
    lines = [result.summary, f"briefs by {result.model.provider}: {result.model.id}", ""]
    for brief in result.briefs:
        mark = brief_mark(brief)
        strength = f", {brief.claim_strength} claim" if brief.claim_strength else ""
        lines.append(
            f"[{mark}] {brief.practice} --{brief.relation}--> {brief.canon} "
            f"({brief.why}{strength}, priority {brief.priority:.2f})"
        )
        lines.append(f"  {brief.text}")
        for failure in brief.failures:
            lines.append(f"  ! {failure.kind} does not trace: {failure.text}")
    lines += ["", "verified=true does not rule out: " + "; ".join(result.blind_spots)]
    return "\n".join(lines)
