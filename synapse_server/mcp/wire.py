"""The stdio transport of ``synapse serve``: one JSON-RPC message per line, and an answer to every bad line.

The SDK's own stdio transport drops a line it cannot validate without a word,
so a client waiting on that request waits forever. Here every line is first
validated exactly as the SDK would (its message adapter); a line that fails is
answered by JSON-RPC 2.0's own errors: ``-32700`` (parse error) for text that
is not JSON, ``-32600`` (invalid request) for JSON that is not one MCP message -
a batch (MCP dropped JSON-RPC batching), ``"id": null``, a scalar, nesting
deeper than the SDK's limit of 200 levels, an integer of more than 4,300
digits. The reply carries the request's id when it can be read off the line
(a linear scan that never recurses), otherwise ``null``. A line without an id
that looks like a notification is only logged: JSON-RPC forbids answering one.

While serving, descriptor 0 reads the null device and descriptor 1 writes to
stderr, so nothing a library or child prints reaches the wire; the wire itself
is served from private duplicates. Reading and writing run on worker threads,
so neither a slow client nor a flood blocks the event loop. The server stops
when the client goes away: end of input or a write that fails (broken pipe).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_DEPTH = 200
"""The SDK's JSON parser refuses deeper nesting; deeper lines are refused here with a reply."""
MAX_DIGITS = 4300
"""The SDK's parser (and Python's int) refuse longer integers."""
MAX_LINE_BYTES = 64 * 1024 * 1024
"""A longer line is refused (and skipped to its end) instead of being held in memory."""
_CHUNK = 256 * 1024
_STRUCTURE = re.compile(r'["{}\[\]]')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?![0-9.eE])")
_SPACE = re.compile(r"[ \t\r\n]*")


async def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client leaves."""
    with _claimed_stdio() as (wire_in, wire_out):
        await serve_streams(server, wire_in, wire_out)


async def serve_streams(server: MCPServer[Any], wire_in: int, wire_out: int) -> None:
    """Serve over two descriptors (the claimed stdio): validating reader, SDK session, single writer."""
    lowlevel = server._lowlevel_server
    to_server, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    server_writes, to_wire = anyio.create_memory_object_stream[SessionMessage](16)
    refusals = server_writes.clone()
    reader_scope = anyio.CancelScope()

    async def read_side() -> None:
        with reader_scope:
            async with to_server, refusals:
                await _read_lines(wire_in, to_server, refusals)

    async def server_side() -> None:
        async with server_writes:
            await lowlevel.run(server_reads, server_writes, lowlevel.create_initialization_options())
        reader_scope.cancel()

    async with anyio.create_task_group() as group:

        async def write_side() -> None:
            if not await _write_lines(wire_out, to_wire):
                group.cancel_scope.cancel()  # the client is gone: stop serving (the lifespan cleans up)

        group.start_soon(read_side)
        group.start_soon(server_side)
        group.start_soon(write_side)


def classify(line: bytes) -> SessionMessage | types.JSONRPCError | None:
    """One wire line -> the message for the SDK, the error reply it deserves, or None (nothing to do)."""
    text = line.decode("utf-8", "replace").strip()  # as the SDK decodes: invalid bytes become U+FFFD
    if not text:
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as exc:
        return refusal(text, exc)
    if isinstance(message, types.JSONRPCNotification) and scan(text).has_id:
        # "id": null (or true, or 1.5) makes the SDK read a request as a notification and answer nothing
        return _error(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    return SessionMessage(message)


def refusal(text: str, exc: ValidationError | None = None) -> types.JSONRPCError | None:
    """The JSON-RPC error for a line the SDK refused (None for a bad notification: never answered)."""
    depth, _has_id, request_id = scan(text)
    if depth > MAX_DEPTH:
        return _error(request_id, INVALID_REQUEST, f"Invalid Request: nested deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(text, parse_int=_bounded_int)
    except _TooManyDigits:
        return _error(request_id, INVALID_REQUEST, f"Invalid Request: an integer longer than {MAX_DIGITS} digits")
    except (ValueError, RecursionError) as parse:
        reason = parse.msg if isinstance(parse, json.JSONDecodeError) else "not a JSON text"
        return _error(request_id, PARSE_ERROR, f"Parse error: {reason}")
    if isinstance(value, list):
        return _error(None, INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line")
    if not isinstance(value, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
    if "id" not in value and isinstance(value.get("method"), str):
        log.warning("dropped an invalid notification %.80r", value.get("method"))
        return None
    said = _first_error(exc) if exc is not None else "not a JSON-RPC 2.0 message"
    return _error(_valid_id(value.get("id")), INVALID_REQUEST, f"Invalid Request: {said}")


class Scan(NamedTuple):
    depth: int
    has_id: bool
    request_id: int | str | None


def scan(text: str) -> Scan:
    """The deepest nesting of ``text``, whether its top level has an ``"id"`` and that id if it is a string or
    integer: a linear scan that never recurses and never builds the value."""
    depth = deepest = 0
    has_id = False
    request_id: int | str | None = None
    position = 0
    while (found := _STRUCTURE.search(text, position)) is not None:
        start = found.start()
        char = text[start]
        if char == '"':
            string = _STRING.match(text, start)
            if string is None:
                break  # an unterminated string: nothing after it is structure
            position = string.end()
            if depth == 1 and not has_id and string.group() == '"id"':
                has_id, request_id = _id_after(text, position)
            continue
        depth += 1 if char in "{[" else -1
        deepest = max(deepest, depth)
        position = start + 1
    return Scan(deepest, has_id, request_id)


def _id_after(text: str, position: int) -> tuple[bool, int | str | None]:
    """After a key ``"id"``: (is it a key at all, its value when that is a short string or an integer)."""
    colon = _SPACE.match(text, position)
    at = colon.end() if colon else position
    if text[at : at + 1] != ":":
        return False, None  # the string "id" was a value, not a key
    value = _SPACE.match(text, at + 1)
    at = value.end() if value else at + 1
    if text[at : at + 1] == '"':
        string = _STRING.match(text, at)
        if string is None or len(string.group()) > 1000:
            return True, None
        try:
            decoded = json.loads(string.group())
        except ValueError:
            return True, None
        return True, decoded if isinstance(decoded, str) else None
    number = _INTEGER.match(text, at)
    return True, int(number.group()) if number else None


class _TooManyDigits(ValueError):
    pass


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _TooManyDigits
    return int(digits)


def _valid_id(value: Any) -> int | str | None:
    return value if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)) else None


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False, include_context=False)
    if not errors:
        return "not a JSON-RPC 2.0 message"
    return str(errors[0]["msg"])[:200]


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


async def _read_lines(
    fd: int, to_server: MemoryObjectSendStream[SessionMessage | Exception], replies: MemoryObjectSendStream[Any]
) -> None:
    """Split the input into lines; each good one goes to the SDK, each bad one gets its error reply."""
    async for line in _LineSource(fd):
        await _route(line, to_server, replies)


async def _route(
    line: bytes | None,
    to_server: MemoryObjectSendStream[SessionMessage | Exception],
    replies: MemoryObjectSendStream[Any],
) -> None:
    if line is None:
        reply: SessionMessage | types.JSONRPCError | None = _error(
            None, INVALID_REQUEST, f"Invalid Request: a line longer than {MAX_LINE_BYTES} bytes"
        )
    else:
        reply = classify(line)
    if isinstance(reply, SessionMessage):
        await to_server.send(reply)
    elif reply is not None:
        log.warning("answered a malformed line with JSON-RPC error %d", reply.error.code)
        await replies.send(SessionMessage(reply))


class _LineSource:
    """Async iterator over the lines of ``fd`` (None stands for a line over the size limit); reads off-loop."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._skipping = False
        self._ready: list[bytes | None] = []
        self._eof = False

    def __aiter__(self) -> _LineSource:
        return self

    async def __anext__(self) -> bytes | None:
        while not self._ready:
            if self._eof:
                raise StopAsyncIteration
            chunk = await anyio.to_thread.run_sync(os.read, self._fd, _CHUNK, abandon_on_cancel=True)
            self._take(chunk)
        return self._ready.pop(0)

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            self._eof = True
            if self._buffer and not self._skipping:
                self._ready.append(bytes(self._buffer))
            self._buffer.clear()
            return
        self._buffer += chunk
        while (end := self._buffer.find(b"\n")) >= 0:
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._skipping:
                self._skipping = False  # the end of an oversized line
            else:
                self._ready.append(line)
        if len(self._buffer) > MAX_LINE_BYTES and not self._skipping:
            self._ready.append(None)
            self._skipping = True
        if self._skipping:
            self._buffer.clear()


async def _write_lines(fd: int, messages: MemoryObjectReceiveStream[SessionMessage]) -> bool:
    """Write each message as one line; False when the client stopped reading (broken pipe)."""
    async with messages:
        async for message in messages:
            data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
            try:
                await anyio.to_thread.run_sync(_write_all, fd, data, abandon_on_cancel=True)
            except OSError as exc:
                log.warning("the client stopped reading (%s); shutting down", exc.strerror or type(exc).__name__)
                return False
    return True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextmanager
def _claimed_stdio() -> Iterator[tuple[int, int]]:
    """Serve the wire from private duplicates; meanwhile fd 0 reads /dev/null and fd 1 goes to stderr."""
    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        yield wire_in, wire_out
    finally:
        sys.stdout.flush()  # a stray buffered print goes to stderr, never onto the wire
        os.dup2(wire_out, 1)
        os.dup2(wire_in, 0)
        os.close(wire_out)  # wire_in stays open: an abandoned read may still be blocked on it
