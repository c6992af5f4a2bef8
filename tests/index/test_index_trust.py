"""A committed config cannot send the workspace to a database on its own, nor share another repository's rows.

``index.dsn`` in ``.synapse/config.yaml`` comes with a cloned repository, so without the user's opt-in (the
one a workspace model needs) no server dials it; ``index.workspace`` is a label bound to the workspace folder,
so two repositories naming the same label keep their own rows.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from adapters.index.settings import DSN_ENV
from synapse_server.errors import ConfigError
from synapse_server.models.spec import TRUST_ENV
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import index_settings, open_workspace_index
from tests.support.index_corpus import WideHashEncoder, generated_docs

pytestmark = pytest.mark.anyio

SYNAPSE = Path(sys.executable).parent / "synapse"
SECRET = "s3cr3t-clone-pw"


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A port on 127.0.0.1 standing in for the host a hostile config names: it records who dials it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock


def hostile_demo(tmp_path: Path, port: int) -> Path:
    root = make_demo(tmp_path / "demo")
    config = root / ".synapse" / "config.yaml"
    dsn = f"postgresql://kb:{SECRET}@127.0.0.1:{port}/kb"
    config.write_text(
        config.read_text(encoding="utf-8") + f"index: {{backend: postgres, dsn: '{dsn}'}}\n", encoding="utf-8"
    )
    return root


def user_env(**extra: str) -> dict[str, str]:
    """The user's environment with no index DSN and no trust of their own, plus ``extra``."""
    return {**{k: v for k, v in os.environ.items() if k not in (DSN_ENV, TRUST_ENV)}, **extra}


def body(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


def dialled(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


async def test_a_dsn_only_the_workspace_config_names_is_never_dialled_and_search_answers_config_error(
    tmp_path: Path, listener: socket.socket, server_log: IO[str]
) -> None:
    root = hostile_demo(tmp_path, listener.getsockname()[1])
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(root)], env=user_env())
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        refused = await session.call_tool("synapse", {"action": "search", "query": "volatility target"})
        assert refused.is_error is True, body(refused)
        error = body(refused)["error"]
        assert error["kind"] == "config_error" and "index.dsn" in error["message"], error
        assert TRUST_ENV in error["message"] and SECRET not in error["message"]
        read_one = await session.call_tool("synapse", {"action": "get", "id": "mem:tree:decisions"})
        assert body(read_one).get("error", {}).get("kind") != "config_error", body(read_one)
    assert not dialled(listener)
    server_log.seek(0)
    assert SECRET not in server_log.read()


async def test_with_the_users_opt_in_the_workspace_configs_dsn_is_dialled(
    tmp_path: Path, listener: socket.socket, server_log: IO[str]
) -> None:
    root = hostile_demo(tmp_path, listener.getsockname()[1])
    env = user_env(**{TRUST_ENV: "1"})
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(root)], env=env)
    listener.settimeout(60)
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        outcome: list[CallToolResult] = []

        async def search() -> None:
            outcome.append(await session.call_tool("synapse", {"action": "search", "query": "volatility target"}))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(search)
            conn, _ = await anyio.to_thread.run_sync(listener.accept)  # the trusted DSN is dialled
            conn.close()  # and then fails: what a dead host gives
    [result] = outcome
    assert result.is_error is True and body(result)["error"]["kind"] == "index_unavailable", body(result)


def test_two_repositories_naming_the_same_index_workspace_keep_their_own_rows(
    tmp_path: Path, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DSN_ENV, postgres_dsn)
    roots = []
    for name in ("ours", "theirs"):
        root = tmp_path / name
        (root / ".synapse").mkdir(parents=True)
        (root / ".synapse" / "config.yaml").write_text("index: {workspace: team-kb}\n", encoding="utf-8")
        roots.append(root)
    ours, theirs = (load_workspace(r) for r in roots)
    assert index_settings(ours).workspace != index_settings(theirs).workspace
    with open_workspace_index(ours, WideHashEncoder()) as mine:
        mine.sync(generated_docs(5, salt="ours"))
    with open_workspace_index(theirs, WideHashEncoder()) as other:
        other.sync(generated_docs(7, salt="theirs"))
    with open_workspace_index(ours, WideHashEncoder()) as mine:
        assert len(mine) == 5
        assert mine.sync(generated_docs(5, salt="ours")).reembedded == 0


def test_open_refuses_an_untrusted_config_dsn_naming_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DSN_ENV, raising=False)
    monkeypatch.delenv(TRUST_ENV, raising=False)
    (tmp_path / ".synapse").mkdir()
    (tmp_path / ".synapse" / "config.yaml").write_text(
        f"index: {{backend: postgres, dsn: 'postgresql://kb:{SECRET}@127.0.0.1:9/kb'}}\n", encoding="utf-8"
    )
    workspace = load_workspace(tmp_path)
    assert "NOT trusted" in index_settings(workspace).describe()
    with pytest.raises(ConfigError) as refused:
        open_workspace_index(workspace, WideHashEncoder())
    assert refused.value.detail["key"] == "index.dsn" and SECRET not in refused.value.message
