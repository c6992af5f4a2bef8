"""The shared dependencies of every action: settings, workspace, stores, index, embedder, navigate runner.

One :class:`Deps` lives as long as its server. Everything heavy is loaded on
first use and cached, but a long-lived server (Claude Code keeps it for a whole
session) must not answer from a stale picture of the project, so each access
asks :class:`~synapse_server.workspace.freshness.Freshness` whether the store
files (names, sizes, mtimes, the config, the git HEAD) still match what was
loaded and reloads when they moved; a watch on the store folders keeps that
check to a few system calls however large the workspace. The embedding model
is loaded only by the first search: start-up never imports torch.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from synapse_server.actions.envelopes import EnvelopeShelf
from synapse_server.host_turns.token import server_secret
from synapse_server.isolation.runner import WorkerPool
from synapse_server.models.spec import DEFAULT_SPEC, SERVE_DEFAULT_SPEC
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.freshness import Freshness, changed_parts, fingerprint
from synapse_server.workspace.gc_pause import collector_paused
from synapse_server.workspace.stores import IndexBasis, Stores, make_embedder

if TYPE_CHECKING:
    from adapters.index import HybridIndex
    from adapters.index.embedder import TextEncoder

log = logging.getLogger(__name__)

__all__ = ["WRITE_FREE_ENV", "Deps", "ServerSettings", "fingerprint"]

WRITE_FREE_ENV = "SYNAPSE_WRITE_FREE"
_TRUE = frozenset({"1", "true", "yes", "on"})
_INJECTED = object()
"""Marks an encoder handed in by the caller (tests, benchmarks): kept whatever the config says."""


@dataclass(frozen=True)
class ServerSettings:
    """How a server was started. ``model`` overrides the navigate model spec (CLI ``--model``), never the caller.

    ``default_model`` is navigate's model when neither ``model``, ``SYNAPSE_MODEL`` nor the config names one:
    ``host`` under ``synapse serve`` (the MCP host's own model), ``extractive`` for the dashboard and tests.
    """

    root: Path
    write_free: bool = False
    model: str | None = None
    default_model: str = DEFAULT_SPEC
    prespawn: bool = True
    worker_env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_environment(
        cls, root: Path, *, write_free: bool = False, model: str | None = None, env: Mapping[str, str] | None = None
    ) -> ServerSettings:
        """Settings for ``synapse serve``: ``--write-free`` or ``SYNAPSE_WRITE_FREE=1`` turn write-free on."""
        env = os.environ if env is None else env
        flag = env.get(WRITE_FREE_ENV, "").strip().lower() in _TRUE
        return cls(root=Path(root), write_free=write_free or flag, model=model, default_model=SERVE_DEFAULT_SPEC)


@dataclass
class _Loaded:
    freshness: Freshness
    workspace: Workspace
    stores: Stores | None = None
    index: HybridIndex | None = None
    earlier: _Loaded | None = None
    """The load this one replaced, until its stores and index have served as the basis of this one's."""


class Deps:
    """Lazily loaded, fingerprint-refreshed state shared by the actions of one server."""

    def __init__(
        self,
        settings: ServerSettings,
        *,
        embedder: TextEncoder | None = None,
        embedder_spec: object = _INJECTED,
        watch: bool = True,
    ) -> None:
        """``embedder`` is used for every call (tests inject one), unless ``embedder_spec`` names the
        ``embedding_model`` it was built for: then a changed config still gets a new encoder."""
        self.settings = settings
        self._watch = watch
        self._embedder = embedder
        self._embedder_spec: object = embedder_spec if embedder is not None else None
        self.lock = threading.RLock()
        """Serialises the loaded workspace and stores: held briefly, never across index I/O."""
        self.index_lock = threading.RLock()
        """Serialises index use (the embedded index is one SQLite connection). Taken before ``lock`` when both are
        held, so a call waiting on a stalled database holds up only calls that need the index, never ``get``."""
        self._loaded: _Loaded | None = None
        self._retired: list[HybridIndex] = []
        """Indexes of replaced loads, closed by the next holder of ``index_lock`` (one may be in use now)."""
        self.envelopes = EnvelopeShelf()
        """Recent navigate envelopes, served as resources instead of riding in every result."""
        self.turn_secret = server_secret(self.worker_env())
        """Signs pending host turns; random per server unless SYNAPSE_TURN_SECRET names one."""
        self.runner = WorkerPool(Path(settings.root), env=self.worker_env(), prespawn=settings.prespawn)
        """navigate's workers: forked per turn from one warm template, at most ``navigate.max_concurrent`` at once."""

    def worker_env(self) -> dict[str, str]:
        """The environment a navigate worker (and a ``command:`` model bridge under it) runs with."""
        return {**os.environ, **self.settings.worker_env}

    @property
    def embedder(self) -> TextEncoder:
        """The encoder the config names; a changed ``embedding_model`` gives a new one (the index re-embeds)."""
        with self.lock:
            spec = self.workspace().config.embedding_model
            if self._embedder is None or (self._embedder_spec is not _INJECTED and self._embedder_spec != spec):
                self._embedder = make_embedder(self.workspace())
                self._embedder_spec = spec
            return self._embedder

    def workspace(self) -> Workspace:
        return self._current().workspace

    def stores(self) -> Stores:
        """The stores as their files are now; after an edit only the files that moved are read again."""
        with self.lock:
            loaded = self._current()
            if loaded.stores is None:
                earlier = loaded.earlier
                with collector_paused():
                    if earlier is not None and earlier.stores is not None:
                        changed = changed_parts(earlier.freshness.parts, loaded.freshness.parts)
                        loaded.stores = earlier.stores.reload(loaded.workspace, changed, loaded.freshness.vouch)
                    else:
                        loaded.stores = Stores.load(loaded.workspace)
            return loaded.stores

    def index(self) -> HybridIndex:
        """The hybrid index over every store, synced to the current store contents.

        Use it while holding ``index_lock`` (and, if also ``lock``, taking ``index_lock`` first): it is opened
        and synced under ``index_lock`` alone, so ``get`` and the other store readers never wait for that I/O.
        """
        with self.index_lock:
            with self.lock:
                stores = self.stores()
                loaded = self._current()
                embedder = self.embedder
                if loaded.index is not None:
                    return loaded.index
                earlier, loaded.earlier = loaded.earlier, None
            basis = _basis(earlier, stores)  # before the replaced index is closed: its state is the basis
            self._close_retired()
            with collector_paused() if basis is not None else nullcontext():  # a full sync may embed for minutes
                index = stores.open_index(embedder, earlier=basis)
            with self.lock:
                if self._loaded is loaded:
                    loaded.index = index
                else:
                    self._retired.append(index)  # the stores moved while it opened: serve this call, then close
            return index

    def write_free(self) -> bool:
        """Write-free when the server was started so or the workspace config says so."""
        return self.settings.write_free or self.workspace().config.write_free

    def close(self) -> None:
        """Close the index at shutdown; never waits on the lock (a call abandoned at exit may still hold it)."""
        if not self.lock.acquire(blocking=False):
            log.warning("an abandoned call still holds the store lock; leaving the index to process exit")
            return
        try:
            self._replace(None)
        finally:
            self.lock.release()
        if not self.index_lock.acquire(blocking=False):
            log.warning("an abandoned call still uses the index; leaving it to process exit")
            return
        try:
            self._close_retired()
        finally:
            self.index_lock.release()

    def _current(self) -> _Loaded:
        with self.lock:
            loaded = self._loaded
            if loaded is not None and loaded.freshness.current():
                return loaded
            if loaded is not None:
                log.info("store files or config changed; reloading the stores")
            workspace = load_workspace(Path(self.settings.root))
            # After a change the check that saw it is the new load's fingerprint (and keeps its watch).
            if loaded is not None:
                freshness = loaded.freshness.renewed(workspace)
            else:
                freshness = Freshness(workspace, watch=self._watch)
            fresh = _Loaded(freshness, workspace, earlier=loaded)
            if loaded is not None:
                loaded.earlier = None  # one load back is all a reload needs
            self._replace(fresh)
            return fresh

    def _replace(self, fresh: _Loaded | None) -> None:
        old, self._loaded = self._loaded, fresh
        if old is not None:
            if old.index is not None:
                self._retired.append(old.index)  # another thread may be searching it under index_lock
            old.freshness.close()

    def _close_retired(self) -> None:
        """Close the indexes of replaced loads; the caller holds ``index_lock``, so none is in use."""
        while self._retired:
            self._retired.pop().close()

    @property
    def freshness(self) -> Freshness:
        """The current load's freshness check (its ``rescans`` and ``watched`` say what checks cost)."""
        return self._current().freshness


def _basis(earlier: _Loaded | None, stores: Stores) -> IndexBasis | None:
    """Where the replaced load's index stood, for the new one to advance from; None to sync in full.

    Only when the new stores were reloaded from the replaced ones (their unchanged docs are the same objects)
    and that index synced: its last sync and its read state say what the store holds.
    """
    if earlier is None or earlier.stores is None or earlier.index is None or earlier.index.last_sync is None:
        return None
    if "index_docs" not in earlier.stores.__dict__:
        return None
    try:
        state = earlier.index.warm_state()
    except Exception as exc:  # a closed or failing handle: the new index syncs in full instead
        log.info("earlier index state unavailable (%s); syncing in full", exc)
        state = None
    return IndexBasis(earlier.stores.index_docs, earlier.index.last_sync, state)
