"""Where configured paths may point: checks that need the file system, run once when a workspace loads.

The config model itself is pure (``synapse_server.workspace.config``); these checks look
at the disk. This module sits below the config: it holds the config's path and reads a
workspace through :class:`PlacedWorkspace`, so the config imports it and not the other way. A federated root must be another project's zettelkasten, so a
read can never walk the whole file system; the disposable index cache must lie
outside every store, so an index write can never land in source content.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from synapse_server.errors import ConfigError

__all__ = ["CONFIG_RELPATH", "PlacedWorkspace", "check_placement"]

CONFIG_RELPATH = Path(".synapse") / "config.yaml"
"""Where a workspace's config lives, relative to its root."""


class _PlacedConfig(Protocol):
    @property
    def federation(self) -> Mapping[str, str]: ...

    @property
    def cache(self) -> str | None: ...


class PlacedWorkspace(Protocol):
    """What the placement checks read of a loaded workspace (``workspace.config.Workspace`` is one)."""

    @property
    def root(self) -> Path: ...

    @property
    def config(self) -> _PlacedConfig: ...

    @property
    def memory_dir(self) -> Path: ...

    @property
    def zettelkasten_dir(self) -> Path: ...

    @property
    def runs_dir(self) -> Path: ...

    @property
    def cache_dir(self) -> Path: ...

    @property
    def federation_dirs(self) -> dict[str, Path]: ...


_PROJECT_MARKERS = (".git", ".synapse", ".memory", ".zettelkasten")
_NOT_CACHE = (".git", ".synapse")
"""Folders the cache may never be put in: the repository's own data and the committed overlay."""


def check_placement(workspace: PlacedWorkspace) -> None:
    """Refuse configured paths that would make a read walk the disk or a cache write land in a store."""
    for alias in workspace.config.federation:
        _check_federated_root(workspace, alias)
    _check_cache(workspace)


def _check_federated_root(workspace: PlacedWorkspace, alias: str) -> None:
    """A federated root is another project's zettelkasten: bounded, and never an ancestor of this workspace.

    An absent root is left to lint (``missing-federation``); an existing one
    must sit in a project folder (one holding ``.git``, ``.synapse``,
    ``.memory`` or ``.zettelkasten``), so ``/`` or a home folder cannot make
    every call walk the whole file system.
    """
    root = workspace.federation_dirs[alias]
    key = f"federation.{alias}"
    if not root.is_dir():
        return
    problem = None
    if root == workspace.root or root in workspace.root.parents:
        problem = "contains this workspace"
    elif root.parent == root or not any((root.parent / marker).exists() for marker in _PROJECT_MARKERS):
        problem = (
            "is not a project's zettelkasten (its parent folder holds no .git, .synapse, .memory or .zettelkasten)"
        )
    if problem is not None:
        raw = workspace.config.federation[alias]
        raise ConfigError(f"{CONFIG_RELPATH}: {key}: root {raw!r} {problem}", key=key, file=str(CONFIG_RELPATH))


def _check_cache(workspace: PlacedWorkspace) -> None:
    """The index cache is disposable and rewritten freely, so it must lie outside every source store."""
    cache = _lenient(lambda: workspace.cache_dir)
    if cache is None:
        return  # outside the workspace: the cache property itself raises when it is used
    stores = {
        "memory": _lenient(lambda: workspace.memory_dir),
        "zettelkasten": _lenient(lambda: workspace.zettelkasten_dir),
        "runs": _lenient(lambda: workspace.runs_dir),
        **{f"federation.{alias}": path for alias, path in workspace.federation_dirs.items()},
        **{name: workspace.root / name for name in _NOT_CACHE},
    }
    problem = "is the workspace itself" if cache == workspace.root else None
    for name, store in stores.items():
        if store is None:
            continue
        if problem is None and (cache == store or store in cache.parents):
            problem = f"lies inside {name} ({_shown(store, workspace.root)})"
        elif problem is None and cache in store.parents and name not in _NOT_CACHE:
            problem = f"contains {name} ({_shown(store, workspace.root)})"
    if problem is not None:
        message = (
            f"{CONFIG_RELPATH}: cache {workspace.config.cache!r} {problem}; the cache must lie outside every store"
        )
        raise ConfigError(message, key="cache", file=str(CONFIG_RELPATH))


def _lenient(path_of: Callable[[], Path]) -> Path | None:
    """A configured store path, or None when it escapes the workspace (its property reports that on use)."""
    try:
        return path_of()
    except ConfigError:
        return None


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.name
