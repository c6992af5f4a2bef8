"""``synapse eval --root DIR [--queries FILE]``: retrieval with vs without expansion, and an edge spot-check.

The same harness as ``python -m synapse_server.eval``. Read-only. Exit 0, 2 for invalid input.
"""

from __future__ import annotations

import argparse
from typing import Any

from synapse_server.eval.cli import add_arguments, handle


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "eval",
        help="measure recall@k and MRR with and without overlay expansion; sample typed edges to judge",
        description="Labelled queries (default: the demo set) and a deterministic edge sample. Exit 0, 2 invalid.",
    )
    add_arguments(parser)
    parser.set_defaults(handler=handle)
