"""Every bad input gets a structured error naming the parameter, before any store or model work.

The server here points at a workspace root that does not exist: if validation
touched the stores first, these calls would fail with workspace_error instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def nowhere(tmp_path: Path) -> Path:
    return tmp_path / "no-workspace-here"


async def rejected(make_server: ServerFactory, root: Path, **arguments: Any) -> dict[str, Any]:
    return error_of(await call(make_server(root), **arguments))


async def test_an_unknown_action_is_refused_naming_the_action_parameter(make_server: ServerFactory, nowhere: Path):
    error = await rejected(make_server, nowhere, action="bogus")
    assert error["kind"] == "invalid_input" and error["parameter"] == "action"
    assert "navigate, search, frame, get, connections, matrix, synthesize, debate, build" in error["message"]


async def test_a_missing_or_non_string_action_is_refused(make_server: ServerFactory, nowhere: Path):
    assert (await rejected(make_server, nowhere))["parameter"] == "action"
    assert (await rejected(make_server, nowhere, action=3))["parameter"] == "action"


async def test_an_unknown_parameter_is_refused_by_name(make_server: ServerFactory, nowhere: Path):
    error = await rejected(make_server, nowhere, action="search", query="x", colour="red")
    assert error == {"kind": "invalid_input", "message": "unknown parameter 'colour'", "parameter": "colour"}


async def test_navigates_model_override_is_not_a_public_parameter(make_server: ServerFactory, nowhere: Path):
    error = await rejected(make_server, nowhere, action="navigate", question="q", model="command:rm -rf /")
    assert error["parameter"] == "model" and "unknown parameter" in error["message"]


async def test_a_parameter_of_another_action_is_refused_unless_null(make_server: ServerFactory, demo_root: Path):
    error = await rejected(make_server, demo_root, action="get", id="deci-e17103e8", limit=5)
    assert error["parameter"] == "limit" and "does not apply" in error["message"]
    result = await call(make_server(demo_root), action="get", id="deci-e17103e8", limit=None, question=None)
    assert result.is_error is False


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"action": "search", "query": "x", "limit": "10"}, "limit"),
        ({"action": "search", "query": "x", "limit": True}, "limit"),
        ({"action": "search", "query": "x", "limit": 2.5}, "limit"),
        ({"action": "search", "query": 42}, "query"),
        ({"action": "search", "query": "x", "projects": "research"}, "projects"),
        ({"action": "search", "query": "x", "projects": [1]}, "projects"),
        ({"action": "get", "id": ["deci-e17103e8"]}, "id"),
        ({"action": "navigate", "question": "q", "hops": "1"}, "hops"),
        ({"action": "navigate", "question": "q", "trace_floor": "0.5"}, "trace_floor"),
    ],
)
async def test_a_wrong_type_is_refused_naming_the_parameter(
    make_server: ServerFactory, nowhere: Path, arguments: dict[str, Any], parameter: str
):
    error = await rejected(make_server, nowhere, **arguments)
    assert error["kind"] == "invalid_input" and error["parameter"] == parameter


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"action": "search", "query": "x", "limit": 0}, "limit"),
        ({"action": "search", "query": "x", "limit": 101}, "limit"),
        ({"action": "navigate", "question": "q", "max_nodes": -2}, "max_nodes"),
        ({"action": "navigate", "question": "q", "max_nodes": 10_001}, "max_nodes"),
        ({"action": "navigate", "question": "q", "hops": 9}, "hops"),
        ({"action": "navigate", "question": "q", "token_budget": 100}, "token_budget"),
        ({"action": "navigate", "question": "q", "render_max_body_chars": -5}, "render_max_body_chars"),
        ({"action": "navigate", "question": "q", "trace_floor": 1.5}, "trace_floor"),
    ],
)
async def test_an_out_of_domain_value_is_refused_naming_the_parameter(
    make_server: ServerFactory, nowhere: Path, arguments: dict[str, Any], parameter: str
):
    error = await rejected(make_server, nowhere, **arguments)
    assert error["kind"] == "invalid_input" and error["parameter"] == parameter


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"action": "search", "query": "costs\x00"}, "query"),
        ({"action": "get", "id": "deci-e17103e8\x00.md"}, "id"),
        ({"action": "navigate", "question": "why\x00"}, "question"),
        ({"action": "search", "query": "x", "projects": ["research\x00"]}, "projects"),
    ],
)
async def test_a_nul_character_is_refused(
    make_server: ServerFactory, nowhere: Path, arguments: dict[str, Any], parameter: str
):
    error = await rejected(make_server, nowhere, **arguments)
    assert error["parameter"] == parameter and "NUL" in error["message"]


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"action": "search", "query": "x" * 1_000_000}, "query"),
        ({"action": "navigate", "question": "why " * 2000}, "question"),
        ({"action": "get", "id": "a" * 5000}, "id"),
    ],
)
async def test_a_huge_string_is_refused_without_echoing_it(
    make_server: ServerFactory, nowhere: Path, arguments: dict[str, Any], parameter: str
):
    error = await rejected(make_server, nowhere, **arguments)
    assert error["parameter"] == parameter and len(error["message"]) < 200


@pytest.mark.parametrize("project", ["", "../research", "a:b", "with space", ".hidden", "x/y"])
async def test_a_malformed_project_name_is_refused(make_server: ServerFactory, nowhere: Path, project: str):
    error = await rejected(make_server, nowhere, action="search", query="x", projects=[project])
    assert error["parameter"] == "projects"


async def test_an_unknown_project_is_refused_listing_the_known_ones(make_server: ServerFactory, demo_root: Path):
    error = await rejected(make_server, demo_root, action="search", query="x", projects=["nope"])
    assert error["parameter"] == "projects" and "execution, research" in error["message"]


async def test_blank_text_and_missing_required_parameters_are_refused(make_server: ServerFactory, nowhere: Path):
    assert (await rejected(make_server, nowhere, action="search", query="   "))["parameter"] == "query"
    missing = await rejected(make_server, nowhere, action="navigate")
    assert missing["parameter"] == "question" and "required" in missing["message"]
    assert (await rejected(make_server, nowhere, action="get"))["parameter"] == "id"


async def test_a_valid_call_on_a_missing_workspace_is_a_workspace_error(make_server: ServerFactory, nowhere: Path):
    error = await rejected(make_server, nowhere, action="get", id="deci-e17103e8")
    assert error["kind"] == "workspace_error"
    assert str(nowhere.parent) not in error["message"]
