"""Hostile arguments to every served action, in memory: a structured error or a valid result, never a crash.

The cases come from the dispatch table (``hostile_values.py``), so an action
or parameter added later is attacked too. Each action gets one server and one
client session for all its cases; the server must still answer an ordinary
``get`` afterwards. navigate runs the ``echo`` worker job here, a real worker
process answering at once: the hostile values still cross the worker socket,
without loading the model per call (the stdio pass runs real navigates).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from adapters.index import Embedder
from tests.support.hostile_values import (
    ORDINARY,
    TRAVERSALS,
    Case,
    hostile_string_cases,
    out_of_domain_cases,
    served,
    unknown_call_cases,
    wrong_type_cases,
)
from tests.support.reliability_checks import error_kind, forbidden_texts, structured
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.anyio

ACTIONS = sorted(served())
MAX_ERROR_CHARS = 16_384
"""An error names the problem; it never echoes a megabyte back (the text copy is measured)."""


@pytest.fixture
def hostile_server(make_server: ServerFactory, sealed_demo: Path, embedder: Embedder) -> MCPServer[Any]:
    return make_server(sealed_demo, embedder=embedder, job="echo")


async def run_cases(
    server: MCPServer[Any], root: Path, cases: Iterable[Case], *, expect_parameter: bool, check_size: bool = False
) -> list[str]:
    """Every case's problem, as ``case-id: what went wrong`` (empty when every case behaved)."""
    problems: list[str] = []
    forbidden = forbidden_texts(root)
    async with Client(server) as client:
        for case in cases:
            result = await client.call_tool("synapse", case.arguments)
            try:
                kind = error_kind(result, forbidden)
                body = result.structured_content or {}
                if expect_parameter:
                    assert kind == "invalid_input" and body["error"]["parameter"] == case.parameter, body
                if check_size and kind is not None:
                    assert len(json.dumps(body, ensure_ascii=False)) <= MAX_ERROR_CHARS, "oversized error"
                if case.parameter == "id" and case.id.rsplit("=", 1)[1] in TRAVERSALS:
                    assert kind in {"path_outside_workspace", "invalid_input", "not_found"}, body
            except AssertionError as exc:
                problems.append(f"{case.id}: {str(exc)[:300]}")
        still = await client.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})
        if still.is_error:
            problems.append(f"the server stopped answering: {still.structured_content}")
    return problems


@pytest.mark.parametrize("action", ACTIONS)
async def test_a_wrong_type_for_any_parameter_is_an_invalid_input_naming_it(
    hostile_server: MCPServer[Any], sealed_demo: Path, action: str
) -> None:
    cases = [c for c in [*wrong_type_cases(), *out_of_domain_cases()] if c.action == action]
    assert cases, f"{action} has no parameter to attack"
    assert await run_cases(hostile_server, sealed_demo, cases, expect_parameter=True, check_size=True) == []


@pytest.mark.parametrize("action", ACTIONS)
async def test_hostile_strings_in_any_text_parameter_get_a_clean_result_or_a_structured_error(
    hostile_server: MCPServer[Any], sealed_demo: Path, action: str
) -> None:
    cases = [c for c in hostile_string_cases() if c.action == action]
    assert await run_cases(hostile_server, sealed_demo, cases, expect_parameter=False) == []


async def test_unknown_actions_and_parameters_are_refused_and_the_server_keeps_answering(
    hostile_server: MCPServer[Any], sealed_demo: Path
) -> None:
    forbidden = forbidden_texts(sealed_demo)
    async with Client(hostile_server) as client:
        for arguments in unknown_call_cases():
            result = await client.call_tool("synapse", arguments)
            shown = {k[:40]: (v[:40] if isinstance(v, str) else v) for k, v in arguments.items()}
            assert error_kind(result, forbidden) == "invalid_input", shown
            assert len(result.content[0].text) <= MAX_ERROR_CHARS, shown  # type: ignore[union-attr]
        result = await client.call_tool("synapse", {"action": "get", "id": ORDINARY["id"]})
        assert structured(result, forbidden)["address"] == f"mem:tree:{ORDINARY['id']}"


async def test_an_error_never_echoes_a_megabyte_argument(hostile_server: MCPServer[Any], sealed_demo: Path) -> None:
    cases = [c for c in hostile_string_cases() if c.id.rsplit("=", 1)[1] in {"1mb", "1mb-words"}]
    assert await run_cases(hostile_server, sealed_demo, cases, expect_parameter=False, check_size=True) == []
