"""The ``synapse`` command line: a thin layer over the same functions the tool calls.

Each subcommand lives in ``synapse_server/commands/<name>.py`` and exposes
``register(subparsers)``; this module only wires them and maps typed errors to
exit codes (0 success, 2 invalid input, 1 operational failure).
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Sequence

from synapse_server import __version__
from synapse_server.commands.terminal import terminal_safe_output
from synapse_server.errors import SynapseError, typed

COMMANDS = (
    "init", "lint", "navigate", "serve", "search", "get", "build", "connections",
    "matrix", "synthesize", "debate", "frame", "eval", "dashboard", "index",
)  # fmt: skip
"""Subcommand modules, in help order."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or with ``only`` that one (when it names one).

    Each subcommand module imports what its command needs, so registering all
    fifteen costs every command the imports of the others; ``synapse serve``,
    which a host waits on, then starts without them. Help, ``--version`` and an
    unknown command still see the full list.
    """
    parser = argparse.ArgumentParser(prog="synapse", description="Grounded answers from a project's own evidence.")
    parser.add_argument("--version", action="version", version=f"synapse {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (only,) if only in COMMANDS else COMMANDS:
        importlib.import_module(f"synapse_server.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    if args.command == "serve":  # stdout is the protocol: nothing may rewrite it
        return _run(args)
    with terminal_safe_output():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """The command's exit code, with typed errors mapped to exit codes and one JSON line on stderr."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.handler(args))
    except SynapseError as exc:
        return _report(exc)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a full disk, a vanished folder: say what failed, without paths or a traceback
        if isinstance(exc, BrokenPipeError):
            sys.stderr.close()
            return 141
        reason = exc.strerror or type(exc).__name__
        sys.stderr.write(json.dumps({"error": {"kind": "os_error", "message": reason, "parameter": None}}) + "\n")
        return 1
    except Exception as exc:
        if (known := typed(exc)) is None:  # a genuine bug: the traceback is the report
            raise
        return _report(known)


def _report(exc: SynapseError) -> int:
    payload = {"error": {"kind": exc.kind, "message": exc.message, "parameter": exc.detail.get("parameter")}}
    sys.stderr.write(json.dumps(payload) + "\n")
    return exc.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
