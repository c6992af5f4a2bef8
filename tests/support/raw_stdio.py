"""A raw JSON-RPC client over real stdio: send any bytes, read every line the installed server writes.

The SDK's client cannot send malformed lines, cancel a request at a chosen
moment or watch a server die, so these tests speak the wire themselves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

SYNAPSE = Path(sys.executable).parent / "synapse"
REPLY_TIMEOUT_S = 240


@dataclass
class RawServer:
    process: Process
    replies: BufferedByteReceiveStream
    seen: list[dict[str, Any]] = field(default_factory=list)
    """Every message read so far that a wait did not consume (notifications, other replies)."""

    async def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send(line + b"\n")

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_line(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    async def call(self, request_id: int, arguments: dict[str, Any], *, progress: bool = False) -> None:
        params: dict[str, Any] = {"name": "synapse", "arguments": arguments}
        if progress:
            params["_meta"] = {"progressToken": request_id}
        await self.send({"id": request_id, "method": "tools/call", "params": params})

    async def next_message(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await self.replies.receive_until(b"\n", 64 * 1024 * 1024))
        return message

    async def wait_for(self, predicate: Any, timeout_s: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        """The first message (already seen or next to arrive) for which ``predicate`` holds."""
        for message in self.seen:
            if predicate(message):
                self.seen.remove(message)
                return message
        with anyio.fail_after(timeout_s):
            while True:
                message = await self.next_message()
                if predicate(message):
                    return message
                self.seen.append(message)

    async def reply_to(self, request_id: int | str | None, timeout_s: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        return await self.wait_for(lambda m: "method" not in m and m.get("id") == request_id, timeout_s)

    async def progress_of(self, token: int, containing: str, timeout_s: float = REPLY_TIMEOUT_S) -> dict[str, Any]:
        def matches(message: dict[str, Any]) -> bool:
            params = message.get("params") or {}
            return (
                message.get("method") == "notifications/progress"
                and params.get("progressToken") == token
                and containing in str(params.get("message"))
            )

        return await self.wait_for(matches, timeout_s)

    async def close_input(self) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.aclose()


@asynccontextmanager
async def raw_server(
    root: Path, log: IO[str], *, args: Sequence[str] = (), env: Mapping[str, str] | None = None
) -> AsyncIterator[RawServer]:
    """An initialized raw session with ``synapse serve --root ROOT ARGS``; killed on the way out if still alive."""
    command = [str(SYNAPSE), "serve", "--root", str(root), *args]
    process = await anyio.open_process(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env={**os.environ, **(env or {})}
    )
    try:
        assert process.stdout is not None
        server = RawServer(process, BufferedByteReceiveStream(process.stdout))
        init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
        await server.send({"id": 0, "method": "initialize", "params": init})
        assert "result" in await server.reply_to(0)
        await server.send({"method": "notifications/initialized"})
        yield server
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
            await process.wait()
            await process.aclose()
