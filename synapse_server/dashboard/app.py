"""The Starlette app: routes, the write-free dispatcher behind them, and the guards in front of them.

Every page reads through the same :class:`Dispatcher` the MCP tool uses, over
:class:`Deps` started write-free, so the dashboard cannot write a source store
or the overlay, and navigate runs in the isolated worker pool.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.dashboard import pages
from synapse_server.dashboard.briefs import BriefCache
from synapse_server.dashboard.chat import ChatAgent
from synapse_server.dashboard.history import History
from synapse_server.dashboard.runs import Runs
from synapse_server.dashboard.security import SecurityHeaders, TokenGuard, form_token, new_token
from synapse_server.errors import ConfigError, SynapseError
from synapse_server.mcp.dispatch import Dispatcher
from synapse_server.models import model_spec_from, parse_model_spec
from synapse_server.models.spec import DEFAULT_SPEC
from synapse_server.workspace.config import load_workspace

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

log = logging.getLogger(__name__)

LOCAL_HOSTS = ("127.0.0.1", "localhost")
STATIC = Path(__file__).parent / "static"


@dataclass(frozen=True)
class DashboardConfig:
    """One dashboard: its workspace, the navigate model (``None`` = config), the chat model, its token."""

    root: Path
    model: str | None = None
    chat_model: str | None = None
    token: str = ""
    cookie: str = "synapse_dashboard"
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    prespawn: bool = True


def _navigable(root: Path, model: str | None) -> str | None:
    """The dashboard's navigate model: ``host`` (a config's choice for MCP hosts) has no host to answer here, so
    the dashboard navigates with the offline extractive model instead, as it does when nothing is configured."""
    try:
        spec = model_spec_from(load_workspace(root).config.model, os.environ, model)
    except SynapseError:  # the first call reports it
        return model
    return DEFAULT_SPEC if parse_model_spec(spec).provider == "host" else model


class Dashboard:
    """What the pages share: the dispatcher, the history, the running turns, the kept briefs and the chat."""

    def __init__(self, config: DashboardConfig, embedder: TextEncoder | None = None) -> None:
        settings = ServerSettings(
            root=config.root, write_free=True, model=_navigable(config.root, config.model), prespawn=config.prespawn
        )
        self.config = config
        self.deps = Deps(settings, embedder=embedder)
        self.dispatcher = Dispatcher(self.deps)
        workspace = self.deps.workspace()
        self.history = History(workspace.cache_dir)
        self.runs = Runs(self.dispatcher, self.history)
        self.briefs = BriefCache(self.deps, self.dispatcher)
        try:
            spec, refusal = config.chat_model or model_spec_from(workspace.config.model, os.environ, config.model), None
        except ConfigError as error:  # a config's model it may not run: the pages stay up, the model calls refuse
            spec, refusal = workspace.config.model or DEFAULT_SPEC, error.message
        self.chat = ChatAgent(spec, self.dispatcher, self.history, cwd=workspace.root, refusal=refusal)

    async def warm(self) -> None:
        """Load the embedding model and sync the index in the background, so the first search does not wait."""
        try:
            await anyio.to_thread.run_sync(self.deps.index)
        except Exception:  # a broken store shows on the page that needs it; warming only logs
            log.exception("could not warm the search index")

    async def call(self, **arguments: Any) -> dict[str, Any]:
        """One write-free tool call; its public JSON (an error payload carries ``error``)."""
        return (await self.dispatcher.call(arguments)).payload


def build_app(config: DashboardConfig, *, embedder: TextEncoder | None = None) -> Starlette:
    """The dashboard app for one workspace; an empty ``config.token`` means a fresh random one.

    ``embedder`` lets tests share one loaded model, as ``build_server`` does.
    """
    if not config.token:
        config = replace(config, token=new_token())
    dashboard = Dashboard(config, embedder)

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            await dashboard.deps.runner.start()
        except OSError:
            log.exception("could not pre-spawn a navigate worker; turns will start cold")
        try:
            async with anyio.create_task_group() as group:
                dashboard.runs.group = dashboard.chat.group = group
                group.start_soon(dashboard.warm)
                yield
                group.cancel_scope.cancel()
        finally:
            dashboard.runs.group = dashboard.chat.group = None
            await dashboard.deps.runner.aclose()
            dashboard.deps.close()

    routes = [
        Route("/", pages.ask_page, methods=["GET"]),
        Route("/ask", pages.ask_post, methods=["POST"]),
        Route("/runs/{run_id}", pages.run_page, methods=["GET"]),
        Route("/answers/{entry_id}", pages.answer_page, methods=["GET"]),
        Route("/history", pages.history_page, methods=["GET"]),
        Route("/matrix", pages.matrix_page, methods=["GET"]),
        Route("/matrix/cell", pages.cell_page, methods=["GET"]),
        Route("/matrix/cell", pages.cell_post, methods=["POST"]),
        Route("/search", pages.search_page, methods=["GET"]),
        Route("/note", pages.note_page, methods=["GET"]),
        Route("/chat", pages.chat_page, methods=["GET"]),
        Route("/chat", pages.chat_post, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=list(config.allowed_hosts)),
        Middleware(TokenGuard, token=config.token, cookie=config.cookie),
    ]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.dashboard = dashboard
    app.state.token = config.token
    app.state.form_token = form_token(config.token)
    return app
