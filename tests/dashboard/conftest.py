"""Fixtures for the dashboard tests: the demo with both overlays built, and a logged-in client over it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient

from adapters.index import Embedder
from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.dashboard import DashboardConfig, build_app
from synapse_server.mcp.dispatch import Dispatcher
from synapse_server.workspace.init import make_demo
from tests.support.browser import SYNAPSE
from tests.support.dashboard import BASE, TOKEN

Client = Callable[..., Any]


@pytest.fixture(scope="session")
def built_demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Path:
    """The demo workspace with its generic and claim overlays built (by the tool's own build action)."""
    root = make_demo(tmp_path_factory.mktemp("dashboard") / "demo")
    deps = Deps(ServerSettings(root=root, prespawn=False), embedder=embedder)
    dispatcher = Dispatcher(deps)
    try:
        for kind in ("generic", "claim"):
            outcome = anyio.run(dispatcher.call, {"action": "build", "kind": kind})
            assert not outcome.is_error, outcome.payload
    finally:
        deps.close()
    return root


@pytest.fixture
def demo(built_demo: Path, tmp_path: Path) -> Path:
    """A private copy, so history and write checks of one test never meet another's."""
    root = tmp_path / "demo"
    shutil.copytree(built_demo, root, symlinks=True)
    history = root / ".angelo" / "dashboard"
    shutil.rmtree(history, ignore_errors=True)
    return root


@pytest.fixture
def open_dashboard(embedder: Embedder) -> Callable[..., Any]:
    """``with open_dashboard(root, **config) as client``: a TestClient that already holds the token cookie."""

    @contextmanager
    def opened(root: Path, *, login: bool = True, **config: Any) -> Iterator[TestClient]:
        config.setdefault("prespawn", False)
        app = build_app(DashboardConfig(root=root, token=TOKEN, **config), embedder=embedder)
        with TestClient(app, base_url=BASE) as client:
            if login:
                assert client.get(f"/?token={TOKEN}").status_code == 200
            yield client

    return opened


@pytest.fixture
def dashboard_url(demo: Path) -> Iterator[str]:
    """The real ``synapse dashboard`` on a free port; yields the URL it printed (token included)."""
    process = subprocess.Popen(
        [str(SYNAPSE), "dashboard", "--root", str(demo), "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    drain: threading.Thread | None = None
    try:
        assert process.stderr is not None
        url = None
        for line in process.stderr:
            found = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
            if found:
                url = found.group(1)
            if "Application startup complete" in line:
                break
        assert url is not None, "the dashboard printed no URL"
        drain = threading.Thread(target=process.stderr.read, daemon=True)  # the access log must not fill the pipe
        drain.start()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        if drain is not None:
            drain.join(timeout=30)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture
def shots(tmp_path: Path) -> Iterator[list[Path]]:
    taken: list[Path] = []
    yield taken
    keep = os.environ.get("SYNAPSE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        for shot in taken:
            shutil.copy(shot, Path(keep) / shot.name)
