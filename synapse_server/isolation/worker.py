"""A navigate worker: ``python -P -m synapse_server.isolation.worker --fd N --root DIR``.

It warms up first (imports, embedding model, the workspace's stores and index
cache), says ``ready``, then waits for exactly one request, runs one turn and
exits. The result travels over the socket passed as ``--fd``; stdin and stdout
stay ordinary for ``command:`` model bridges. Core dumps are switched off so a
native crash can never drop a core file into the workspace.
"""

from __future__ import annotations

import argparse
import faulthandler
import logging
import os
import resource
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_server.errors import SynapseError
from synapse_server.isolation.protocol import MAX_LINE_BYTES, TEST_JOB_ENV, ProtocolError, decode, encode

log = logging.getLogger("synapse_server.worker")

TURN_MODULE = "synapse_server.navigation.turn"


@dataclass
class Warm:
    """What warm-up prepared: the loaded embedder and the turn function (None when the engine is missing)."""

    embedder: Any
    turn: Callable[..., Any] | None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="synapse-worker")
    parser.add_argument("--fd", type=int, required=True, help="the socket to the server")
    parser.add_argument("--root", required=True, help="the workspace root")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s worker: %(message)s")
    _no_core_dumps()
    faulthandler.enable(file=sys.stderr)  # a native crash still dies by its signal, with a Python stack in the log
    root = Path(args.root)
    sock = socket.socket(fileno=args.fd)
    job = os.environ.get(TEST_JOB_ENV) or None
    warm = None if job else warm_up(root)
    reader = sock.makefile("rb")
    try:
        sock.sendall(encode({"type": "ready"}))
        line = reader.readline(MAX_LINE_BYTES + 1)
    except OSError:
        return 0
    if not line:
        return 0  # a spare shut down unused
    _die_with_parent(sock)
    reply = handle(line, root, warm, job)
    try:
        sock.sendall(encode(reply))
    except OSError:
        return 1
    return 0


def warm_up(root: Path) -> Warm:
    """Pay start-up before the turn: model weights, the engine's imports, the index cache for this workspace."""
    from synapse_server.config import load_workspace
    from synapse_server.stores import Stores, make_embedder

    embedder: Any = None
    try:
        workspace = load_workspace(root)
        embedder = make_embedder(workspace)
        load = getattr(embedder, "load", None)
        if callable(load):
            load()
        Stores.load(workspace).open_index(embedder).close()
    except Exception as exc:  # the turn meets the same problem and reports it properly
        log.info("warm-up incomplete: %s: %s", type(exc).__name__, exc)
    return Warm(embedder, _turn_function())


def handle(line: bytes, root: Path, warm: Warm | None, job: str | None) -> dict[str, Any]:
    """One request line in, one reply message out; no exception escapes."""
    from synapse_server.navigation.request import NavigateRequest

    try:
        message = decode(line)
        if message["type"] != "navigate":
            raise ProtocolError(f"unexpected message type {message['type']!r}")
        request = NavigateRequest.model_validate(message.get("request"))
        if job is not None:
            from synapse_server.isolation.faults import run_job

            result = run_job(job, request)
        elif warm is None or warm.turn is None:
            return {
                "type": "failure",
                "halted_reason": "internal-error",
                "detail": "the navigation engine is not installed",
            }
        else:
            result = warm.turn(root, request, embedder=warm.embedder or _embedder_for(root))
        return {"type": "result", "result": result.model_dump(mode="json")}
    except SynapseError as exc:
        parameter = exc.detail.get("parameter")
        return {
            "type": "error",
            "kind": exc.kind,
            "message": exc.message,
            "exit_code": exc.exit_code,
            "parameter": parameter if isinstance(parameter, str) else None,
        }
    except Exception as exc:
        log.exception("navigate turn failed")
        return {
            "type": "failure",
            "halted_reason": "internal-error",
            "detail": f"internal error ({type(exc).__name__})",
        }


def _embedder_for(root: Path) -> Any:
    """Warm-up could not build one (bad config?): building it now raises the error the caller should see."""
    from synapse_server.config import load_workspace
    from synapse_server.stores import make_embedder

    return make_embedder(load_workspace(root))


def _turn_function() -> Callable[..., Any] | None:
    try:
        from synapse_server.navigation import turn
    except ModuleNotFoundError as exc:
        if exc.name != TURN_MODULE:
            raise
        log.warning("the navigation engine (%s) is not installed", TURN_MODULE)
        return None
    return turn.navigate_turn


def _no_core_dumps() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))


def _die_with_parent(sock: socket.socket) -> None:
    """If the server goes away mid-turn (its end of the socket closes), take the whole group down."""

    def watch() -> None:
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
        if os.getpgrp() == os.getpid():
            os.killpg(os.getpid(), signal.SIGKILL)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


if __name__ == "__main__":
    raise SystemExit(main())
