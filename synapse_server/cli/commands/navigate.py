"""``synapse navigate QUESTION --root DIR``: a readable answer or abstention card; ``--json`` for the tool's JSON.

The card (``--trace`` adds the reasoning tree) is for people and is coloured
only on a terminal that has not set ``NO_COLOR``; ``--json`` prints exactly the
JSON the ``synapse`` tool returns for navigate, for scripts. Exit 0 for an answer or an abstention (both are honest outcomes), 2 for
invalid input, 1 for an operational failure (verdict ``failure``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from typing import Any

from pydantic import ValidationError

from synapse_server.actions.navigate_output import with_summary
from synapse_server.cli.options import add_root, workspace_root
from synapse_server.cli.terminal import write_vetted
from synapse_server.errors import InvalidInput
from synapse_server.isolation.turn import navigate_turn
from synapse_server.mcp.dispatch import result_payload
from synapse_server.models import model_spec_from, parse_model_spec
from synapse_server.names import project_list_arg
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.turn import HOST_ELSEWHERE
from synapse_server.present.terminal_card import render_card
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import make_embedder


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "navigate",
        help="answer a question from the workspace's evidence, or abstain with a reason",
        description="Print an answer or abstention card (--json: the public navigate JSON). "
        "Exit 0 answer/abstain, 2 invalid input, 1 operational failure.",
    )
    parser.add_argument("question", help="the question to answer")
    add_root(parser)
    parser.add_argument(
        "--model", default=None, help="model spec: extractive, script:PATH, command:CMD, openai:M, anthropic:M"
    )
    parser.add_argument("--projects", default=None, help="comma-separated zk projects; '' = memory only")
    parser.add_argument("--max-nodes", type=int, default=-1, help="-1 default, 0 token-derived ceiling, >0 hard cap")
    parser.add_argument("--hops", type=int, default=-1, help="pre-loop breadth-first depth (-1 default)")
    parser.add_argument("--token-budget", type=int, default=-1, help="hard per-run token guardrail (-1 default)")
    parser.add_argument("--render-max-body-chars", type=int, default=-1, help="body chars per node; 0 = no elision")
    parser.add_argument("--trace-floor", type=float, default=-1.0, help="compatibility dial (-1 default)")
    parser.add_argument("--trace", action="store_true", help="add the reasoning tree (claims, premises, flags)")
    parser.add_argument("--json", action="store_true", help="print the tool's exact JSON instead of the card")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    projects = project_list_arg(args.projects)
    try:
        request = NavigateRequest(
            question=args.question,
            projects=projects,
            model=args.model,
            max_nodes=args.max_nodes,
            hops=args.hops,
            token_budget=args.token_budget,
            render_max_body_chars=args.render_max_body_chars,
            trace_floor=args.trace_floor,
        )
    except ValidationError as error:
        first = error.errors()[0]
        parameter = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(f"{parameter}: {first['msg']}", parameter=parameter) from None
    workspace = load_workspace(workspace_root(args))
    _ = workspace.cache_dir  # a folder that is not a workspace gets no cache: invalid input (exit 2), said up front
    if parse_model_spec(model_spec_from(workspace.config.model, os.environ, request.model)).provider == "host":
        raise InvalidInput(HOST_ELSEWHERE, parameter="model")
    result = navigate_turn(workspace.root, request, embedder=make_embedder(workspace))
    if args.json:
        payload = result_payload("navigate", with_summary(result))
        payload.pop("envelope_resource", None)  # the CLI has no resources: its JSON keeps the envelope itself
        print(json.dumps({**payload, "envelope": result.envelope}, indent=2, ensure_ascii=False))
    else:
        colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        width = shutil.get_terminal_size((88, 24)).columns
        write_vetted(render_card(result, trace=args.trace, colour=colour, width=min(width, 100)))
    return 1 if result.verdict == "failure" else 0
