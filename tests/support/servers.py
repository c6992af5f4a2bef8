"""One way to build an in-memory server over a workspace root, shared by every folder that needs one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from adapters.index import Embedder
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from tests.support.worker_jobs import job_env

ServerFactory = Callable[..., MCPServer[Any]]
"""``make_server(root, *, embedder=None, job=None, **settings)``: what the ``make_server`` fixture hands a test."""


def make_server(
    root: Path, *, embedder: Embedder | None = None, job: str | None = None, **settings: Any
) -> MCPServer[Any]:
    """A server over ``root`` that starts no worker until a turn needs one (``prespawn`` off unless asked).

    No embedder unless given (search loads it); ``job`` makes every navigate turn run that test-only worker
    job (:mod:`tests.support.worker_jobs`) instead of the engine.
    """
    settings.setdefault("prespawn", False)
    if job is not None:
        settings["worker_env"] = {**settings.get("worker_env", {}), **job_env(job)}
    return build_server(ServerSettings(root=root, **settings), embedder=embedder)
