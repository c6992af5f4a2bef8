"""Who is calling: the MCP client's name and version from ``initialize``, per call.

Under ``model: host`` the client's own model navigates, and a navigate result
must say honestly which model reasoned; the server sets the name around each
tool call in a context variable (as it does the progress reporter), so a
handler finds it without every handler taking the SDK context.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["calling_client", "client_name", "current_client"]

MAX_NAME_CHARS = 120
_CLIENT: ContextVar[str] = ContextVar("synapse_client", default="")


@contextmanager
def calling_client(name: str) -> Iterator[None]:
    """Make ``name`` the client of the call running inside this block."""
    token = _CLIENT.set(name)
    try:
        yield
    finally:
        _CLIENT.reset(token)


def current_client() -> str:
    return _CLIENT.get()


def client_name(context: Any) -> str:
    """``"<name> <version>"`` from the SDK context's session, or ``""`` when the client did not say.

    The text is the client's own, so it is kept printable and short before it reaches any result.
    """
    try:
        info = context.session.client_params.client_info
        text = f"{info.name} {info.version}".strip()
    except (AttributeError, ValueError):  # no request context, or a client that sent no client info
        return ""
    text = "".join(ch for ch in text if ch.isprintable())
    return text[:MAX_NAME_CHARS]
