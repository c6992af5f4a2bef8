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
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.index.fusion import RRF_K, SEARCH_RRF_K
from synapse_server.models import ModelOptions, model_spec_from, resolve_model
from synapse_server.models.base import Model
from synapse_server.models.host import HostTranscript
from synapse_server.names import refuse_unknown_projects
from synapse_server.navigation.budgets import Budgets, resolve_budgets
from synapse_server.navigation.pending import PendingStep, StaleStep
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.substrate import SeedHit, Substrate, assemble
from synapse_server.navigation.surfaces import NavigateResult
from synapse_server.navigation.timing import Timings, maybe
from synapse_server.navigation.turn import run_host_turn, run_turn
from synapse_server.navigation.view import Graph, MissingGap, View
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.gc_pause import collector_paused
from synapse_server.workspace.stores import IndexBasis, Stores

if TYPE_CHECKING:
    from adapters.file_memo import Vouch
    from adapters.index import SyncStats
    from adapters.index.embedder import TextEncoder

__all__ = ["Preloaded", "TurnInputs", "host_turn", "navigate_turn", "preload", "prepare_turn"]


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
    preloaded: Preloaded | None = None,
    model: Model | None = None,
    env: Mapping[str, str] | None = None,
    timings: Timings | None = None,
    voi: str = "minimal",
    lean: bool = True,
) -> NavigateResult:
    """One turn; ``voi`` picks the advisory focus policy (``minimal`` in production, others for sweeps).

    ``lean=False`` assembles and renders the envelope the earlier way (every seed, round-robin by
    rank, duplicate bodies repeated); only the benchmark uses it, to measure both in one run. ``stores`` or
    ``preloaded`` (a warm template's) save the turn loading the workspace itself (see :func:`prepare_turn`).
    """
    inputs = prepare_turn(
        workspace_root,
        request,
        embedder=embedder,
        stores=stores,
        preloaded=preloaded,
        model=model,
        env=env,
        timings=timings,
        lean=lean,
    )
    return run_turn(
        request.question, inputs.view, inputs.substrate, inputs.model, inputs.budgets, voi=voi, timings=timings
    )


def host_turn(
    workspace_root: Path,
    request: NavigateRequest,
    host: HostTranscript,
    *,
    embedder: TextEncoder,
    preloaded: Preloaded | None = None,
    env: Mapping[str, str] | None = None,
    timings: Timings | None = None,
) -> NavigateResult | PendingStep | StaleStep:
    """One step of a turn the host model navigates: the loop replayed over ``host``'s replies, then a verdict
    or the next prompt (see :mod:`synapse_server.models.host`)."""
    inputs = prepare_turn(
        workspace_root, request, embedder=embedder, preloaded=preloaded, model=host.model(), env=env, timings=timings
    )
    return run_host_turn(request.question, inputs.view, inputs.substrate, inputs.model, inputs.budgets, timings=timings)


def prepare_turn(
    workspace_root: Path,
    request: NavigateRequest,
    *,
    embedder: TextEncoder,
    stores: Stores | None = None,
    preloaded: Preloaded | None = None,
    model: Model | None = None,
    env: Mapping[str, str] | None = None,
    timings: Timings | None = None,
    lean: bool = True,
) -> TurnInputs:
    """Load the workspace, check the scope, seed the view from the index and resolve the model, before any model work.

    ``stores`` already loaded (and current) are used as they are. ``preloaded`` is more: the stores, what the
    index sync of exactly those stores found (so the index is not diffed again while nothing was committed
    since), the loaded vectors and the node graph of the default scope; the caller vouches that it is current.
    """
    workspace = load_workspace(workspace_root)
    projects = _projects(workspace, request.projects)
    if preloaded is not None:
        stores = preloaded.stores
    stores = stores or Stores.load(workspace)
    if model is None:
        spec = model_spec_from(workspace.config.model, env if env is not None else os.environ, request.model)
        limit = workspace.config.navigate.timeout_s
        # Every call of the turn (repair, re-navigation, HTTP retries) shares the turn's own time budget.
        options = ModelOptions(timeout_s=limit, deadline=time.monotonic() + limit)
        model = resolve_model(spec, cwd=workspace.root, options=options)
    budgets = resolve_budgets(request.budgets(), workspace.config.navigate)
    graph = preloaded.graphs.get(tuple(projects)) if preloaded is not None else None
    if graph is None:
        graph = Graph.build(stores.scoped(projects))
    substrate = Substrate(graph, stores.resolvers, timings=timings)
    scoped = graph.nodes
    with maybe(timings, "assembly"):
        index = stores.open_index(embedder, synced=preloaded.synced if preloaded is not None else None)
        try:
            if preloaded is not None:
                index.adopt_state(preloaded.vectors)

            def search(question: str, limit: int, families: Sequence[str], *, as_search: bool = False) -> list[SeedHit]:
                scope = projects if "zk" in families else None
                k = SEARCH_RRF_K if as_search else RRF_K  # the first seeds follow what `synapse search` ranks
                hits = index.search(question, limit, families=list(families), projects=scope, fusion_k=k)
                return [SeedHit(h.address, h.score) for h in hits if h.address in scoped]

            failures = [MissingGap(f.address, f.detail) for f in stores.failures]
            view = assemble(request.question, substrate, search, budgets, failures, lean=lean)
        finally:
            index.close()
    return TurnInputs(view, substrate, model, budgets)


@dataclass(frozen=True)
class Preloaded:
    """A workspace loaded once by a long-lived process (the navigate template) for the turns it forks.

    ``synced`` is what the index sync of exactly these stores found, ``vectors`` the index's loaded read
    state (``HybridIndex.warm_state``), ``graphs`` the node graph per project scope (the default scope's).
    Every part is read-only once built; a forked turn gets a copy of the memory, and nothing flows back.
    """

    stores: Stores
    synced: SyncStats | None
    vectors: object | None
    graphs: Mapping[tuple[str, ...], Graph]


def preload(
    workspace: Workspace,
    embedder: TextEncoder,
    *,
    earlier: Preloaded | None = None,
    changed: frozenset[str] = frozenset(),
    vouch: Vouch | None = None,
) -> Preloaded:
    """Load the stores, sync the index and keep what a turn would rebuild; no index handle stays open.

    With ``earlier`` (the previous preload) only the files a ``changed`` input holds that moved are read
    again (:meth:`Stores.reload`), only the documents that differ are written to the index, the vectors are
    patched rather than read again, and the graph re-indexes only the nodes that changed: a reload after
    one edit costs about what that edit touched.
    """
    projects = _projects(workspace, None)
    with collector_paused():
        if earlier is None:
            stores, basis, graph = Stores.load(workspace), None, None
        else:
            stores = earlier.stores.reload(workspace, changed, vouch)
            basis = IndexBasis(earlier.stores.index_docs, earlier.synced, earlier.vectors)
            graph = earlier.graphs.get(tuple(projects))
    # A full sync may embed for minutes (a cold build): the collector runs then; an advance is short.
    with collector_paused() if basis is not None else nullcontext():
        index = stores.open_index(embedder, earlier=basis)
        try:
            synced, vectors = index.last_sync, index.warm_state()
        finally:
            index.close()
    with collector_paused():
        built = scoped_graph(stores, projects, graph)
    return Preloaded(stores, synced, vectors, {tuple(projects): built})


def scoped_graph(stores: Stores, projects: list[str], earlier: Graph | None = None) -> Graph:
    """The node graph of ``stores`` in ``projects``'s scope; from ``earlier`` (the same scope's graph of the
    load these stores were reloaded from) only the nodes that changed are indexed again."""
    if earlier is None:
        return Graph.build(stores.scoped(projects))
    if stores.moved is not None:  # every address kept its place: swap the moved nodes in
        return Graph.swapped(earlier, stores.nodes, stores.moved)
    return Graph.updated(earlier, stores.scoped(projects))


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
