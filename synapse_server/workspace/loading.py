"""Every store and source of a workspace, each loaded once, a failure costing only its own store.

The server's :class:`~synapse_server.workspace.stores.Stores`, ``synapse lint``
and ``init --adopt``'s check all read a workspace through :func:`load_each`:
the native stores (memory tree, zettelkasten, runs), then each ``sources:``
entry in config order, then the code store, which leaves out the files the
sources read. An adapter that raises (a bug, or I/O it cannot survive) is one
:class:`StoreLoad` with a :class:`LoadFailure`; every other store still loads,
and lint reports the lost one instead of printing a traceback.

A process that reloads after an edit passes :class:`Reuse`: the stores of its
previous load and the inputs that changed since (folder paths, git HEAD, the
config; see :class:`~synapse_server.workspace.freshness.Freshness`). A store none
of whose inputs changed is that earlier :class:`StoreLoad`, not read again; an
adapter reads nothing but its inputs, so the result is what a full load gives.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from adapters.base import Family, LoadResult, Node
from adapters.code import CodeAdapter
from adapters.file_memo import FileMemo, Vouch
from adapters.memory import MemoryAdapter
from adapters.paths import display_path
from adapters.runs import RunsAdapter
from adapters.zettelkasten import ZettelkastenAdapter
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.freshness import CONFIG_PART, GIT_PART
from synapse_server.workspace.source_config import SourceConfig
from synapse_server.workspace.sources import SourceLoader, code_exclusions, source_loaders

__all__ = ["FAMILIES", "LoadFailure", "Reuse", "StoreLoad", "load_each", "load_guarded"]

log = logging.getLogger(__name__)

FAMILIES: tuple[Family, ...] = ("memory", "zk", "code", "data")
_DETAIL_CHARS = 160


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """Why a store could not load at all: the exception's type and its first line (workspace paths relative)."""

    error: str
    detail: str

    def describe(self) -> str:
        return f"{self.error}: {self.detail}" if self.detail else self.error


@dataclass(frozen=True, slots=True)
class StoreLoad:
    """One store or ``sources:`` entry as it loaded: what it is, where, and its result or its failure.

    ``kind`` is ``memory``, ``zettelkasten``, ``runs``, ``code`` or the source's
    kind; ``folder`` is workspace-relative; ``wildcard`` is the address a
    failure is reported under; ``source`` is the config entry of an adopted source.
    """

    kind: str
    family: Family
    folder: str
    wildcard: str
    result: LoadResult
    failure: LoadFailure | None = None
    source: SourceConfig | None = None
    memo: FileMemo | None = field(default=None, compare=False, repr=False)
    """The per-file parses this load made, for the next load of the same store (:class:`FileMemo`)."""

    @property
    def label(self) -> str:
        """How reports name it: ``notes vault``, ``code .``, ``memory .memory``."""
        return f"{self.kind} {self.folder}"


@dataclass(frozen=True, slots=True)
class Reuse:
    """An earlier load's stores (by :attr:`StoreLoad.label`) and the inputs that changed since it.

    ``changed`` holds keys of :attr:`Freshness.parts <synapse_server.workspace.freshness.Freshness.parts>`:
    store folder paths, :data:`GIT_PART`, :data:`CONFIG_PART`. A changed config reuses nothing (it may
    move, add or re-kind any store); a store that failed is always read again.
    """

    previous: Mapping[str, StoreLoad]
    changed: frozenset[str]
    vouch: Vouch | None = None
    """The files and folders the freshness check knows unchanged (their parses are reused without a stat)."""

    def memo(self, label: str) -> FileMemo:
        """A memo for reading ``label`` again that reuses the earlier load's parses of unchanged files.

        A changed config may move a store or rename its projects, which a file's parse depends on: then
        every file is parsed again.
        """
        store = None if CONFIG_PART in self.changed else self.previous.get(label)
        return FileMemo(None if store is None else store.memo, self.vouch)

    def get(self, label: str, inputs: Iterable[str]) -> StoreLoad | None:
        """The earlier load of ``label`` if none of ``inputs`` changed, else None (read it again)."""
        if CONFIG_PART in self.changed or not self.changed.isdisjoint(inputs):
            return None
        store = self.previous.get(label)
        return store if store is not None and store.failure is None else None


def load_each(
    workspace: Workspace, families: Iterable[Family] = FAMILIES, *, reuse: Reuse | None = None
) -> list[StoreLoad]:
    """Load every store of ``families``, in report order; never raises for one store's failure.

    Adopted sources of other families still run when the code store is wanted (it
    must leave their files out), but only the wanted ones are returned. With
    ``reuse``, a store whose inputs did not change is taken from the earlier load.
    """
    wanted = set(families)
    ws = workspace
    loads: list[StoreLoad] = []
    sources_read = False  # a source read again may read other files, which the code store then leaves out

    def guarded(
        kind: str,
        family: Family,
        folder: str,
        wildcard: str,
        load: Callable[[], LoadResult],
        source: SourceConfig | None = None,
        inputs: Iterable[Path | str] = (),
        reusable: bool = True,
        memo: FileMemo | None = None,
    ) -> StoreLoad:
        store = StoreLoad(kind, family, folder, wildcard, LoadResult(()), source=source, memo=memo)
        earlier = None if reuse is None or not reusable else reuse.get(store.label, [_key(i) for i in inputs])
        if earlier is not None and earlier.source == source:
            return earlier
        return load_guarded(store, load, ws.root)

    def shown(folder: Path) -> str:
        return display_path(folder, ws.root)

    def memo(kind: str, folder: Path) -> FileMemo:
        return FileMemo() if reuse is None else reuse.memo(f"{kind} {shown(folder)}")

    if "memory" in wanted:
        memory = MemoryAdapter(ws.memory_dir, ws.root, ws.code_name, memo("memory", ws.memory_dir))
        loads.append(
            guarded(
                "memory",
                "memory",
                shown(ws.memory_dir),
                "mem:tree:*",
                memory.load,
                None,
                [ws.memory_dir],
                memo=memory.memo,
            )
        )
    if "zk" in wanted:
        zk_memo = memo("zettelkasten", ws.zettelkasten_dir)
        zk = ZettelkastenAdapter(ws.zettelkasten_dir, None, ws.federation_dirs, ws.root, ws.code_name, zk_memo)
        zk_inputs = [ws.zettelkasten_dir, *ws.federation_dirs.values()]
        zk_load = guarded(
            "zettelkasten", "zk", shown(ws.zettelkasten_dir), "zk:all:*", zk.load, None, zk_inputs, memo=zk_memo
        )
        loads.append(zk_load)
    if "data" in wanted:
        runs = RunsAdapter(ws.runs_dir, ws.root, ws.code_dir if (ws.code_dir / ".git").exists() else None)
        loads.append(
            guarded("runs", "data", shown(ws.runs_dir), "data:runs:*", runs.load, None, [ws.runs_dir, GIT_PART])
        )
    read: list[tuple[SourceLoader, tuple[Node, ...]]] = []
    for source in source_loaders(ws):
        if source.family not in wanted and "code" not in wanted:
            continue
        load = guarded(
            source.source.kind,
            source.family,
            source.source.path,
            source.wildcard,
            source.load,
            source.source,
            [source.folder, GIT_PART],
        )
        sources_read = sources_read or reuse is None or reuse.previous.get(load.label) is not load
        if load.failure is None:
            read.append((source, load.result.nodes))
        if source.family in wanted:
            loads.append(load)
    if "code" in wanted:
        # The code store reads the commit at HEAD, less the files the sources read: it follows git and the sources.
        code_load, wildcard = _code_loader(ws, read), f"repo:{ws.code_name}:*"
        code = guarded("code", "code", shown(ws.code_dir), wildcard, code_load, None, [GIT_PART], not sources_read)
        loads.append(code)
    return loads


def _key(item: Path | str) -> str:
    """An input as :class:`Reuse` names it: a folder's path, or a part key as it is."""
    return os.fspath(item)


def load_guarded(store: StoreLoad, load: Callable[[], LoadResult], root: Path) -> StoreLoad:
    """``store`` with the result of ``load``, or with its failure when ``load`` raises: one store lost, not the call."""
    try:
        return replace(store, result=load())
    except Exception as exc:  # an adapter bug or I/O it cannot survive: this store is lost, the others load
        failure = _failure(exc, root)
        if isinstance(exc, OSError):  # a folder the user cannot read: the report says so, a traceback would not help
            log.warning("%s store %s failed to load: %s", store.kind, store.folder, failure.describe())
        else:
            log.exception("%s store %s failed to load", store.kind, store.folder)
        return replace(store, result=LoadResult(()), failure=failure)


def _failure(exc: Exception, root: Path) -> LoadFailure:
    """The exception as a :class:`LoadFailure` that names no machine path outside the workspace."""
    text = (str(exc).strip().splitlines() or [""])[0]
    for prefix in {str(root) + "/", str(root.resolve()) + "/"}:
        text = text.replace(prefix, "")
    if len(text) > _DETAIL_CHARS:
        text = text[: _DETAIL_CHARS - 1] + "…"
    return LoadFailure(type(exc).__name__, text)


def _code_loader(workspace: Workspace, read: list[tuple[SourceLoader, tuple[Node, ...]]]) -> Callable[[], LoadResult]:
    """The code store, built after the sources ran so their files are left out of it."""

    def load() -> LoadResult:
        exclusions = code_exclusions(workspace, read)
        return CodeAdapter(
            workspace.code_dir, workspace.code_name, exclusions=exclusions, boundary=workspace.root
        ).load()

    return load
