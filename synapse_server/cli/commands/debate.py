"""``synapse debate --root DIR``: each project's debate map with practice contradictions folded in.

Read-only. Exit 0, 2 for invalid input.
"""

from __future__ import annotations

import argparse
from typing import Any

from synapse_server.cli.commands.lens_cli import add_common_arguments, add_json_argument, run_lens
from synapse_server.names import project_list_arg
from synapse_server.overlay.debate_view import DebateParams, DebateResult, run_debate
from synapse_server.overlay.lens import params_from


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "debate",
        help="the debate map with the claim overlay's practice contradictions as counter-evidence",
        description="Contested claims per project, literature and practice. Read-only. Exit 0, 2 invalid input.",
    )
    add_common_arguments(parser, projects_help="comma-separated zk projects")
    parser.add_argument("--kind", choices=("claim", "generic"), default="claim", help="overlay to fold in")
    add_json_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    params = params_from(DebateParams, {"kind": args.kind, "projects": project_list_arg(args.projects)})
    return run_lens(args, run_debate, params, _text)


def _text(result: DebateResult) -> str:
    lines = [result.summary, f"overlay: {result.overlay.path} ({result.overlay.drift}: {result.overlay.detail})"]
    for project in result.debates:
        lines.append(f"{project.project} ({project.path or 'no debate.yaml'})")
        lines += [f"  ! {d}" for d in project.diagnostics]
        for claim in project.claims:
            strength = f" [{claim.claim_strength}]" if claim.claim_strength else ""
            lines.append(f"  {claim.claim}  {claim.title or '(not in the zettelkasten)'}{strength}")
            lines.append(f"    contested by {' + '.join(claim.contested_by)}")
            if claim.rationale:
                lines.append(f"    {claim.rationale}")
            for item in claim.counter_evidence:
                typed = f" ({item.relation} {item.confidence:.2f})" if item.relation and item.confidence else ""
                lines.append(f"    - {item.origin}: {item.address}  {item.title or ''}{typed}")
        if not project.claims:
            lines.append("  no contested claims")
    return "\n".join(lines)
