"""What the lens commands (matrix, synthesize, debate, frame) share: common flags and one run-and-print path.

Each lens is a read-only function ``run_<lens>(workspace, stores, embedder, params)``;
the command only builds its params, so loading the workspace and stores and
printing JSON or text live here once.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from synapse_server.cli.options import add_root, workspace_root
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.stores import FAMILIES, Stores, make_embedder

R = TypeVar("R", bound=BaseModel)
Lens = Callable[[Workspace, Stores, Any, Any], R]


def add_common_arguments(parser: argparse.ArgumentParser, *, projects_help: str) -> None:
    add_root(parser)
    parser.add_argument("--projects", default=None, help=projects_help)


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the JSON result instead of text")


def run_lens(
    args: argparse.Namespace,
    lens: Lens[R],
    params: Any,
    text: Callable[[R], str],
    *,
    search: bool = False,
) -> int:
    """Load the workspace (memory and zk only unless the lens searches), run the lens, print JSON or text."""
    workspace = load_workspace(workspace_root(args))
    stores = Stores.load(workspace, FAMILIES if search else ("memory", "zk"))
    result = lens(workspace, stores, make_embedder(workspace) if search else None, params)
    print(result.model_dump_json(indent=2) if args.json else text(result))
    return 0
