"""One real stdio pass of hostile arguments through the installed server, with real navigate workers.

The same generated cases as the in-memory checks, narrowed to one wrong type
per parameter and the hostile strings that matter on the wire (1 MB, NUL,
control characters, forged protocol, traversal in ids): each crosses real
JSON-RPC framing. A lone surrogate, which the SDK's client refuses to encode,
is sent as a JSON escape over a raw pipe. Three hostile questions reach the real
navigate engine in real workers. The server must answer every call and an
ordinary one afterwards, leave no worker behind, and change no source file.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.support.hostile_values import (
    ORDINARY,
    TRAVERSALS,
    Case,
    hostile_string_cases,
    unknown_call_cases,
    wrong_type_cases,
)
from tests.support.procs import children, workers_for
from tests.support.reliability_checks import changed_paths, error_kind, forbidden_texts, source_digest
from tests.support.reliability_stdio import SYNAPSE, stdio_server
from tests.support.worker_jobs import job_env

pytestmark = pytest.mark.anyio

WIRE_LABELS = {"1mb", "nul", "control", "newlines", "forged-protocol"}
"""The SDK client cannot encode a lone surrogate, so that one goes over raw JSON-RPC (the last test)."""
REAL_QUESTIONS = {"control", "newlines", "forged-protocol"}
CALL_TIMEOUT_S = 240


def stdio_cases() -> list[Case]:
    cases: dict[str, Case] = {}
    for case in wrong_type_cases():
        cases.setdefault(f"{case.action}.{case.parameter}", case)
    picked = list(cases.values())
    for case in hostile_string_cases():
        label = case.id.rsplit("=", 1)[1]
        if case.action == "navigate" and case.parameter == "question" and label not in REAL_QUESTIONS:
            continue  # each valid question is a real turn: three are enough on the wire
        if label in WIRE_LABELS or (case.parameter == "id" and label in TRAVERSALS):
            picked.append(case)
    return picked


async def test_hostile_calls_over_real_stdio_get_structured_answers_and_the_server_keeps_serving(
    sealed_demo: Path,
) -> None:
    forbidden = forbidden_texts(sealed_demo)
    sources = source_digest(sealed_demo)
    before = children()
    outcomes: dict[str, str | None] = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(sealed_demo, log) as server:
            for case in stdio_cases():
                with anyio.fail_after(CALL_TIMEOUT_S):
                    result = await server.session.call_tool("synapse", case.arguments)
                outcomes[case.id] = error_kind(result, forbidden)
            for arguments in unknown_call_cases():
                result = await server.session.call_tool("synapse", arguments)
                assert error_kind(result, forbidden) == "invalid_input"
            still = await server.session.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})
            assert error_kind(still, forbidden) is None
    failures = {k: v for k, v in outcomes.items() if v in {"internal_error", "failure"}}
    assert failures == {}, failures
    real_turns = [f"navigate.question={label}" for label in sorted(REAL_QUESTIONS)]
    assert [outcomes[k] for k in real_turns] == [None] * len(real_turns), outcomes
    assert workers_for(sealed_demo) == [] and children() == before
    assert changed_paths(sources, source_digest(sealed_demo)) == []


SURROGATE_CALLS: list[dict[str, Any]] = [
    {"action": "search", "query": "momentum \ud800 target"},
    {"action": "get", "id": "deci-\udc00"},
    {"action": "navigate", "question": "Why \ud800?"},
    {"action": "frame", "question": "momentum \ud800"},
    {"action": "s\udc00arch"},
    {"action": "search", "query": "momentum", "\ud800": 1},
]


async def test_a_lone_surrogate_sent_as_a_json_escape_never_takes_the_server_down(sealed_demo: Path) -> None:
    """Raw JSON-RPC: each hostile request is followed by an ordinary one that must be answered.

    A reply to the hostile request itself, if any, must be a structured result
    or a JSON-RPC error; the SDK's transport drops a message it cannot parse
    without replying (reported, not pinned).
    """
    forbidden = forbidden_texts(sealed_demo)
    env = job_env("echo", os.environ)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        command = [str(SYNAPSE), "serve", "--root", str(sealed_demo)]
        async with await anyio.open_process(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env
        ) as process:
            assert process.stdin is not None and process.stdout is not None
            replies = BufferedByteReceiveStream(process.stdout)

            async def send(message: dict[str, Any]) -> None:
                assert process.stdin is not None
                await process.stdin.send(json.dumps(message).encode("ascii") + b"\n")

            async def reply_to(request_id: int) -> dict[str, Any]:
                with anyio.fail_after(CALL_TIMEOUT_S):
                    while True:
                        message = json.loads(await replies.receive_until(b"\n", 64 * 1024 * 1024))
                        if message.get("id") == request_id:
                            return message
                        if message.get("id") is not None:
                            assert "error" in message or "result" in message, message
                            text = json.dumps(message)
                            assert not [m for m in forbidden if m in text], text[:300]

            init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
            await send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
            assert "result" in await reply_to(1)
            await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            for n, arguments in enumerate(SURROGATE_CALLS):
                hostile, ordinary = 100 + 2 * n, 101 + 2 * n
                call = {"name": "synapse", "arguments": arguments}
                await send({"jsonrpc": "2.0", "id": hostile, "method": "tools/call", "params": call})
                call = {"name": "synapse", "arguments": {"action": "get", "id": ORDINARY["id"]}}
                await send({"jsonrpc": "2.0", "id": ordinary, "method": "tools/call", "params": call})
                answer = await reply_to(ordinary)
                assert answer["result"]["isError"] is False, (arguments, answer)
            assert process.returncode is None, "the server is still running"
            await process.stdin.aclose()
            with anyio.fail_after(CALL_TIMEOUT_S):
                await process.wait()
    assert workers_for(sealed_demo) == []
