"""A shared index database that goes away mid-session: a typed ``index_unavailable``, then service again.

The server runs over real stdio on a real PostgreSQL (the session's bundled server), in a database of its
own that the test closes to connections and reopens: the server's connection is cut and every reconnect
is refused, which is what a client sees when the team's database stops.
"""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

pytestmark = pytest.mark.anyio

SYNAPSE = Path(sys.executable).parent / "synapse"


class Database:
    """One database on the session's server, which the test can close to every client and reopen."""

    def __init__(self, admin_dsn: str) -> None:
        import psycopg

        self.name = f"outage_{uuid.uuid4().hex[:10]}"
        self._admin = psycopg.connect(admin_dsn, autocommit=True)
        self._admin.execute(f'CREATE DATABASE "{self.name}"')
        self.dsn = admin_dsn.replace("/postgres?", f"/{self.name}?", 1)
        assert self.dsn != admin_dsn

    def stop_serving(self) -> None:
        self._admin.execute(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS false')
        self._admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (self.name,),
        )

    def serve_again(self) -> None:
        self._admin.execute(f'ALTER DATABASE "{self.name}" ALLOW_CONNECTIONS true')

    def drop(self) -> None:
        self._admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self._admin.close()


@pytest.fixture
def database(postgres_dsn: str) -> Iterator[Database]:
    db = Database(postgres_dsn)
    try:
        yield db
    finally:
        db.drop()


def body(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


async def test_a_database_lost_mid_session_is_index_unavailable_and_the_next_call_after_it_returns_works(
    fresh_demo: Path, database: Database, server_log: IO[str], postgres_dsn: str
):
    socket_dir = postgres_dsn.split("host=", 1)[1]
    env = {**os.environ, "SYNAPSE_INDEX_DSN": database.dsn}
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(fresh_demo)], env=env)
    search = {"action": "search", "query": "volatility target", "limit": 3}
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        before = await session.call_tool("synapse", search)
        assert before.is_error is False and len(body(before)["hits"]) == 3, body(before)

        database.stop_serving()
        lost = await session.call_tool("synapse", search)
        navigate = await session.call_tool(
            "synapse", {"action": "navigate", "question": "What volatility target do the positions use?"}
        )
        for result in (lost, navigate):
            assert result.is_error is True, body(result)
            error = body(result)["error"]
            assert error["kind"] == "index_unavailable", error
            assert "postgres index" in error["message"]
            for secret in (database.name, socket_dir):
                assert secret not in error["message"]

        database.serve_again()
        after = await session.call_tool("synapse", search)
        assert after.is_error is False, body(after)
        assert [h["address"] for h in body(after)["hits"]] == [h["address"] for h in body(before)["hits"]]
    server_log.seek(0)
    told = server_log.read()
    assert "Traceback" not in told and database.name not in told and socket_dir not in told
