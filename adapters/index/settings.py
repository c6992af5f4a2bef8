"""Which backend an index uses, and the one place that opens it.

``IndexSettings(backend="postgres", dsn=..., workspace=...)`` selects the shared
PostgreSQL store; the default (or ``None``) is the embedded SQLite file under
the cache directory. The DSN is a secret (it may hold a password): it is kept
out of ``repr``, and nothing built from it - results, errors, logs - ever shows
it; only :func:`describe` is meant for people, and it names the backend and the
workspace key, never the DSN.

``trusted`` is False for a DSN that only the workspace's committed config names, without the user's
opt-in: such settings are described, never connected to. ``timeout_s`` bounds every wait on the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from adapters.index.backend import RetrievalStore

Backend = Literal["sqlite", "postgres"]
DSN_ENV = "SYNAPSE_INDEX_DSN"


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """``workspace`` scopes every row in a shared database; one database holds many workspaces."""

    backend: Backend = "sqlite"
    dsn: str | None = field(default=None, repr=False)
    workspace: str = "default"
    timeout_s: float = 10.0
    trusted: bool = True

    def describe(self) -> str:
        """A safe one-line description for status output (no DSN)."""
        if self.backend == "sqlite":
            return "sqlite (embedded)"
        if not self.trusted:
            return f"postgres (workspace {self.workspace}; DSN from the workspace config, NOT trusted)"
        return f"postgres (workspace {self.workspace})"


def open_store(cache_dir: Path, name: str, settings: IndexSettings | None) -> RetrievalStore:
    """The selection point: the embedded store unless ``settings`` choose PostgreSQL."""
    if settings is None or settings.backend == "sqlite":
        from adapters.index.embedded import EmbeddedStore

        store = EmbeddedStore.open(cache_dir, name)
        assert isinstance(store, EmbeddedStore)  # Store.open builds ``cls``
        return store
    from adapters.index.pg_errors import IndexUnavailable
    from adapters.index.pg_store import PgStore

    if not settings.dsn:
        raise IndexUnavailable(f"the postgres index backend needs a DSN (index.dsn or {DSN_ENV})")
    if not settings.trusted:  # the caller says why and how to opt in; this only makes sure nothing connects
        raise IndexUnavailable("the postgres DSN comes from the workspace config, which is not trusted")
    return PgStore.connect(settings.dsn, f"{settings.workspace}/{name}", settings.timeout_s)
