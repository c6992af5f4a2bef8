"""A server killed outright (SIGKILL, no clean-up) still leaves no worker behind: each worker dies with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from tests.support.procs import group_members, wait_until, workers_for
from tests.support.worker_jobs import job_env

SYNAPSE = Path(sys.executable).parent / "synapse"


def send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8") + b"\n")
    pipe.flush()


def test_a_killed_server_takes_its_template_and_its_running_turn_with_it(fresh_demo: Path, tmp_path: Path):
    env = job_env("hang", os.environ)
    with (tmp_path / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [str(SYNAPSE), "serve", "--root", str(fresh_demo)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env=env,
        )
        try:
            assert server.stdin is not None and server.stdout is not None
            init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
            send(server.stdin, {"id": 1, "method": "initialize", "params": init})
            assert json.loads(server.stdout.readline())["id"] == 1
            send(server.stdin, {"method": "notifications/initialized"})
            call = {"name": "synapse", "arguments": {"action": "navigate", "question": "Why?"}}
            send(server.stdin, {"id": 2, "method": "tools/call", "params": call})

            def hanging_with_grandchild() -> bool:
                return any(len(group_members(w.pid)) >= 2 for w in workers_for(fresh_demo))

            assert wait_until(hanging_with_grandchild, timeout_s=30), "a worker is running the hang job"
            groups = [w.pid for w in workers_for(fresh_demo)]
            assert len(groups) == 2, "the running turn and the warm template"
        finally:
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=30)
            server.stdin.close()  # type: ignore[union-attr]
            server.stdout.close()  # type: ignore[union-attr]
    assert wait_until(lambda: all(group_members(pgid) == [] for pgid in groups), timeout_s=30)
