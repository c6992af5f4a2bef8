"""The I/O edge of a navigate turn: workspace, stores, index and model, assembled into values for the engine.

:func:`prepare_turn` does everything a turn needs from the outside world - the
config, the stores, the hybrid index for seeding, the model spec - and returns
:class:`TurnInputs`. :func:`navigate_turn` is the whole turn: it prepares the
inputs and runs the pure engine (:func:`synapse_server.navigation.turn.run_turn`)
over them. The worker, the CLI and the benchmarks call it; the engine itself
never reads a file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from synapse_server.config import Workspace, load_workspace
from synapse_server.models import ModelOptions, model_spec_from, resolve_model
from synapse_server.models.base import Model
from synapse_server.names import refuse_unknown_projects
from synapse_server.navigation.budgets import Budgets, resolve_budgets
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.substrate import SeedHit, Substrate, assemble
from synapse_server.navigation.surfaces import NavigateResult
from synapse_server.navigation.timing import Timings, maybe
from synapse_server.navigation.turn import run_turn
from synapse_server.navigation.view import MissingGap, View
from synapse_server.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

__all__ = ["TurnInputs", "navigate_turn", "prepare_turn"]


@dataclass(frozen=True, slots=True)
class TurnInputs:
    """What the engine needs for one turn, as values: the seeded view over its substrate, the model, the budgets."""

    view: View
    substrate: Substrate
    model: Model
    budgets: Budgets


def navigate_turn(
    workspace_root: Path,
    request: NavigateRequest,
    *,
    embedder: TextEncoder,
    stores: Stores | None = None,
    model: Model | None = None,
    env: Mapping[str, str] | None = None,
    timings: Timings | None = None,
    voi: str = "minimal",
    lean: bool = True,
) -> NavigateResult:
    """One turn; ``voi`` picks the advisory focus policy (``minimal`` in production, others for sweeps).

    ``lean=False`` assembles and renders the envelope the earlier way (every seed, round-robin by
    rank, duplicate bodies repeated); only the benchmark uses it, to measure both in one run.
    """
    inputs = prepare_turn(
        workspace_root, request, embedder=embedder, stores=stores, model=model, env=env, timings=timings, lean=lean
    )
    return run_turn(
        request.question, inputs.view, inputs.substrate, inputs.model, inputs.budgets, voi=voi, timings=timings
    )


def prepare_turn(
    workspace_root: Path,
    request: NavigateRequest,
    *,
    embedder: TextEncoder,
    stores: Stores | None = None,
    model: Model | None = None,
    env: Mapping[str, str] | None = None,
    timings: Timings | None = None,
    lean: bool = True,
) -> TurnInputs:
    """Load the workspace, check the scope, seed the view from the index and resolve the model, before any model work."""
    workspace = load_workspace(workspace_root)
    projects = _projects(workspace, request.projects)
    stores = stores or Stores.load(workspace)
    if model is None:
        spec = model_spec_from(workspace.config.model, env if env is not None else os.environ, request.model)
        limit = workspace.config.navigate.timeout_s
        # Every call of the turn (repair, re-navigation, HTTP retries) shares the turn's own time budget.
        options = ModelOptions(timeout_s=limit, deadline=time.monotonic() + limit)
        model = resolve_model(spec, cwd=workspace.root, options=options)
    budgets = resolve_budgets(request.budgets(), workspace.config.navigate)
    scoped = stores.scoped(projects)
    substrate = Substrate.build(scoped, stores.resolvers, timings)
    with maybe(timings, "assembly"):
        index = stores.open_index(embedder)
        try:

            def search(question: str, limit: int, family: str) -> list[SeedHit]:
                hits = index.search(question, limit, families=[family], projects=projects if family == "zk" else None)
                return [SeedHit(h.address, h.score) for h in hits if h.address in scoped]

            failures = [MissingGap(f.address, f.detail) for f in stores.failures]
            view = assemble(request.question, substrate, search, budgets, failures, lean=lean)
        finally:
            index.close()
    return TurnInputs(view, substrate, model, budgets)


def _projects(workspace: Workspace, requested: list[str] | None) -> list[str]:
    projects = workspace.scoped_projects(requested)
    known = set(workspace.local_projects()) | {
        f"{alias}.{p.name}"
        for alias, root in workspace.federation_dirs.items()
        if root.is_dir()
        for p in root.iterdir()
        if p.is_dir()
    }
    refuse_unknown_projects(projects, known)
    return projects
