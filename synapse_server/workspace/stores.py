"""Every store of a workspace loaded once: nodes by address, diagnostics, resolvers, the index.

The stores always hold every local and federated zettelkasten project; a
call's project scope is a filter applied on top (``[]`` = memory only), so two
calls with different scopes share one index and one cache instead of
rebuilding each other's. An adapter that raises becomes a :class:`SourceFailure`
that navigation shows as a gap, never a failed call.

After an edit, :meth:`Stores.reload` reads again only the stores whose folders
changed and merges them with the others exactly as a full load would.
"""

from __future__ import annotations

import bisect
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.base import Diagnostic, Family, Node
from adapters.resolvers import Resolvers, feeds_resolvers, renewed_resolvers, workspace_resolvers
from synapse_server.errors import ConfigError, IndexUnavailable
from synapse_server.workspace.config import CONFIG_RELPATH, Workspace
from synapse_server.workspace.freshness import CONFIG_PART, GIT_PART
from synapse_server.workspace.loading import FAMILIES, Reuse, StoreLoad, load_each
from synapse_server.workspace.sources import collisions

if TYPE_CHECKING:
    from adapters.file_memo import Vouch
    from adapters.index import HybridIndex, IndexDoc, SyncStats
    from adapters.index.embedder import TextEncoder
    from adapters.index.settings import IndexSettings

_ADDRESS = attrgetter("address")
_UNLOADABLE = frozenset({"path-escape", "unreadable"})
"""Error diagnostics that, when a store yields no node at all, mean the store itself could not be read."""
STORE_OF_FAMILY: Mapping[str, str] = {"memory": "mem", "zk": "zk", "code": "repo", "data": "data"}


def make_embedder(workspace: Workspace, *, check: bool = False) -> TextEncoder:
    """The encoder ``embedding_model`` names: lazy, so creating it costs nothing until the first encode.

    A value that names nothing this install can run (a missing folder, a folder that holds no model, the
    torch encoder without the torch extra) is a :class:`ConfigError` naming the key, raised here - when a
    server starts or a command begins - rather than an internal error on every search. ``check`` also loads a
    configured ONNX folder (cheap, no torch); any configured model that fails to load later is a config error too.
    """
    from adapters.index.embedder import EncoderSpecError, OnnxEmbedder, encoder_for

    spec = workspace.config.embedding_model

    def config_error(reason: str) -> ConfigError:
        return ConfigError(
            f"{CONFIG_RELPATH}: embedding_model: {reason}", key="embedding_model", file=str(CONFIG_RELPATH)
        )

    try:
        encoder = encoder_for(spec, workspace.root)
    except EncoderSpecError as exc:
        raise config_error(str(exc)) from None
    if spec is not None:
        encoder.load_failure = lambda reason: config_error(f"{spec!r}: {reason}")
        if check and isinstance(encoder, OnnxEmbedder):
            encoder.load()  # a configured ONNX folder loads in well under a second: prove it works at start
    return encoder


def index_settings(workspace: Workspace, env: Mapping[str, str] | None = None) -> IndexSettings:
    """The index backend: ``SYNAPSE_INDEX_DSN`` (PostgreSQL) wins over ``index:`` in the config.

    The config is committed content, so its ``index.dsn`` alone is not trusted (a cloned repository would
    send the password and every text to a host it names): it needs the opt-in a workspace model needs. The
    key is a label (``index.workspace``, else the code name) plus a digest of the workspace folder, so two
    clones, or two repositories naming the same label, keep their own rows while sharing the vector cache.
    """
    from adapters.index.settings import DSN_ENV, IndexSettings
    from synapse_server.models.spec import trusts_workspace

    env = os.environ if env is None else env
    config = workspace.config.index
    from_env = env.get(DSN_ENV, "").strip()
    dsn = from_env or config.dsn
    backend = "postgres" if from_env else config.backend
    trusted = bool(from_env) or config.dsn is None or trusts_workspace(env)
    digest = hashlib.blake2b(os.fsencode(workspace.root), digest_size=4).hexdigest()
    key = f"{(config.workspace or workspace.code_name)[:48]}-{digest}"
    return IndexSettings(backend=backend, dsn=dsn, workspace=key, timeout_s=config.timeout_s, trusted=trusted)


def open_workspace_index(workspace: Workspace, embedder: TextEncoder, cache_dir: Path | None = None) -> HybridIndex:
    """Open the workspace's index on its configured backend; an unreachable database is a typed error, and a
    DSN only the workspace config names, without the user's opt-in, is a :class:`ConfigError` (never dialled)."""
    from adapters.index import HybridIndex
    from adapters.index.pg_errors import IndexUnavailable as BackendUnavailable
    from synapse_server.models.spec import TRUST_ENV

    settings = index_settings(workspace)
    if settings.backend == "postgres" and not settings.trusted:
        from adapters.index.settings import DSN_ENV

        raise ConfigError(
            f"{CONFIG_RELPATH}: index.dsn: a database named by the workspace config receives every store text and "
            f"query, so it needs your opt-in: set {DSN_ENV} yourself, or set {TRUST_ENV}=1 to trust this "
            "workspace's config",
            key="index.dsn",
            file=str(CONFIG_RELPATH),
        )
    try:
        return HybridIndex.open(cache_dir or workspace.cache_dir, embedder, settings=settings)
    except BackendUnavailable as exc:
        raise IndexUnavailable(exc.message) from None


@dataclass(frozen=True, slots=True)
class IndexBasis:
    """Where the index stood after the sync of an earlier load: its docs, what that sync found, and the
    index's in-memory read state then (``HybridIndex.warm_state``; None where it keeps none)."""

    docs: Sequence[IndexDoc]
    synced: SyncStats | None
    state: object | None


@dataclass(frozen=True, slots=True)
class SourceFailure:
    """An adapter that could not load at all; ``address`` is a wildcard for its store."""

    family: Family
    address: str
    detail: str


@dataclass(frozen=True)
class Stores:
    workspace: Workspace
    nodes: Mapping[str, Node]
    diagnostics: tuple[Diagnostic, ...]
    failures: tuple[SourceFailure, ...]
    resolvers: Resolvers
    loads: tuple[StoreLoad, ...] = ()
    """Each store as it loaded (what :meth:`reload` reuses)."""
    families: tuple[Family, ...] = FAMILIES
    collided: tuple[tuple[Diagnostic, ...], ...] = ()
    """Per load (aligned with :attr:`loads`), the ``duplicate-id`` errors its nodes met merging: kept so a
    reload that moved no address can rebuild :attr:`diagnostics` without checking every node again."""
    moved: frozenset[str] | None = None
    """After a :meth:`reload` that kept every address in its place: the addresses whose node is a new object
    (the only ones any derived structure must look at again). None after a load, or when addresses came,
    went or changed owner - then every consumer compares everything, as before."""

    @classmethod
    def load(cls, workspace: Workspace, families: Iterable[Family] = FAMILIES) -> Stores:
        return cls._merge(workspace, tuple(families), None)

    def reload(self, workspace: Workspace, changed: frozenset[str], vouch: Vouch | None = None) -> Stores:
        """The stores as :meth:`load` gives them now, reading again only those fed by a ``changed`` input.

        ``changed`` holds :attr:`Freshness.parts <synapse_server.workspace.freshness.Freshness.parts>` keys
        that moved since this load's fingerprint (:func:`~synapse_server.workspace.freshness.changed_parts`);
        ``vouch`` (:attr:`Freshness.vouch <synapse_server.workspace.freshness.Freshness.vouch>`), where given,
        names the files no event touched since, whose earlier parses are then reused without a stat.
        """
        previous = {load.label: load for load in self.loads}
        reuse = Reuse(previous, changed, vouch)
        loads = load_each(workspace, self.families, reuse=reuse)
        stores = self._patched(workspace, loads, changed)
        if stores is None:
            stores = self._merge(workspace, self.families, reuse, loads)
        if "index_docs" in self.__dict__:  # the flattened docs of nodes that did not change are kept too
            object.__setattr__(stores, "_earlier_docs", (self.nodes, self.index_docs))
        return stores

    def _patched(self, workspace: Workspace, loads: list[StoreLoad], changed: frozenset[str]) -> Stores | None:
        """This load with the node objects ``loads`` replaced, where that is exactly what :meth:`_merge` gives.

        That holds when the same stores loaded without failure and each store read again gave the same
        addresses, files and lines in the same order (so no collision, order or failure can differ): then
        only the nodes that are new objects are swapped in, and :attr:`moved` names them. The resolvers'
        tables are kept unless a run or source record moved. Anything else is None (merge everything).
        """
        if CONFIG_PART in changed or len(loads) != len(self.loads) or len(self.collided) != len(loads):
            return None
        nodes = dict(self.nodes)
        moved: set[str] = set()
        for earlier, load in zip(self.loads, loads, strict=True):
            if load is earlier:
                continue
            if load.label != earlier.label or load.failure is not None or earlier.failure is not None:
                return None
            before, after = earlier.result.nodes, load.result.nodes
            if not after or len(before) != len(after):
                return None
            for old, new in zip(before, after, strict=True):
                if old is new:
                    continue
                if (old.address, old.path, old.line) != (new.address, new.path, new.line):
                    return None
                if nodes.get(new.address) is old:  # this store owns the address (the first store wins)
                    nodes[new.address] = new
                    moved.add(new.address)
        diagnostics = [
            d for load, own in zip(loads, self.collided, strict=True) for d in (*load.result.diagnostics, *own)
        ]
        resolvers = self._resolvers_for(workspace, nodes, moved, changed)
        return replace(
            self,
            workspace=workspace,
            nodes=nodes,
            diagnostics=tuple(diagnostics),
            resolvers=resolvers,
            loads=tuple(loads),
            moved=frozenset(moved),
        )

    def _resolvers_for(
        self, workspace: Workspace, nodes: Mapping[str, Node], moved: set[str], changed: frozenset[str]
    ) -> Resolvers:
        """Fresh resolvers (their caches start empty) over the earlier tables while no run or source moved."""
        repo = workspace.code_dir if (workspace.code_dir / ".git").exists() else None
        fed = any(feeds_resolvers(self.nodes[a]) or feeds_resolvers(nodes[a]) for a in moved)  # before or after
        if GIT_PART in changed or fed:
            return workspace_resolvers(workspace.root, repo, nodes.values())
        return renewed_resolvers(self.resolvers, workspace.root, repo)

    @classmethod
    def _merge(
        cls,
        workspace: Workspace,
        families: tuple[Family, ...],
        reuse: Reuse | None,
        loads: list[StoreLoad] | None = None,
    ) -> Stores:
        nodes: dict[str, Node] = {}
        diagnostics: list[Diagnostic] = []
        failures: list[SourceFailure] = []
        collided: list[tuple[Diagnostic, ...]] = []
        owners: dict[str, str] = {}  # address -> the file that gave it first, across the stores merged so far
        if loads is None:
            loads = load_each(workspace, families, reuse=reuse)
        for load in loads:
            family, result = load.family, load.result
            if load.failure is not None:
                detail = f"{family} store failed to load: {load.failure.error}"
                failures.append(SourceFailure(family, load.wildcard, detail))
                collided.append(())
                continue
            diagnostics.extend(result.diagnostics)
            refused = [d for d in result.diagnostics if d.severity == "error" and d.code in _UNLOADABLE]
            if not result.nodes and refused:  # e.g. the store folder is a symlink loop or leaves the workspace
                failures.append(
                    SourceFailure(family, load.wildcard, f"{family} store failed to load: {refused[0].code}")
                )
            collided.append(tuple(collisions([(family, result.nodes)], owners)))
            diagnostics.extend(collided[-1])
            for node in result.nodes:
                nodes.setdefault(node.address, node)
        ordered = {a: nodes[a] for a in sorted(nodes)}
        repo = workspace.code_dir if (workspace.code_dir / ".git").exists() else None
        resolvers = workspace_resolvers(workspace.root, repo, ordered.values())
        return cls(
            workspace, ordered, tuple(diagnostics), tuple(failures), resolvers, tuple(loads), families, tuple(collided)
        )

    def in_scope(self, node: Node, projects: list[str]) -> bool:
        """Memory, code and data are always in scope; a zk node only if its project is scoped."""
        if node.family != "zk":
            return True
        return node.address.split(":", 2)[1] in projects

    def scoped(self, projects: list[str]) -> dict[str, Node]:
        """The nodes :meth:`in_scope` keeps (inlined: a reload at 100k nodes calls it for every node)."""
        wanted = frozenset(projects)
        return {a: n for a, n in self.nodes.items() if n.family != "zk" or a.split(":", 2)[1] in wanted}

    @cached_property
    def index_docs(self) -> tuple[IndexDoc, ...]:
        """Every node as the index sees it; built once per load (a forked turn inherits the template's)."""
        from adapters.index import IndexDoc

        earlier = self.__dict__.pop("_earlier_docs", None)
        if earlier is None:
            return tuple(IndexDoc.from_node(n) for n in self.nodes.values())
        nodes, docs = earlier
        if self.moved is not None and len(docs) == len(self.nodes):  # every address in its place: patch those
            patched, written = list(docs), {}
            for address in self.moved:
                at = bisect.bisect_left(docs, address, key=_ADDRESS)  # nodes, and so docs, are in address order
                if at == len(docs) or docs[at].address != address:
                    break
                doc = patched[at] = IndexDoc.from_node(self.nodes[address])
                if doc != docs[at]:
                    written[address] = doc
            else:
                self.__dict__["_advanced_from"] = (docs, written)  # what open_index may write without a diff
                return tuple(patched)
        kept = {doc.address: doc for node, doc in zip(nodes.values(), docs, strict=True)}
        return tuple(kept[a] if nodes.get(a) is n else IndexDoc.from_node(n) for a, n in self.nodes.items())

    def open_index(
        self,
        embedder: TextEncoder,
        cache_dir: Path | None = None,
        *,
        synced: SyncStats | None = None,
        earlier: IndexBasis | None = None,
    ) -> HybridIndex:
        """Open the derived index under the cache dir and bring it up to date (content-hash keyed).

        ``synced`` is what an earlier sync of this same load found (``HybridIndex.last_sync``): while the
        index has not moved since, the diff over every doc is skipped (:meth:`HybridIndex.resume`).
        ``earlier`` is where the index stood for the load this one was reloaded from: only the docs that
        differ are written, and its vectors are patched, not read again (:meth:`HybridIndex.advance`).
        """
        from adapters.index.pg_errors import IndexUnavailable as BackendUnavailable

        index = open_workspace_index(self.workspace, embedder, cache_dir)
        try:
            if earlier is not None:
                docs = self.index_docs
                advanced = self.__dict__.get("_advanced_from")
                written = advanced[1] if advanced is not None and advanced[0] is earlier.docs else None
                index.advance(docs, earlier.docs, earlier.synced, earlier.state, written=written)
            else:
                index.resume(self.index_docs, synced)
        except BackendUnavailable as exc:
            index.close()
            raise IndexUnavailable(exc.message) from None
        return index
