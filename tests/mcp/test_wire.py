"""Malformed JSON-RPC lines over real stdio get JSON-RPC errors, and the server keeps serving.

Each hostile line is followed by a ping: the error reply (with the id read off
the line where one can be) must come first, then the ping's answer.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from synapse_server.mcp.wire import scan
from tests.support.raw_stdio import raw_server

pytestmark = pytest.mark.anyio

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
DEEP = b"[" * 2000 + b"]" * 2000
HOSTILE_LINES = [
    ("bad json", b'{"jsonrpc": "2.0", "id": 5, "method": ', PARSE_ERROR, 5),
    ("nul byte", b'{"jsonrpc": "2.0", "id": 6, "method": "ping"\x00}', PARSE_ERROR, 6),
    ("nul in a string", b'{"jsonrpc": "2.0", "id": 16, "method": "pi\x00ng"}', PARSE_ERROR, 16),
    (
        "nesting 2000",
        b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"a": ' + DEEP + b"}}",
        INVALID_REQUEST,
        7,
    ),
    (
        "5000-digit integer",
        b'{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "synapse", "arguments": '
        b'{"action": "search", "query": "x", "limit": ' + b"9" * 5000 + b"}}}",
        INVALID_REQUEST,
        8,
    ),
    ("5000-digit id", b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "ping"}', INVALID_REQUEST, None),
    ("id null", b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', INVALID_REQUEST, None),
    ("id true", b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
    ("batch", b'[{"jsonrpc": "2.0", "id": 10, "method": "ping"}]', INVALID_REQUEST, None),
    ("no jsonrpc member", b'{"id": 11, "method": "ping"}', INVALID_REQUEST, 11),
    ("a bare number", b"42", INVALID_REQUEST, None),
    ("not json at all", b"hello \xff\xfe", PARSE_ERROR, None),
]


async def test_every_malformed_line_gets_a_json_rpc_error_and_the_server_keeps_serving(
    demo_root: Path, tmp_path: Path
) -> None:
    with (tmp_path / "server.log").open("w+", encoding="utf-8") as log:
        async with raw_server(demo_root, log) as server:
            for n, (label, line, code, request_id) in enumerate(HOSTILE_LINES):
                await server.send_line(line)
                await server.send({"id": 1000 + n, "method": "ping"})
                with anyio.fail_after(60):
                    first = await server.next_message()
                assert first.get("error", {}).get("code") == code, (label, first)
                assert first["id"] == request_id and first["jsonrpc"] == "2.0", (label, first)
                assert await server.reply_to(1000 + n) == {"jsonrpc": "2.0", "id": 1000 + n, "result": {}}, label
            await server.close_input()
            with anyio.fail_after(60):
                assert await server.process.wait() == 0
        assert server.seen == []


async def test_an_invalid_notification_is_never_answered(demo_root: Path, tmp_path: Path) -> None:
    with (tmp_path / "server.log").open("w+", encoding="utf-8") as log:
        async with raw_server(demo_root, log) as server:
            await server.send_line(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 5}')
            await server.send({"id": 1, "method": "ping"})
            with anyio.fail_after(60):
                assert await server.next_message() == {"jsonrpc": "2.0", "id": 1, "result": {}}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"id": "a\\"b", "x": [1, {"id": 2}]}', (3, True, 'a"b')),
        ('{"method": "id", "id": 12}', (1, True, 12)),
        ('{"params": {"id": 3}}', (2, False, None)),
        ('{"id": 1.5}', (1, True, None)),
        ('{"id": "unterminated', (1, True, None)),
        ("[" * 5000, (5000, False, None)),
    ],
)
def test_the_id_scan_reads_only_the_top_level_id_without_recursing(text: str, expected: tuple[object, ...]) -> None:
    assert tuple(scan(text)) == expected
