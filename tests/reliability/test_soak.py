"""Soak: hundreds of mixed calls through ONE installed stdio server, with a census before and after.

The mix repeats a fixed cycle: searches (scoped, memory-only, one hit, many
hits), gets of every store (memory, zk, code file, run), connections, and
invalid calls (unknown action, out-of-range limit, traversal id, NUL), with a
*real* navigate turn (real worker, embedding model, extractive navigator) every
``NAVIGATE_EVERY`` calls, its verdict checked against the demo's expected one.
Navigates are real, not the ``echo`` job: a real turn costs a few seconds, so
they are a minority of the calls (5 in the bounded run, 40 in the full one).

Census: the server's resident memory, descriptor count and children are read
(through psutil) after a warm-up (one search, one navigate: the model and the index
are loaded, the navigate template is warm) and again after the last call; after the
session ends no worker remains and this process has no new child or
descriptor. Every
source file is byte-identical afterwards.
"""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from tests.support.procs import children, fd_count, open_fds, rss_bytes, workers_for
from tests.support.reliability_checks import (
    await_until,
    changed_paths,
    error_kind,
    forbidden_texts,
    source_digest,
)
from tests.support.reliability_scale import Scale, twins
from tests.support.reliability_stdio import stdio_server

pytestmark = pytest.mark.anyio

MIB = 1024 * 1024
RSS_GROWTH_LIMIT = 32 * MIB
"""Documented bound on the server's RSS growth over the soak (docs/reliability.md has the measured figures)."""
CALL_TIMEOUT_S = 240
CYCLE: list[tuple[dict[str, Any], str | None]] = [
    ({"action": "search", "query": "volatility target"}, None),
    ({"action": "get", "id": "deci-c3d4e5f6"}, None),
    ({"action": "search", "query": "transaction costs", "projects": []}, None),
    ({"action": "get", "id": "zk:research:20260505-0930-trailing-volatility"}, None),
    ({"action": "search", "query": "momentum", "limit": 1}, None),
    ({"action": "get", "id": "repo:momentum:models/costs.py"}, None),
    ({"action": "bogus"}, "invalid_input"),
    ({"action": "get", "id": "data:runs:run-002"}, None),
    ({"action": "search", "query": "sharpe ratio costs", "projects": ["research"], "limit": 100}, None),
    ({"action": "search", "query": "x", "limit": 500}, "invalid_input"),
    ({"action": "connections", "id": "deci-c3d4e5f6"}, None),
    ({"action": "get", "id": "../../etc/passwd"}, "path_outside_workspace"),
    ({"action": "get", "id": "deci-00000000"}, "not_found"),
    ({"action": "search", "query": "momentum\x00"}, "invalid_input"),
]


def demo_questions() -> list[tuple[str, str]]:
    """(question, expected verdict) for every demo question."""
    text = resources.files("synapse_server.demo").joinpath("questions.yaml").read_text(encoding="utf-8")
    return [(case["question"], case["expect"]["verdict"]) for case in yaml.safe_load(text)["questions"]]


def soak_calls(n: int, navigate_every: int) -> list[tuple[dict[str, Any], str | None, str | None]]:
    """``n`` calls: (arguments, expected error kind, expected navigate verdict)."""
    questions = demo_questions()
    calls: list[tuple[dict[str, Any], str | None, str | None]] = []
    for i in range(n):
        if i % navigate_every == navigate_every - 1:
            question, verdict = questions[(i // navigate_every) % len(questions)]
            calls.append(({"action": "navigate", "question": question}, None, verdict))
        else:
            arguments, kind = CYCLE[i % len(CYCLE)]
            calls.append((arguments, kind, None))
    return calls


@pytest.mark.parametrize("scale", twins(bounded=150, full=1000))
async def test_a_long_mixed_session_leaks_no_process_descriptor_or_memory_and_changes_no_source(
    sealed_demo: Path, scale: Scale
) -> None:
    navigate_every = 25 if scale.full else 30
    calls = soak_calls(scale.n, navigate_every)
    forbidden = forbidden_texts(sealed_demo)
    sources = source_digest(sealed_demo)
    before, before_fds = children(), open_fds()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(sealed_demo, log) as server:
            session = server.session
            await session.call_tool("synapse", {"action": "search", "query": "warm up"})
            question, _ = demo_questions()[0]
            await session.call_tool("synapse", {"action": "navigate", "question": question})
            assert await await_until(lambda: len(children(server.pid)) == 1, timeout_s=60), "one warm template"
            rss0, fds0, spare0 = rss_bytes(server.pid), fd_count(server.pid), children(server.pid)
            for i, (arguments, kind, verdict) in enumerate(calls):
                with anyio.fail_after(CALL_TIMEOUT_S):
                    result = await session.call_tool("synapse", arguments)
                assert error_kind(result, forbidden) == kind, (i, arguments, result.structured_content)
                if verdict is not None:
                    assert (result.structured_content or {})["verdict"] == verdict, (i, arguments)
            spare1 = children(server.pid)
            turns_left = set().union(*(children(pid) for pid in spare1))
            rss1, fds1 = rss_bytes(server.pid), fd_count(server.pid)
    growth = rss1 - rss0
    navigates = sum(1 for _, _, verdict in calls if verdict is not None)
    print(
        f"soak {scale.name}: {len(calls)} calls ({navigates} real navigates), server RSS {rss0 / MIB:.1f} -> "
        f"{rss1 / MIB:.1f} MiB ({growth / MIB:+.1f}), descriptors {fds0} -> {fds1}, children {len(spare0)} -> "
        f"{len(spare1)}"
    )
    assert spare1 == spare0, "exactly one child, the same warm template, no stray process"
    assert turns_left == set(), "every forked turn was reaped"
    assert fds1 == fds0, "the server's descriptor count is unchanged"
    assert growth <= RSS_GROWTH_LIMIT, f"server RSS grew by {growth / MIB:.1f} MiB"
    assert await await_until(lambda: workers_for(sealed_demo) == [], timeout_s=30)
    assert children() == before and open_fds() == before_fds, "the client side leaked nothing either"
    assert changed_paths(sources, source_digest(sealed_demo)) == []
