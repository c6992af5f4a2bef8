"""``synapse dashboard [--root WS] [--port N]``: the local web dashboard, on 127.0.0.1 behind a token.

The URL it prints carries a fresh random token; uvicorn's access log goes to
stderr like every other log line. Connections are served under the limits of
:mod:`synapse_server.dashboard.serving` (``--idle-timeout``, ``--max-connections``). The dashboard is write-free: it runs the
same dispatcher as ``synapse serve --write-free``.
"""

from __future__ import annotations

import argparse
import logging
import re
import socket
import sys
from typing import TYPE_CHECKING, Any

from synapse_server.cli.options import add_root, workspace_root
from synapse_server.errors import InvalidInput
from synapse_server.models import parse_model_spec
from synapse_server.workspace.config import load_workspace

if TYPE_CHECKING:
    from synapse_server.dashboard.serving import Limits

HOST = "127.0.0.1"
TOKEN_IN_URL = re.compile(r"([?&])token=[^&\s]*")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "dashboard",
        help="serve the local web dashboard (ask, history, matrix, search, chat), write-free",
        description="Serve the dashboard on 127.0.0.1; open the URL it prints (it carries the access token).",
    )
    add_root(parser)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--model", default=None, help="model spec for navigate (default: the config's)")
    parser.add_argument("--chat-model", default=None, help="model spec for the chat agent (default: navigate's)")
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=None,
        help="seconds a connection may take to send a whole request (default: 10)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="connections open at once (default: half the descriptor limit, at most 256)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from synapse_server.dashboard import DashboardConfig, build_app
    from synapse_server.dashboard.serving import BACKLOG, serve

    if not 0 <= args.port <= 65535:
        raise InvalidInput("port: 0 to 65535", parameter="port")
    limits = _limits(args)
    for name in ("model", "chat_model"):
        if getattr(args, name) is not None:
            parse_model_spec(getattr(args, name))
    workspace = load_workspace(workspace_root(args))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, args.port))
    sock.listen(BACKLOG)  # the printed URL connects at once; requests wait in the backlog until serving starts
    port = sock.getsockname()[1]
    config = DashboardConfig(
        root=workspace.root, model=args.model, chat_model=args.chat_model, cookie=f"synapse_dashboard_{port}"
    )
    app = build_app(config)
    sys.stderr.write(f"Synapse dashboard for {workspace.root}\n  open http://{HOST}:{port}/?token={app.state.token}\n")
    sys.stderr.flush()
    serve(app, sock, limits, _log_config())
    return 0


def _limits(args: argparse.Namespace) -> Limits:
    from synapse_server.dashboard.serving import DEFAULT_IDLE_S, Limits, default_max_connections

    idle = DEFAULT_IDLE_S if args.idle_timeout is None else args.idle_timeout
    if not 0.1 <= idle <= 3600:
        raise InvalidInput("idle-timeout: 0.1 to 3600 seconds", parameter="idle-timeout")
    cap = default_max_connections() if args.max_connections is None else args.max_connections
    if not 1 <= cap <= 100_000:
        raise InvalidInput("max-connections: 1 to 100000", parameter="max-connections")
    return Limits(idle_timeout_s=idle, max_connections=cap)


class RedactToken(logging.Filter):
    """Keep the token out of the access log: the first request's URL carries it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(TOKEN_IN_URL.sub(r"\1token=…", a) if isinstance(a, str) else a for a in record.args)
        return True


def _log_config() -> dict[str, Any]:
    """uvicorn's loggers, access log included, all on stderr (its default sends the access log to stdout)."""
    handler = {
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stderr",
        "formatter": "plain",
        "filters": ["redact"],
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": {"()": RedactToken}},
        "formatters": {"plain": {"format": "%(levelname)s %(name)s: %(message)s"}},
        "handlers": {"stderr": handler},
        "loggers": {
            name: {"handlers": ["stderr"], "level": logging.INFO, "propagate": False}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }
