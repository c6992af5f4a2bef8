"""``synapse debate --root DIR``: each project's debate map with practice contradictions folded in.

Read-only. Exit 0, 2 for invalid input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from synapse_server.config import load_workspace
from synapse_server.overlay.debate_view import DebateParams, DebateResult, run_debate
from synapse_server.overlay.lens import params_from, projects_arg
from synapse_server.stores import Stores


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "debate",
        help="the debate map with the claim overlay's practice contradictions as counter-evidence",
        description="Contested claims per project, literature and practice. Read-only. Exit 0, 2 invalid input.",
    )
    parser.add_argument("--root", default=".", help="the workspace folder (default: the current folder)")
    parser.add_argument("--kind", choices=("claim", "generic"), default="claim", help="overlay to fold in")
    parser.add_argument("--projects", default=None, help="comma-separated zk projects")
    parser.add_argument("--json", action="store_true", help="print the JSON result instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    params = params_from(DebateParams, {"kind": args.kind, "projects": projects_arg(args.projects)})
    workspace = load_workspace(Path(args.root))
    result = run_debate(workspace, Stores.load(workspace, ("memory", "zk")), None, params)
    print(result.model_dump_json(indent=2) if args.json else _text(result))
    return 0


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
