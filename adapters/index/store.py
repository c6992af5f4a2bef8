"""The derived cache: one SQLite file per index under the cache directory.

Only this package touches SQLite. The file holds the docs, an external-content
FTS5 table over their id segment, title and text (kept in step by triggers),
and the vectors as float32 blobs keyed by content (hash of encoder id + embedded
text), so a vector survives renames and is shared by identical texts. Each
vector row names its encoder and ``meta.encoder`` the one the last sync used:
vectors are read back only for the current encoder, so a switch re-embeds and
two encoders' vectors never meet in one ranking.

It is a cache, never a source of truth: a missing, foreign, outdated or corrupt
file is deleted and rebuilt, and an unwritable cache directory falls back to an
in-memory database, so none of these ever reaches the caller as an exception.
Several processes may open and sync one file at once: WAL lets readers run
beside a writer, a busy timeout queues writers, and every write checks a
``generation`` counter so a sync computed against a state another process has
since changed is recomputed instead of applied. Opening, creating and rebuilding
the file happen under an exclusive lock on a sidecar ``index-<name>.lock``: SQLite
answers two connections switching a fresh file to WAL at the same moment with
an immediate SQLITE_BUSY that no busy timeout waits out, and a rebuild must not
delete a file another process has just rebuilt.

A repository may ship its own cache folder, symlinks included: the folder,
the file, its ``-wal``/``-shm``/``-journal`` siblings and the lock are each
checked through :mod:`adapters.cache_files` before SQLite opens them, and a
symlink at any of those levels raises ``CacheLinkRefused`` instead of turning
the file it names into (or a foreign database into) this cache.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from adapters import cache_files
from adapters.index.documents import IndexDoc
from adapters.index.semantic import VectorMatrix

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
_ADDRESSES_PER_QUERY = 500
"""Bound parameters per lookup, well under SQLite's limit."""
BUSY_TIMEOUT_S = 60.0
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs(
    id INTEGER PRIMARY KEY,
    address TEXT NOT NULL UNIQUE,
    ident TEXT NOT NULL,
    family TEXT NOT NULL,
    project TEXT,
    type TEXT NOT NULL,
    title TEXT NOT NULL,
    text TEXT NOT NULL,
    row_hash TEXT NOT NULL,
    vec_key TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_vec_key ON docs(vec_key);
CREATE TABLE IF NOT EXISTS vectors(key TEXT PRIMARY KEY, model_id TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    ident, title, text, content='docs', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO docs_fts(rowid, ident, title, text) VALUES (new.id, new.ident, new.title, new.text);
END;
CREATE TRIGGER IF NOT EXISTS docs_ad AFTER DELETE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, ident, title, text) VALUES ('delete', old.id, old.ident, old.title, old.text);
END;
CREATE TRIGGER IF NOT EXISTS docs_au AFTER UPDATE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, ident, title, text) VALUES ('delete', old.id, old.ident, old.title, old.text);
    INSERT INTO docs_fts(rowid, ident, title, text) VALUES (new.id, new.ident, new.title, new.text);
END;
"""
_TABLES = ("docs_fts", "docs", "vectors", "meta")


def is_corruption(error: sqlite3.Error) -> bool:
    """True for a damaged or foreign file (rebuild it), False for busy/locked and other transient errors."""
    name = getattr(error, "sqlite_errorname", "") or ""
    if name:
        return name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB"
    text = str(error).lower()
    return "disk image is malformed" in text or "file is not a database" in text


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A consistent read of what the cache holds: its generation, rows and vector keys."""

    generation: int
    rows: dict[str, tuple[str, str]]  # address -> (row_hash, vec_key)
    vector_keys: set[str]


class Store:
    """One index's SQLite cache (``path`` None: the in-memory fallback)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file_id: tuple[int, int] | None = None  # (device, inode) of the file ``conn`` opened
        with _open_lock(path):
            self.conn = self._connect_or_rebuild()

    @classmethod
    def open(cls, cache_dir: Path, name: str) -> Store:
        """Open (creating or rebuilding as needed) ``<cache_dir>/index-<name>.sqlite3``."""
        if not _NAME.fullmatch(name):
            raise ValueError(f"index name {name!r} must be 1-64 letters, digits, '_', '.' or '-'")
        try:
            with cache_files.cache_folder(cache_dir):
                pass  # made if absent; a symlinked cache folder raises CacheLinkRefused
        except OSError as exc:
            log.warning("cache directory %s is not usable (%s); indexing in memory", cache_dir, exc)
            return cls(None)
        return cls(cache_dir / f"index-{name}.sqlite3")

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()

    def reset(self) -> None:
        """Throw the file away and start empty (used when corruption shows up mid-operation).

        If another process already replaced the file since this connection opened it, that file is the
        rebuilt one: reconnect to it instead of deleting it.
        """
        self.close()
        with _open_lock(self.path):
            if self._file_id is not None and self._file_id == _file_id(self.path):
                self._delete_files()
            self.conn = self._connect_or_rebuild()

    def generation(self) -> int:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def encoder(self) -> str | None:
        """Identity of the encoder the last sync ran with (None for a cache never synced)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'encoder'").fetchone()
        return str(row[0]) if row else None

    def snapshot(self) -> Snapshot:
        with self._read():
            rows = {a: (h, k) for a, h, k in self.conn.execute("SELECT address, row_hash, vec_key FROM docs")}
            keys = {k for (k,) in self.conn.execute("SELECT key FROM vectors")}
            return Snapshot(self.generation(), rows, keys)

    def apply(
        self,
        expected_generation: int,
        upserts: Sequence[tuple[IndexDoc, str, str]],
        removals: Sequence[str],
        vectors: Mapping[str, np.ndarray],
        model_id: str,
    ) -> bool:
        """Write one sync atomically; False (nothing written) if another writer moved the generation first."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self.generation() != expected_generation:
                conn.execute("ROLLBACK")
                return False
            # The vectors the rewritten and removed rows used: only these can lose their last row here (a
            # scan for orphans over every vector cost ~0.9 s at 100k docs, on every sync of one edit).
            replaced = self._vector_keys_of([d.address for d, _, _ in upserts] + list(removals))
            conn.executemany(
                "INSERT OR IGNORE INTO vectors(key, model_id, dim, vec) VALUES (?, ?, ?, ?)",
                ((k, model_id, int(v.shape[0]), np.asarray(v, dtype="<f4").tobytes()) for k, v in vectors.items()),
            )
            conn.executemany("DELETE FROM docs WHERE address = ?", ((a,) for a in removals))
            conn.executemany(
                "INSERT INTO docs(address, ident, family, project, type, title, text, row_hash, vec_key)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(address) DO UPDATE SET"
                " family = excluded.family, project = excluded.project, type = excluded.type,"
                " title = excluded.title, text = excluded.text, row_hash = excluded.row_hash,"
                " vec_key = excluded.vec_key",
                (
                    (d.address, _ident(d.address), d.family, d.project, d.type, d.title, d.text, row_hash, key)
                    for d, row_hash, key in upserts
                ),
            )
            conn.executemany(
                "DELETE FROM vectors WHERE key = ? AND NOT EXISTS (SELECT 1 FROM docs WHERE vec_key = ?)",
                ((key, key) for key in replaced),
            )
            conn.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (("generation", str(expected_generation + 1)), ("encoder", model_id)),
            )
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        return True

    def _vector_keys_of(self, addresses: Sequence[str]) -> set[str]:
        keys: set[str] = set()
        for start in range(0, len(addresses), _ADDRESSES_PER_QUERY):
            chunk = addresses[start : start + _ADDRESSES_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            keys.update(k for (k,) in self.conn.execute(f"SELECT vec_key FROM docs WHERE address IN ({marks})", chunk))
        return keys

    def load_matrix(self, model_id: str) -> tuple[int, VectorMatrix]:
        """Every doc that has a vector from ``model_id``, sorted by address, with the generation it reflects."""
        with self._read():
            rows = self.conn.execute(
                "SELECT d.address, d.family, d.project, d.type, v.dim, v.vec FROM docs d"
                " JOIN vectors v ON v.key = d.vec_key WHERE v.model_id = ? ORDER BY d.address",
                (model_id,),
            ).fetchall()
            generation = self.generation()
        dims = {r[4] for r in rows}
        dim = max(dims, key=lambda d: sum(1 for r in rows if r[4] == d)) if dims else 0
        rows = [r for r in rows if r[4] == dim and len(r[5]) == 4 * dim]
        blob = b"".join(r[5] for r in rows)
        vectors = np.frombuffer(blob, dtype="<f4").astype(np.float32, copy=False).reshape(len(rows), dim)
        matrix = VectorMatrix(
            [r[0] for r in rows], vectors, [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows]
        )
        return generation, matrix

    def describe(self, addresses: Sequence[str], chars: int) -> dict[str, tuple[str, str, str | None, str, str]]:
        """address -> (family, type, project, title, first ``chars`` of text) for the hits being returned."""
        out: dict[str, tuple[str, str, str | None, str, str]] = {}
        for start in range(0, len(addresses), 500):
            chunk = list(addresses[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            for a, f, t, p, title, text in self.conn.execute(
                f"SELECT address, family, type, project, title, substr(text, 1, ?) FROM docs WHERE address IN ({marks})",
                (chars, *chunk),
            ):
                out[a] = (f, t, p, title, text)
        return out

    def count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM docs").fetchone()[0])

    @contextlib.contextmanager
    def _read(self) -> Iterator[None]:
        """A read transaction: every statement inside sees the same committed state."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            with contextlib.suppress(sqlite3.Error):
                self.conn.execute("COMMIT")

    def _connect_or_rebuild(self) -> sqlite3.Connection:
        if self.path is not None:
            try:
                return self._connect()
            except sqlite3.DatabaseError as exc:
                if not is_corruption(exc):
                    log.warning("index cache %s cannot be opened (%s); indexing in memory", self.path, exc)
                else:
                    log.warning("index cache %s is corrupt (%s); rebuilding it", self.path, exc)
                    self._delete_files()
                    try:
                        return self._connect()
                    except sqlite3.DatabaseError as again:
                        log.warning("rebuilt index cache %s still fails (%s); indexing in memory", self.path, again)
            self.path = None
        return self._connect()

    def _connect(self) -> sqlite3.Connection:
        if self.path is not None:
            cache_files.check_sqlite_files(self.path)
        target = str(self.path) if self.path is not None else ":memory:"
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            _ensure_schema(conn)
        except BaseException:
            conn.close()
            raise
        self._file_id = _file_id(self.path)
        return conn

    def _delete_files(self) -> None:
        if self.path is None:
            return
        with cache_files.cache_folder(self.path.parent, create=False) as folder:
            for suffix in cache_files.SQLITE_SUFFIXES:
                cache_files.unlink(folder, f"{self.path.name}{suffix}")


@contextlib.contextmanager
def _open_lock(path: Path | None) -> Iterator[None]:
    """Hold an exclusive lock on ``index-<name>.lock`` beside the file, shared by all who open this cache.

    Without one (no file, no ``fcntl``, an unwritable directory) opening goes ahead unlocked: the cache then
    only risks the in-memory fallback it would have had anyway. A symlinked lock or folder is refused.
    """
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        yield
        return
    fd = -1
    if path is not None:
        lock = path.with_suffix(".lock")
        with contextlib.suppress(OSError), cache_files.cache_folder(path.parent, create=False) as folder:
            fd = cache_files.open_file(folder, lock.name, os.O_RDWR | os.O_CREAT, within=path.parent.name)
    if fd < 0:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases its lock


def _file_id(path: Path | None) -> tuple[int, int] | None:
    try:
        st = os.lstat(path) if path is not None else None
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if st is not None else None


def _ensure_schema(conn: sqlite3.Connection) -> None:
    """Create the tables, or drop and recreate them when they come from another schema version."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if has_meta else None
        if has_meta and (version is None or version[0] != SCHEMA_VERSION):
            log.info("index cache schema %s is outdated; rebuilding", version[0] if version else "unknown")
            for table in _TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _split(_SCHEMA):
            conn.execute(statement)
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def _ident(address: str) -> str:
    """The id segment of an address: searchable by keyword, unlike the ``mem:tree:`` prefix every doc shares."""
    return address.split(":", 2)[-1]


def _split(script: str) -> list[str]:
    """Complete SQL statements of ``script`` (trigger bodies hold ';', so a plain split would cut them)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return [s for s in statements if s]
