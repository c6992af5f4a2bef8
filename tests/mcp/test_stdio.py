"""The installed ``synapse serve`` driven over real stdio by the SDK's client, and the serve command's checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from tests.support.procs import wait_until, workers_for

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]

SYNAPSE = Path(sys.executable).parent / "synapse"
QUESTION = "What annualised volatility target do the momentum positions use?"


def structured(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


async def test_the_installed_server_serves_search_get_and_navigate_over_stdio(demo_root: Path, server_log: IO[str]):
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(demo_root)], env={**os.environ})
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert [tool.name for tool in tools] == ["synapse"]
        search = await session.call_tool("synapse", {"action": "search", "query": "volatility target", "limit": 3})
        assert search.is_error is False and len(structured(search)["hits"]) == 3
        get = await session.call_tool("synapse", {"action": "get", "id": "deci-c3d4e5f6"})
        assert structured(get)["address"] == "mem:tree:deci-c3d4e5f6"
        navigate = await session.call_tool("synapse", {"action": "navigate", "question": QUESTION})
        body = structured(navigate)
        assert navigate.is_error is False, body
        assert body["verdict"] == "answer" and body["status"] == "grounded"
        assert body["model"]["provider"] == "extractive"
        assert "10% annualised volatility target" in body["answer_surface"]["text"]
        bad = await session.call_tool("synapse", {"action": "search", "query": "x", "limit": 500})
        assert bad.is_error is True and structured(bad)["error"]["parameter"] == "limit"
    assert wait_until(lambda: workers_for(demo_root) == [], timeout_s=15), "the server took its workers down"


def test_serve_check_reports_workspace_stores_model_and_index(demo_root: Path, workspace_backend: str):
    done = subprocess.run(
        [str(SYNAPSE), "serve", "--root", str(demo_root), "--check", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["workspace"] == str(demo_root) and report["config"] == ".synapse/config.yaml"
    assert report["stores"]["nodes"] == {"memory": 30, "zk": 45, "code": 27, "data": 5}
    assert report["stores"]["projects"] == ["research", "execution"]
    assert report["model"] == {"spec": "extractive", "source": "config", "trusted": True}
    if workspace_backend == "postgres":
        assert report["index"]["cache"].startswith("postgres (workspace ")
    else:
        assert report["index"]["cache"] == ".angelo/index-default.sqlite3"
    assert report["write_free"] is False


def test_serve_check_honours_write_free_and_a_model_override(demo_root: Path):
    done = subprocess.run(
        [str(SYNAPSE), "serve", "--root", str(demo_root), "--check", "--write-free", "--model", "script:r.json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "write-free: yes" in done.stdout and "model: script:r.json (from --model, trusted)" in done.stdout


@pytest.mark.parametrize(
    ("args", "kind"),
    [(["--root", "/nonexistent/synapse-workspace"], "workspace_error"), (["--model", "bogus:x"], "model_spec_invalid")],
)
def test_serve_refuses_a_bad_root_or_model_before_starting_with_exit_2(demo_root: Path, args: list[str], kind: str):
    argv = [str(SYNAPSE), "serve", "--json", *(args if args[0] == "--root" else ["--root", str(demo_root), *args])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert json.loads(done.stderr.strip().splitlines()[-1])["error"]["kind"] == kind
