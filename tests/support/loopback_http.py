"""A real HTTP server on 127.0.0.1 (ephemeral port) that records requests and answers like a provider's API.

Imported by the HTTP provider tests under its own name; ``conftest.py`` only turns it into a fixture.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: bytes = b"{}"
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    hold: threading.Event | None = None  # answer only once this is set (a server that stalls)


@dataclass
class LoopbackAPI:
    """Replies are queued per test; every request is recorded with its headers and decoded JSON body."""

    base: str
    requests: list[Recorded] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def reply_json(self, payload: Any, status: int = 200) -> None:
        self.replies.append(Reply(status, json.dumps(payload).encode("utf-8")))

    def reply_raw(self, body: bytes, status: int = 200, content_type: str = "application/json") -> None:
        self.replies.append(Reply(status, body, content_type))

    def reply_stalled(self) -> None:
        self.replies.append(Reply(hold=self.release))


@contextmanager
def serve_loopback_api() -> Iterator[LoopbackAPI]:
    """Serve until the block ends; a stalled reply is released first so shutdown never waits on it."""
    api = LoopbackAPI(base="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                body: Any = json.loads(raw.decode("utf-8"))
            except ValueError:
                body = raw
            api.requests.append(Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            reply = api.replies.pop(0) if api.replies else Reply(404, b'{"error": "no reply queued"}')
            if reply.hold is not None:
                reply.hold.wait(timeout=30)
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(reply.body)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(reply.body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    api.base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield api
    finally:
        api.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
