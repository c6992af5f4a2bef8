"""The event loop never waits on the store lock, a vanished client ends everything, and navigate is capped.

Over real stdio against the installed server. A ``command:`` model that blocks
until the test releases it (``blocking_model.py``) holds the store lock inside
a build for as long as the test needs; hung test-only navigate jobs hold worker
slots. Waits are on real events: a reply line, a progress notification, the
model opening its FIFO, the server's exit; only process disappearance is a
bounded census poll.
"""

from __future__ import annotations

import signal
from pathlib import Path

import anyio
import pytest

from tests.support.model_calls import all_gone, blocking_spec, model_started, release_model
from tests.support.procs import group_members, wait_until, workers_for
from tests.support.raw_stdio import raw_server
from tests.support.worker_jobs import job_env

pytestmark = pytest.mark.anyio

BUILD = {"action": "build"}


async def test_a_ping_is_answered_while_a_build_holds_the_store_lock_and_a_second_build_waits_for_it(
    warm_demo: Path, tmp_path: Path
) -> None:
    spec = blocking_spec(tmp_path / "model")
    with (tmp_path / "server.log").open("w+", encoding="utf-8") as log:
        async with raw_server(warm_demo, log, args=["--model", spec]) as server:
            await server.call(2, BUILD)
            running = await model_started(tmp_path / "model")  # build 2 now holds the store lock in its thread
            await server.call(3, BUILD)  # needs the lock to read write_free
            await server.send({"id": 4, "method": "ping"})
            assert await server.reply_to(4, timeout_s=30) == {"jsonrpc": "2.0", "id": 4, "result": {}}
            assert not [m for m in server.seen if m.get("id") in (2, 3)], "both builds are still waiting"
            await release_model(tmp_path / "model")
            first = (await server.reply_to(2))["result"]
            assert first["isError"] is True
            assert first["structuredContent"]["error"]["kind"] == "model_command_failed"
            assert "result" in await server.reply_to(3)
    assert all_gone(running.pid, running.helper)


async def test_a_client_that_leaves_mid_build_ends_the_server_its_template_and_the_model_command(
    warm_demo: Path, tmp_path: Path
) -> None:
    spec = blocking_spec(tmp_path / "model")
    with (tmp_path / "server.log").open("w+", encoding="utf-8") as log:
        async with raw_server(warm_demo, log, args=["--model", spec]) as server:
            await server.call(2, BUILD)
            running = await model_started(tmp_path / "model")
            assert wait_until(lambda: len(workers_for(warm_demo)) == 1, timeout_s=60), "the warm navigate template"
            await server.close_input()
            with anyio.fail_after(60):
                assert await server.process.wait() == 0
    assert all_gone(running.pid, running.helper)
    assert wait_until(lambda: workers_for(warm_demo) == [], timeout_s=30)


async def test_navigate_turns_past_max_concurrent_wait_in_a_queue_and_say_so_in_progress(
    warm_demo: Path, tmp_path: Path
) -> None:
    config = warm_demo / ".synapse" / "config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "navigate: {max_concurrent: 2, timeout_s: 600}\n", encoding="utf-8"
    )

    def hung_turns() -> list[int]:
        return [w.pid for w in workers_for(warm_demo) if len(group_members(w.pid)) >= 2]

    with (tmp_path / "server.log").open("w+", encoding="utf-8") as log:
        async with raw_server(warm_demo, log, env=job_env("hang")) as server:
            # Each call reads the workspace in threads before it asks for a slot, so calls sent together
            # reach the queue in no fixed order: the third is sent once the first two hold both slots.
            for request_id in (2, 3):
                await server.call(request_id, {"action": "navigate", "question": "Why?"}, progress=True)
            assert wait_until(lambda: len(hung_turns()) == 2, timeout_s=60), "both slots taken"
            await server.call(4, {"action": "navigate", "question": "Why?"}, progress=True)
            queued = await server.progress_of(4, "queued", timeout_s=60)
            assert queued["params"]["message"] == "queued: 2 navigate turns running (max_concurrent 2)"
            assert len(hung_turns()) == 2, "two turns run, the third waits"
            assert len(workers_for(warm_demo)) == 3, "the template and two turns, no more"
            await server.send({"method": "notifications/cancelled", "params": {"requestId": 2}})
            await server.progress_of(4, "started", timeout_s=60)
            assert wait_until(lambda: len(hung_turns()) == 2, timeout_s=60), "the queued turn took the freed slot"
            server.process.send_signal(signal.SIGKILL)
            await server.process.wait()
    assert wait_until(lambda: workers_for(warm_demo) == [], timeout_s=30)
