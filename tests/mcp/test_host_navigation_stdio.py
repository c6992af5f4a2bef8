"""The host's own model navigates over real stdio: pending turns, continued with turn= and reply=.

A scripted host (an MCP client replaying recorded replies) must reach the same verdicts, statuses and
answer texts as the same replies through ``script:``; every token fault is a structured error; nothing
of a turn lives in the server between steps, so a second server with the same secret continues it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, Implementation

from adapters.index import Embedder
from dev.synapse_bench.canonical.cases import Case, load_corpus
from synapse_server.host_turns.token import SECRET_ENV, StepClaims, server_secret, sign, verify
from synapse_server.isolation.turn import navigate_turn
from synapse_server.models.script import ScriptModel
from synapse_server.navigation.request import NavigateRequest
from tests.support.procs import wait_until, workers_for

pytestmark = pytest.mark.anyio

SYNAPSE = Path(sys.executable).parent / "synapse"
SECRET = "a test secret shared by two servers"
CLIENT = Implementation(name="scripted-host", version="1.0")
ENTRY = ".memory/tree/deci-c3d4e5f6.md"
VOLATILITY = "What annualised volatility target do the momentum positions use?"
VOLATILITY_REPLY = """@memdsl.out/2
@answer
claim c1 [restatement] cites mem:tree:deci-c3d4e5f6 :: The momentum signal scales positions to a {pct} annualised volatility target.
prose :: The momentum signal scales positions to a {pct} annualised volatility target.
cite c1 :: The momentum signal scales positions to a {pct} annualised volatility target.
conclude c1
"""


def demo_replay_cases() -> list[Case]:
    return [c for c in load_corpus().cases if c.category == "replay" and c.workspace == "demo" and c.replies]


@pytest.fixture
def host_demo(warm_demo: Path) -> Path:
    """The warm demo with no model configured, so ``synapse serve`` offers host navigation by default."""
    config = warm_demo / ".synapse" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    assert "model: extractive" in text
    config.write_text(re.sub(r"(?m)^model: extractive\n", "", text), encoding="utf-8")
    return warm_demo


@asynccontextmanager
async def host_session(root: Path, log: IO[str], *, secret: str = SECRET) -> AsyncIterator[ClientSession]:
    env = {**os.environ, SECRET_ENV: secret}
    env.pop("SYNAPSE_MODEL", None)
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(root)], env=env)
    async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write, client_info=CLIENT) as s:
        await s.initialize()
        yield s


def body(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


async def ask(session: ClientSession, question: str, **budgets: Any) -> dict[str, Any]:
    return body(await session.call_tool("synapse", {"action": "navigate", "question": question, **budgets}))


async def answer(session: ClientSession, turn: str, reply: str) -> dict[str, Any]:
    return body(await session.call_tool("synapse", {"action": "navigate", "turn": turn, "reply": reply}))


async def play(session: ClientSession, case: Case) -> tuple[dict[str, Any], int]:
    """The host's side: answer each pending step with the case's next recorded reply; the final result."""
    result = await ask(session, case.question, **case.budgets.as_request())
    steps = 0
    while result.get("verdict") == "pending":
        assert result["step"] == steps + 1 and result["model"]["provider"] == "host"
        assert steps < len(case.replies), f"{case.id}: the engine asked for more replies than were recorded"
        result = await answer(session, result["turn"], case.replies[steps].text)
        steps += 1
    return result, steps


def scripted(root: Path, case: Case, embedder: Embedder, tmp_path: Path) -> dict[str, Any]:
    """The same replies through ``script:``, in process: the verdict the host path must reproduce."""
    replies = tmp_path / f"{case.id}.json"
    replies.write_text(json.dumps([reply.text for reply in case.replies]), encoding="utf-8")
    request = NavigateRequest.model_validate({"question": case.question, **case.budgets.as_request()})
    result = navigate_turn(root, request, embedder=embedder, model=ScriptModel(replies), env={})
    return result.model_dump(mode="json")


def verdict_of(result: dict[str, Any]) -> tuple[Any, ...]:
    surface = result.get("answer_surface") or {}
    return (result["verdict"], result["status"], tuple(result["reasons"]), result["halted_reason"], surface.get("text"))


async def test_a_scripted_host_reaches_the_verdicts_of_script_on_every_replay_case(
    host_demo: Path, server_log: IO[str], embedder: Embedder, tmp_path: Path
) -> None:
    cases = demo_replay_cases()
    assert len(cases) >= 40
    expected = {case.id: scripted(host_demo, case, embedder, tmp_path) for case in cases}
    async with host_session(host_demo, server_log) as session:
        for case in cases:
            result, steps = await play(session, case)
            assert verdict_of(result) == verdict_of(expected[case.id]), case.id
            assert result["model"] == {"provider": "host", "id": "scripted-host 1.0"}
            assert "envelope" not in result, "the envelope is a resource link, not part of the result"
            assert steps >= 1


async def test_the_envelope_of_a_finished_turn_is_a_readable_resource(host_demo: Path, server_log: IO[str]) -> None:
    async with host_session(host_demo, server_log) as session:
        pending = await ask(session, VOLATILITY)
        done = await session.call_tool(
            "synapse", {"action": "navigate", "turn": pending["turn"], "reply": VOLATILITY_REPLY.format(pct="10%")}
        )
        result = body(done)
        assert result["verdict"] == "answer" and result["status"] == "grounded"
        link = result["envelope_resource"]
        assert re.fullmatch(r"synapse://turns/[0-9a-f]{16}/envelope", link)
        assert [block.uri for block in done.content if block.type == "resource_link"] == [link]
        read = await session.read_resource(link)
        text = read.contents[0].text  # type: ignore[union-attr]
        assert "mem:tree:deci-c3d4e5f6" in text and text in pending["prompt"]


async def test_every_token_fault_is_a_structured_error_and_spends_nothing(host_demo: Path, server_log: IO[str]) -> None:
    secret = server_secret({SECRET_ENV: SECRET})
    reply = VOLATILITY_REPLY.format(pct="10%")
    async with host_session(host_demo, server_log) as session:
        pending = await ask(session, VOLATILITY)
        token = pending["turn"]
        claims = verify(token, secret, time.time())
        prefix, payload, signature = token.split(".")
        flipped = payload[:-1] + ("A" if payload[-1] != "A" else "B")
        faults = {
            "turn_invalid": [
                f"{prefix}.{flipped}.{signature}",  # altered
                sign(claims, server_secret({SECRET_ENV: "another server's secret"})),  # not signed here
                "st1.not-a-token",
                "x" * 200,
            ],
            "invalid_input": ["x" * 2000],  # longer than any token: refused by the schema
            "turn_expired": [sign(StepClaims(**{**vars_of(claims), "expires": int(time.time()) - 1}), secret)],
        }
        for kind, tokens in faults.items():
            for bad in tokens:
                error = (await answer(session, bad, reply))["error"]
                assert error["kind"] == kind and error["parameter"] == "turn", (kind, bad[:40])
        lonely = body(await session.call_tool("synapse", {"action": "navigate", "turn": token}))
        assert lonely["error"]["kind"] == "invalid_input" and lonely["error"]["parameter"] == "reply"
        mixed = body(
            await session.call_tool(
                "synapse", {"action": "navigate", "turn": token, "reply": reply, "question": VOLATILITY}
            )
        )
        assert mixed["error"]["kind"] == "invalid_input" and mixed["error"]["parameter"] == "question"
        done = await answer(session, token, reply)  # none of the faults spent the step
        assert done["verdict"] == "answer"
        again = (await answer(session, token, reply))["error"]
        assert again["kind"] == "turn_used" and "step 1" in again["message"]


def vars_of(claims: StepClaims) -> dict[str, Any]:
    return {name: getattr(claims, name) for name in StepClaims.__slots__}


async def test_another_server_with_the_same_secret_continues_the_turn_and_one_without_it_cannot(
    host_demo: Path, server_log: IO[str]
) -> None:
    async with host_session(host_demo, server_log) as first:
        pending = await ask(first, VOLATILITY)
    assert wait_until(lambda: workers_for(host_demo) == [], timeout_s=15), "the first server is gone"
    reply = VOLATILITY_REPLY.format(pct="10%")
    async with host_session(host_demo, server_log, secret="not the same") as stranger:
        assert (await answer(stranger, pending["turn"], reply))["error"]["kind"] == "turn_invalid"
    async with host_session(host_demo, server_log) as second:
        done = await answer(second, pending["turn"], reply)
    assert done["verdict"] == "answer" and "10% annualised" in done["answer_surface"]["text"]


async def test_a_store_edited_between_two_steps_restarts_the_turn_on_the_new_evidence(
    host_demo: Path, server_log: IO[str]
) -> None:
    async with host_session(host_demo, server_log) as session:
        pending = await ask(session, VOLATILITY)
        entry = host_demo / ENTRY
        entry.write_text(entry.read_text(encoding="utf-8").replace("a 10% annualised", "a 12% annualised"), "utf-8")
        restarted = await answer(session, pending["turn"], VOLATILITY_REPLY.format(pct="10%"))
        assert restarted["verdict"] == "pending" and restarted["step"] == 1
        assert "evidence changed since step 1" in restarted["restarted"] and restarted["summary"].startswith(
            "restarted"
        )
        assert "12% annualised" in restarted["prompt"] and restarted["turn"] != pending["turn"]
        done = await answer(session, restarted["turn"], VOLATILITY_REPLY.format(pct="12%"))
    assert done["verdict"] == "answer" and "12% annualised" in done["answer_surface"]["text"]


async def test_ten_concurrent_turns_each_reach_their_own_verdict(host_demo: Path, server_log: IO[str]) -> None:
    cases = demo_replay_cases()[:10]
    assert len({case.question for case in cases}) >= 5
    results: dict[str, dict[str, Any]] = {}
    async with host_session(host_demo, server_log) as session:

        async def run(case: Case) -> None:
            results[case.id], _ = await play(session, case)

        async with anyio.create_task_group() as group:
            for case in cases:
                group.start_soon(run, case)
    for case in cases:
        assert results[case.id]["verdict"] == case.expect.verdict, case.id
        assert results[case.id]["status"] == case.expect.status, case.id


async def test_a_host_that_replies_in_prose_gets_one_repair_then_a_parse_fail_abstention(
    host_demo: Path, server_log: IO[str]
) -> None:
    prose = "The positions target 10% annualised volatility, as the decision record says."
    async with host_session(host_demo, server_log) as session:
        pending = await ask(session, VOLATILITY)
        repair = await answer(session, pending["turn"], prose)
        assert repair["verdict"] == "pending" and repair["step"] == 2
        assert "=== PARSE ERROR ===" in repair["prompt"] and "navigator rules are those of step 1" in repair["prompt"]
        final = await answer(session, repair["turn"], prose)
    assert final["verdict"] == "abstain" and final["halted_reason"] == "parse-fail" and final["answer_surface"] is None
    assert prose not in json.dumps(final), "no reply text escapes into the result"


async def test_a_host_that_never_replies_leaves_no_turn_process_behind(host_demo: Path, server_log: IO[str]) -> None:
    async with host_session(host_demo, server_log) as session:
        pending = await ask(session, VOLATILITY)
        assert pending["verdict"] == "pending" and pending["budget"]["expires_in_s"] == 1800
        # only the warm template is left: the step's own process ended when it suspended
        assert wait_until(lambda: len(workers_for(host_demo)) == 1, timeout_s=15)
        records = list((host_demo / ".angelo" / "turns").glob("*.json"))
        assert len(records) == 1, "the turn lives on disk, in the cache, until it finishes or expires"
    assert wait_until(lambda: workers_for(host_demo) == [], timeout_s=15)


def test_serve_check_says_navigate_runs_on_the_host_model_when_nothing_names_one(host_demo: Path) -> None:
    import subprocess

    env = {key: value for key, value in os.environ.items() if key != "SYNAPSE_MODEL"}
    done = subprocess.run(
        [str(SYNAPSE), "serve", "--root", str(host_demo), "--check", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(done.stdout)["model"] == {"spec": "host", "source": "default", "trusted": True}
    flagged = subprocess.run(
        [str(SYNAPSE), "serve", "--root", str(host_demo), "--check", "--model", "extractive"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert "model: extractive (from --model, trusted)" in flagged.stdout


def test_the_cli_refuses_the_host_model_it_has_no_host_for(host_demo: Path) -> None:
    import subprocess

    done = subprocess.run(
        [str(SYNAPSE), "navigate", VOLATILITY, "--root", str(host_demo), "--model", "host"],
        capture_output=True,
        text=True,
        env={key: value for key, value in os.environ.items() if key != "SYNAPSE_MODEL"},
    )
    assert done.returncode == 2 and "MCP host" in done.stderr and done.stdout == ""
