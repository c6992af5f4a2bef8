"""Hundreds of navigate turns through one server leave no process, zombie or descriptor behind.

Each turn runs in a real fresh process forked from the template; the ``echo``
test job answers at once with a labelled abstention, so the test exercises
forking, the turn socket and the reaping 200 times without loading the
embedding model 200 times.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.support.procs import children, open_fds, processes
from tests.support.servers import ServerFactory

pytestmark = pytest.mark.anyio

TURNS = 200


async def test_two_hundred_sequential_navigate_calls_leave_no_extra_processes_or_descriptors(
    make_server: ServerFactory, demo_root: Path
):
    before_children, before_fds = children(), open_fds()
    server = make_server(demo_root, job="echo", prespawn=True)
    async with Client(server) as client:
        for turn in range(TURNS):
            result = await client.call_tool("synapse", {"action": "navigate", "question": f"question {turn}?"})
            assert result.is_error is False, result.structured_content
            if turn % 50 == 49:
                (template,) = children() - before_children  # only the warm template is alive between turns
                assert [p.pid for p in processes() if p.ppid == template] == [], "every turn was reaped"
    assert children() == before_children
    assert open_fds() == before_fds
