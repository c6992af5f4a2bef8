"""How the dashboard is served: uvicorn's h11 protocol with an idle deadline, a connection cap and a quiet accept log.

Any local process can open connections to the dashboard's port. Uvicorn on its
own never times out a connection that has not finished a request (its
keep-alive timer starts only after a response, and any byte cancels it), so
connections that send nothing, or a header a byte at a time, stay open until
descriptors run out; then asyncio's accept loop logs a traceback for every
failed ``accept()``, thousands a second. Here each connection must deliver a
whole request (head and body) within ``idle_timeout_s`` of opening or of its
last response, at most ``max_connections`` are open at once (a new one closes
the longest-waiting connection that has not sent a whole request, or is
closed itself when every open one is busy), and running out of descriptors
is logged as one line per interval with a count.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["Limits", "RateLimitedLog", "default_max_connections", "serve"]

log = logging.getLogger(__name__)

DEFAULT_IDLE_S = 10.0
DEFAULT_MAX_CONNECTIONS = 256
LOG_EVERY_S = 10.0
BACKLOG = 512
_OUT_OF_DESCRIPTORS = "socket.accept() out of system resource"
_WAITING = (h11.IDLE, h11.SEND_BODY)
"""The client's h11 states in which a request is still arriving."""


def default_max_connections() -> int:
    """Half the descriptor limit (the rest is the server's own: index, workers, logs), at most 256."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return DEFAULT_MAX_CONNECTIONS
    return max(8, min(DEFAULT_MAX_CONNECTIONS, soft // 2))


@dataclass(frozen=True)
class Limits:
    """How long a connection may take to send a request, and how many may be open at once."""

    idle_timeout_s: float = DEFAULT_IDLE_S
    max_connections: int = DEFAULT_MAX_CONNECTIONS


class RateLimitedLog:
    """One warning per ``every_s`` for a recurring event, saying how many times it happened since the last."""

    def __init__(self, message: str, every_s: float = LOG_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.message = message
        self.every_s = every_s
        self.clock = clock
        self._last: float | None = None
        self._count = 0

    def __call__(self, detail: str) -> None:
        self._count += 1
        now = self.clock()
        if self._last is not None and now - self._last < self.every_s:
            return
        log.warning("%s: %s (%d time(s) in the last %.0f s)", self.message, detail, self._count, self.every_s)
        self._last, self._count = now, 0


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request to arrive and a cap on open connections."""

    limits: ClassVar[Limits] = Limits()
    full: ClassVar[RateLimitedLog]

    _deadline: asyncio.TimerHandle | None = None
    _waiting_since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections and not self._evict_one():
            self.full(f"{len(self.connections) - 1} open, every one busy: refused a new one")
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state not in _WAITING:
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state in _WAITING:
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = time.monotonic()
        self._deadline = self.loop.call_later(self.limits.idle_timeout_s, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def _evict_one(self) -> bool:
        """Close the connection that has waited longest without sending a whole request; False if none has."""
        waiting = [c for c in self.connections if isinstance(c, GuardedH11Protocol) and c is not self and c._deadline]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c._waiting_since)
        self.full(f"{len(self.connections) - 1} open: closed the one idle longest")
        oldest._expire()
        return True


def guarded_protocol(limits: Limits) -> type[GuardedH11Protocol]:
    """A protocol class bound to ``limits`` (uvicorn builds one instance per connection from a class)."""
    full = RateLimitedLog(f"dashboard connection cap ({limits.max_connections}) reached")
    return type("DashboardH11Protocol", (GuardedH11Protocol,), {"limits": limits, "full": full})


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Log running out of descriptors in ``accept()`` as one line per interval, not a traceback per attempt.

    asyncio retries the accept every second and, on Python 3.11, reports each of
    up to ``backlog`` failed attempts per retry; every other error still goes to
    the default handler.
    """
    out_of_descriptors = RateLimitedLog("dashboard out of descriptors: cannot accept connections")

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == _OUT_OF_DESCRIPTORS:
            out_of_descriptors(str(context.get("exception", "")))
            return
        loop.default_exception_handler(context)

    loop.set_exception_handler(handle)


def serve(app: ASGIApp, sock: socket.socket, limits: Limits, log_config: dict[str, Any]) -> None:
    """Serve ``app`` on the bound ``sock`` until interrupted, under ``limits``."""
    config = uvicorn.Config(
        app,
        http=guarded_protocol(limits),
        loop="asyncio",
        log_config=log_config,
        access_log=True,
        lifespan="on",
        backlog=BACKLOG,
    )
    server = uvicorn.Server(config)

    async def run() -> None:
        quiet_accept_errors(asyncio.get_running_loop())
        await server.serve(sockets=[sock])

    asyncio.run(run())
