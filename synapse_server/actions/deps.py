"""The shared dependencies of every action: settings, workspace, stores, index, embedder, navigate runner.

One :class:`Deps` lives as long as its server. Everything heavy is loaded on
first use and cached, but a long-lived server (Claude Code keeps it for a whole
session) must not answer from a stale picture of the project, so each access
compares a cheap fingerprint of the store files (names, sizes, mtimes, the git
HEAD) with the one the cache was built from and reloads when it moved. The
embedding model is loaded only by the first search: start-up never imports torch.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from synapse_server.config import CONFIG_RELPATH, Workspace, load_workspace
from synapse_server.isolation.runner import WorkerPool
from synapse_server.stores import Stores, make_embedder

if TYPE_CHECKING:
    from adapters.index import HybridIndex
    from adapters.index.embedder import TextEncoder

log = logging.getLogger(__name__)

WRITE_FREE_ENV = "SYNAPSE_WRITE_FREE"
_TRUE = frozenset({"1", "true", "yes", "on"})
_INJECTED = object()
"""Marks an encoder handed in by the caller (tests, benchmarks): kept whatever the config says."""


@dataclass(frozen=True)
class ServerSettings:
    """How a server was started. ``model`` overrides the navigate model spec (CLI ``--model``), never the caller."""

    root: Path
    write_free: bool = False
    model: str | None = None
    prespawn: bool = True
    worker_env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_environment(
        cls, root: Path, *, write_free: bool = False, model: str | None = None, env: Mapping[str, str] | None = None
    ) -> ServerSettings:
        """Settings for ``synapse serve``: ``--write-free`` or ``SYNAPSE_WRITE_FREE=1`` turn write-free on."""
        env = os.environ if env is None else env
        flag = env.get(WRITE_FREE_ENV, "").strip().lower() in _TRUE
        return cls(root=Path(root), write_free=write_free or flag, model=model)


@dataclass
class _Loaded:
    fingerprint: str
    workspace: Workspace
    stores: Stores | None = None
    index: HybridIndex | None = None


class Deps:
    """Lazily loaded, fingerprint-refreshed state shared by the actions of one server."""

    def __init__(self, settings: ServerSettings, *, embedder: TextEncoder | None = None) -> None:
        self.settings = settings
        self._embedder = embedder
        self._embedder_spec: object = _INJECTED if embedder is not None else None
        self.lock = threading.RLock()
        """Serialises store and index use: actions run on worker threads, the index is one SQLite connection."""
        self._loaded: _Loaded | None = None
        self.runner = WorkerPool(Path(settings.root), env=self.worker_env(), prespawn=settings.prespawn)

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
        with self.lock:
            loaded = self._current()
            if loaded.stores is None:
                loaded.stores = Stores.load(loaded.workspace)
            return loaded.stores

    def index(self) -> HybridIndex:
        """The hybrid index over every store, synced to the current store contents."""
        with self.lock:
            stores = self.stores()
            loaded = self._current()
            if loaded.index is None:
                loaded.index = stores.open_index(self.embedder)
            return loaded.index

    def write_free(self) -> bool:
        """Write-free when the server was started so or the workspace config says so."""
        return self.settings.write_free or self.workspace().config.write_free

    def close(self) -> None:
        with self.lock:
            if self._loaded is not None and self._loaded.index is not None:
                self._loaded.index.close()
            self._loaded = None

    def _current(self) -> _Loaded:
        with self.lock:
            loaded = self._loaded
            if loaded is not None and fingerprint(loaded.workspace) == loaded.fingerprint:
                return loaded
            if loaded is not None:
                log.info("store files or config changed; reloading the stores")
            workspace = load_workspace(Path(self.settings.root))
            return self._replace(_Loaded(fingerprint(workspace), workspace))

    def _replace(self, fresh: _Loaded) -> _Loaded:
        if self._loaded is not None and self._loaded.index is not None:
            self._loaded.index.close()
        self._loaded = fresh
        return fresh


def fingerprint(workspace: Workspace) -> str:
    """A digest of what the stores are built from: every store file's name, size and mtime, plus the git HEAD."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(_config_key(workspace.root).encode())
    dirs = [workspace.memory_dir, workspace.zettelkasten_dir, workspace.runs_dir, *workspace.federation_dirs.values()]
    for directory in dirs:
        digest.update(b"\0dir\0" + os.fsencode(directory))
        for dirpath, dirnames, filenames in os.walk(directory):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                digest.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    digest.update(_git_head(workspace.code_dir))
    return digest.hexdigest()


def _config_key(root: Path) -> str:
    try:
        st = (Path(root) / CONFIG_RELPATH).stat()
    except OSError:
        return "absent"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _git_head(code_dir: Path) -> bytes:
    """HEAD and the ref it names (the code store reads the commit at HEAD, not the working tree)."""
    git = code_dir / ".git"
    parts: list[bytes] = []
    for name in ("HEAD", "packed-refs"):
        try:
            parts.append((git / name).read_bytes())
        except OSError:
            parts.append(b"-")
    head = parts[0].strip()
    if head.startswith(b"ref: "):
        try:
            parts.append((git / os.fsdecode(head[5:])).read_bytes())
        except (OSError, ValueError):
            parts.append(b"-")
    return b"\0".join(parts)
