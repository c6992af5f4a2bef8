"""navigate isolation with real worker processes: timeouts, native crashes, the warm template, and clean-up.

The turns run test-only jobs (``SYNAPSE_TEST_WORKER_JOB``) so a real process
can segfault, be SIGKILLed or hang with a grandchild, without loading the model.
Every turn is a fresh process forked from the pool's template; ``aclose`` ends
the template, so each test that counts processes closes its pool first.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from synapse_server.isolation.runner import WorkerPool
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo
from tests.support.procs import children, group_members, open_fds, processes, wait_until
from tests.support.servers import ServerFactory
from tests.support.tool_calls import EXTRACTIVE, call, payload
from tests.support.worker_jobs import echo_result, job_env

pytestmark = pytest.mark.anyio

REQUEST = NavigateRequest(question="Why did the Sharpe ratio fall?")
MODEL = ModelInfo(provider="extractive", id="extractive")
FAILURE_SHAPE = {"status": None, "reasons": [], "answer_surface": None, "trace_surface": None, "conclusion": None}


def pool_for(root: Path, job: str, *, prespawn: bool = False) -> WorkerPool:
    return WorkerPool(root, env=job_env(job, os.environ), prespawn=prespawn)


def group_gone(pgid: int) -> bool:
    """A killed grandchild is reparented to init and reaped there, a moment after the kill: poll, bounded."""
    return wait_until(lambda: group_members(pgid) == [], timeout_s=10)


def assert_failure_shape(result: dict[str, object]) -> None:
    assert result["verdict"] == "failure"
    assert {key: result[key] for key in FAILURE_SHAPE} == FAILURE_SHAPE


async def test_a_hung_worker_times_out_and_its_whole_process_group_is_killed(demo_root: Path):
    before = children()
    pool = pool_for(demo_root, "hang")
    seen_grandchild = anyio.Event()
    turn_parent: list[int] = []

    async def watch_group() -> None:
        while not pool.recent_pids or len(group_members(pool.recent_pids[-1])) < 2:
            await anyio.sleep(0.05)  # polling an external process group, bounded by the turn's timeout
        turn_parent.extend(p.ppid for p in processes() if p.pid == pool.recent_pids[-1])
        seen_grandchild.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch_group)
        result = await pool.run_turn(REQUEST, timeout_s=6.0, model=MODEL)
        tg.cancel_scope.cancel()
    assert seen_grandchild.is_set(), "the hang job starts a grandchild in the worker's group"
    assert pool.template is not None and turn_parent == [pool.template.pid], "the turn was forked from the template"
    assert result.halted_reason == "timeout" and "6 s timeout" in result.detail
    assert_failure_shape(result.model_dump())
    assert result.model == MODEL
    assert group_gone(pool.recent_pids[-1])
    await pool.aclose()
    assert children() == before


@pytest.mark.parametrize(("job", "signal_name"), [("sigsegv", "SIGSEGV"), ("sigkill", "SIGKILL")])
async def test_a_worker_killed_by_a_signal_is_a_native_crash_naming_it(demo_root: Path, job: str, signal_name: str):
    before = children()
    pool = pool_for(demo_root, job)
    result = await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)
    assert result.halted_reason == "native-crash" and result.loop_break == "native-crash"
    assert result.detail == f"the navigate worker died from {signal_name}"
    assert_failure_shape(result.model_dump())
    assert group_gone(pool.recent_pids[-1])
    await pool.aclose()
    assert children() == before


async def test_a_worker_that_exits_or_raises_is_an_internal_error(demo_root: Path):
    pool = pool_for(demo_root, "exit")
    exited = await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)
    await pool.aclose()
    assert exited.halted_reason == "internal-error" and "status 3" in exited.detail
    pool = pool_for(demo_root, "raise")
    raised = await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)
    await pool.aclose()
    assert raised.halted_reason == "internal-error" and raised.detail == "internal error (RuntimeError)"


async def test_a_labelled_abstention_passes_through_unchanged(demo_root: Path):
    pool = pool_for(demo_root, "echo")
    result = await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)
    await pool.aclose()
    assert result == echo_result(REQUEST)


async def test_every_turn_is_a_fresh_process_forked_from_one_warm_template(demo_root: Path):
    before_children, before_fds = children(), open_fds()
    pool = pool_for(demo_root, "tally", prespawn=True)
    await pool.start()
    assert pool.template is not None
    template = pool.template.pid
    details = [(await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)).detail for _ in range(3)]
    turns = list(pool.recent_pids)
    assert len(set(turns)) == 3 and template not in turns
    assert details == [f"turn 1 of process {pid}" for pid in turns], "no state survives from one turn to the next"
    assert pool.template is not None and pool.template.pid == template, "the same template served every turn"
    assert all(group_gone(pid) for pid in turns)
    await pool.aclose()
    assert pool.template is None and group_gone(template)
    assert children() == before_children and open_fds() == before_fds


async def test_a_template_that_died_while_idle_is_replaced_by_a_fresh_one(demo_root: Path):
    pool = pool_for(demo_root, "echo", prespawn=True)
    await pool.start()
    assert pool.template is not None
    dead = pool.template
    os.killpg(dead.pid, 9)
    await dead.process.wait()
    result = await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)
    assert result == echo_result(REQUEST)
    assert pool.template is not None and pool.template.pid != dead.pid
    await pool.aclose()


async def test_a_crash_through_the_tool_is_a_structured_failure_with_is_error(
    make_server: ServerFactory, demo_root: Path
):
    result = await call(make_server(demo_root, job="sigsegv"), action="navigate", question="Why?")
    body = payload(result)
    assert result.is_error is True
    assert body["action"] == "navigate" and body["halted_reason"] == "native-crash"
    assert body["summary"] == "failure (native-crash): the navigate worker died from SIGSEGV"
    assert_failure_shape(body)
    assert body["model"] == EXTRACTIVE


async def test_the_config_timeout_applies_to_a_turn_through_the_tool(make_server: ServerFactory, fresh_demo: Path):
    config = fresh_demo / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "navigate: {timeout_s: 1.5}\n", encoding="utf-8")
    before = children()
    result = await call(make_server(fresh_demo, job="hang"), action="navigate", question="Why?")
    body = payload(result)
    assert result.is_error is True and body["halted_reason"] == "timeout" and "1.5 s" in body["detail"]
    assert children() == before


async def test_an_abstention_through_the_tool_is_not_an_error(make_server: ServerFactory, demo_root: Path):
    result = await call(make_server(demo_root, job="echo"), action="navigate", question="Why?")
    body = payload(result)
    assert result.is_error is False
    expected = echo_result(NavigateRequest(question="Why?")).model_dump(mode="json", exclude={"envelope"})
    assert {k: v for k, v in body.items() if k not in ("action", "summary")} == {**expected, "envelope_resource": None}
    assert body["summary"].startswith("abstained (low-coverage): ")


async def test_the_server_model_override_reaches_the_failure_report(make_server: ServerFactory, demo_root: Path):
    result = await call(
        make_server(demo_root, job="sigkill", model="script:replies.json"), action="navigate", question="Why?"
    )
    assert payload(result)["model"] == {"provider": "script", "id": "replies.json"}


async def test_the_server_shuts_its_template_down_when_the_session_ends(make_server: ServerFactory, demo_root: Path):
    before = children()
    server = make_server(demo_root, job="echo", prespawn=True)
    result = await call(server, action="navigate", question="Why?")
    assert result.is_error is False
    assert children() == before


async def test_a_typed_error_in_the_worker_keeps_its_kind_and_parameter_through_the_tool(
    make_server: ServerFactory, demo_root: Path
):
    result = await call(make_server(demo_root, job="invalid"), action="navigate", question="Why?")
    assert result.is_error is True
    assert payload(result)["error"] == {
        "kind": "invalid_input",
        "message": "test job: unknown project 'nope'",
        "parameter": "projects",
    }


async def test_a_cancelled_turn_kills_its_worker_group(demo_root: Path):
    before = children()
    pool = pool_for(demo_root, "hang")
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:

            async def cancel_once_the_turn_runs() -> None:
                while not pool.recent_pids or len(group_members(pool.recent_pids[-1])) < 2:
                    await anyio.sleep(0.05)  # polling an external process group, bounded by the turn's timeout
                scope.cancel()

            tg.start_soon(cancel_once_the_turn_runs)
            await pool.run_turn(REQUEST, timeout_s=60.0, model=MODEL)
    assert scope.cancelled_caught
    assert group_gone(pool.recent_pids[-1])
    await pool.aclose()
    assert children() == before
