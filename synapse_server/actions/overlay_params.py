"""What the overlay actions (build, connections, matrix, synthesize, debate, frame) share at the tool boundary.

The lens library takes lenient parameters (the CLI's ``-1`` means "default");
the tool is stricter: every value is typed, bounded and checked before any
store or model work, and a project list names only projects this workspace
has, as ``search`` does, so a typo is an error rather than an empty answer.
Each action then runs its library call on a worker thread holding the shared
store lock (the index is one SQLite connection).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from typing import Literal, TypeVar

import anyio
from pydantic import Field, field_validator

from synapse_server.actions.base import StrictParams
from synapse_server.actions.deps import Deps
from synapse_server.names import check_project_names, refuse_unknown_projects
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

__all__ = ["MAX_PROJECTS", "Kind", "ScopedParams", "check_known_projects", "locked"]

T = TypeVar("T")
Kind = Literal["generic", "claim"]
MAX_PROJECTS = 64


class ScopedParams(StrictParams):
    """Parameters with a zettelkasten project scope, with the same meaning as search's."""

    projects: list[str] | None = Field(
        None,
        max_length=MAX_PROJECTS,
        description="zk projects; omitted = config scope, [] = memory only",
    )

    @field_validator("projects")
    @classmethod
    def _projects_are_names(cls, value: list[str] | None) -> list[str] | None:
        return check_project_names(value)


def check_known_projects(workspace: Workspace, stores: Stores, projects: list[str] | None) -> None:
    """Refuse a project this workspace does not have (local folders and loaded, federated ones)."""
    if not projects:
        return
    known = set(workspace.local_projects()) | {a.split(":", 2)[1] for a in stores.nodes if a.startswith("zk:")}
    refuse_unknown_projects(projects, known)


async def locked(deps: Deps, work: Callable[[Workspace, Stores], T], *, index: bool = False) -> T:
    """Run ``work(workspace, stores)`` on a worker thread under the store lock, with the stores as they are now;
    ``index=True`` for work that uses ``deps.index()``, which takes the index lock first (see ``Deps.index``)."""

    def run() -> T:
        with deps.index_lock if index else nullcontext(), deps.lock:
            return work(deps.workspace(), deps.stores())

    return await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
