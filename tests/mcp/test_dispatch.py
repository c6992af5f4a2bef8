"""The dispatch table: write refusal in write-free mode and the one place errors become public JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from synapse_server.actions.base import ActionOutput, ActionSpec, StrictParams
from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.errors import NotFound
from synapse_server.mcp.dispatch import ACTIONS, Action, Dispatcher

pytestmark = pytest.mark.anyio


class Nothing(StrictParams):
    pass


class Done(ActionOutput):
    pass


def table_with(action: Action, spec: ActionSpec) -> dict[Action, ActionSpec]:
    return {**ACTIONS, action: spec}


def writing_action(calls: list[str]) -> ActionSpec:
    async def handler(params: BaseModel, deps: Deps) -> Done:
        calls.append("ran")
        return Done(summary="wrote the overlay")

    return ActionSpec(params=Nothing, handler=handler, does="writes", say=("build",), writes=True)


async def test_write_free_settings_refuse_a_writing_action_before_it_runs(demo_root: Path):
    calls: list[str] = []
    deps = Deps(ServerSettings(root=demo_root, write_free=True, prespawn=False))
    outcome = await Dispatcher(deps, table_with(Action.BUILD, writing_action(calls))).call({"action": "build"})
    assert outcome.is_error
    assert outcome.payload["error"]["kind"] == "write_refused" and outcome.payload["error"]["parameter"] == "action"
    assert calls == []


async def test_write_free_in_the_workspace_config_refuses_too(fresh_demo: Path):
    config = fresh_demo / ".synapse" / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("write_free: false", "write_free: true"), encoding="utf-8"
    )
    calls: list[str] = []
    deps = Deps(ServerSettings(root=fresh_demo, prespawn=False))
    outcome = await Dispatcher(deps, table_with(Action.BUILD, writing_action(calls))).call({"action": "build"})
    assert outcome.payload["error"]["kind"] == "write_refused" and calls == []


async def test_the_write_free_environment_variable_turns_write_free_on(demo_root: Path):
    settings = ServerSettings.from_environment(demo_root, env={"SYNAPSE_WRITE_FREE": "1"})
    assert settings.write_free
    assert not ServerSettings.from_environment(demo_root, env={"SYNAPSE_WRITE_FREE": "0"}).write_free


async def test_a_writing_action_runs_when_the_server_may_write(demo_root: Path):
    calls: list[str] = []
    deps = Deps(ServerSettings(root=demo_root, prespawn=False))
    outcome = await Dispatcher(deps, table_with(Action.BUILD, writing_action(calls))).call({"action": "build"})
    assert outcome.payload == {"action": "build", "summary": "wrote the overlay"} and calls == ["ran"]


async def test_an_unexpected_exception_becomes_an_internal_error_without_traceback_or_path(
    demo_root: Path, caplog: pytest.LogCaptureFixture
):
    async def broken(params: BaseModel, deps: Deps) -> Done:
        raise RuntimeError(f"boom in {demo_root}/secret.txt")

    spec = ActionSpec(params=Nothing, handler=broken, does="breaks", say=("x",))
    deps = Deps(ServerSettings(root=demo_root, prespawn=False))
    outcome = await Dispatcher(deps, table_with(Action.FRAME, spec)).call({"action": "frame"})
    assert outcome.is_error
    assert outcome.payload["error"] == {
        "kind": "internal_error",
        "message": "internal error; the server log has the details",
        "parameter": None,
    }
    assert str(demo_root) not in outcome.text() and "Traceback" not in outcome.text()
    assert any(record.exc_info for record in caplog.records), "the traceback goes to the log"


async def test_a_typed_error_keeps_its_public_kind_and_parameter(demo_root: Path):
    async def missing(params: BaseModel, deps: Deps) -> Any:
        raise NotFound("no such thing", parameter="id", root=str(demo_root))

    spec = ActionSpec(params=Nothing, handler=missing, does="finds nothing", say=("x",))
    deps = Deps(ServerSettings(root=demo_root, prespawn=False))
    outcome = await Dispatcher(deps, table_with(Action.FRAME, spec)).call({"action": "frame"})
    assert outcome.payload["error"] == {"kind": "not_found", "message": "no such thing", "parameter": "id"}
    assert str(demo_root) not in outcome.text(), "error details other than the parameter stay private"


def test_adding_an_action_to_the_table_adds_it_to_the_tool_schema(demo_root: Path):
    from synapse_server.mcp.server import input_schema, tool_description

    calls: list[str] = []
    table = {Action.NAVIGATE: ACTIONS[Action.NAVIGATE], Action.BUILD: writing_action(calls)}
    dispatcher = Dispatcher(Deps(ServerSettings(root=demo_root, prespawn=False)), table)
    assert input_schema(dispatcher)["properties"]["action"]["enum"] == ["navigate", "build"]
    assert '- build: "build"' in tool_description(dispatcher)


async def test_a_public_action_missing_from_the_table_says_it_is_not_available(demo_root: Path):
    dispatcher = Dispatcher(
        Deps(ServerSettings(root=demo_root, prespawn=False)), {Action.NAVIGATE: ACTIONS[Action.NAVIGATE]}
    )
    outcome = await dispatcher.call({"action": "build"})
    assert outcome.is_error
    assert outcome.payload["error"]["parameter"] == "action" and "not available" in outcome.payload["error"]["message"]
