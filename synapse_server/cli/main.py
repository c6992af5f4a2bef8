"""The ``synapse`` command line: a thin layer over the same functions the tool calls.

Each subcommand lives in ``synapse_server/cli/commands/<name>.py`` and exposes
``register(subparsers)``; this module only wires them and maps typed errors to
exit codes (0 success, 2 invalid input, 1 operational failure) and to one line
on stderr: ``synapse: KIND: MESSAGE`` for a person, the public JSON error with
``--json``. An unknown option is answered with the closest one the command has.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import json
import logging
import sys
from collections.abc import Sequence

from synapse_server import __version__
from synapse_server.cli.terminal import terminal_safe_output
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
        importlib.import_module(f"synapse_server.cli.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args, unknown = parser.parse_known_args(words)
    if unknown:
        _refuse_unknown(parser, args.command, unknown)
    if args.command == "serve":  # stdout is the protocol: nothing may rewrite it
        return _run(args)
    with terminal_safe_output():
        return _run(args)


def _refuse_unknown(parser: argparse.ArgumentParser, command: str, unknown: list[str]) -> None:
    """argparse's refusal of unknown arguments (exit 2), naming the closest option the command has."""
    command_parser = _subcommand(parser, command)
    options = [o for action in command_parser._actions for o in action.option_strings if o.startswith("--")]
    hints = []
    for word in unknown:
        if word.startswith("-"):
            hints.extend(difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.5))
    suggestion = f" (did you mean {' or '.join(dict.fromkeys(hints))}?)" if hints else ""
    command_parser.error(f"unrecognized arguments: {' '.join(unknown)}{suggestion}")


def _subcommand(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    return parser


def _run(args: argparse.Namespace) -> int:
    """The command's exit code, with typed errors mapped to exit codes and one line on stderr."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.handler(args))
    except SynapseError as exc:
        return _report(exc, as_json=_wants_json(args))
    except KeyboardInterrupt:
        return 130
    except OSError as exc:  # a full disk, a vanished folder: say what failed, without paths or a traceback
        if isinstance(exc, BrokenPipeError):
            sys.stderr.close()
            return 141
        reason = exc.strerror or type(exc).__name__
        _write_error("os_error", reason, None, as_json=_wants_json(args))
        return 1
    except Exception as exc:
        if (known := typed(exc)) is None:  # a genuine bug: the traceback is the report
            raise
        return _report(known, as_json=_wants_json(args))


def _wants_json(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "json", False))


def _report(exc: SynapseError, *, as_json: bool) -> int:
    _write_error(exc.kind, exc.message, exc.detail.get("parameter"), as_json=as_json, hint=exc.hint)
    return exc.exit_code


def _write_error(kind: str, message: str, parameter: object, *, as_json: bool, hint: str = "") -> None:
    """One line on stderr: the public JSON error with ``--json``, else ``synapse: KIND: MESSAGE`` and a hint."""
    if as_json:
        payload = {"error": {"kind": kind, "message": message, "parameter": parameter}}
        sys.stderr.write(json.dumps(payload) + "\n")
    else:
        sys.stderr.write(f"synapse: {kind}: {message}" + (f" ({hint})" if hint else "") + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
