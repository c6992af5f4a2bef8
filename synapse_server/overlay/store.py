"""The links store: the only place Synapse writes, and the one way every reader opens an overlay.

``.synapse/links/links.json`` (generic) and ``claim_links.json`` (claim) are
committed to git, so they must be byte-stable (links sorted by practice then
canon, fields in the schema's fixed order, no timestamps) and must never be
seen half written. A write therefore goes to a temporary file in the same directory, is
fsynced, and replaces the old file with ``os.replace`` while an exclusive
``flock`` on ``.synapse/links/.lock`` is held, so concurrent builds queue up
instead of interleaving, and a reader sees either the old file or the new one.

Reading never raises for bad content: a caller gets an :class:`OverlayState`
whose ``drift`` says ``missing``, ``invalid`` (with the reason), ``drifted``
or ``fresh``, the last two decided by recomputing the signature over the
stores as they are now.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from synapse_server.config import Workspace
from synapse_server.errors import PathOutsideWorkspace, WriteRefused
from synapse_server.overlay.model import FILE_OF_KIND, KINDS, SCHEMA_VERSION, Drift, Overlay, OverlayKind
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.stores import Stores

__all__ = [
    "LINKS_DIR",
    "OverlayState",
    "embedding_identity",
    "links_dir",
    "overlay_path",
    "parse_overlay",
    "read_overlay",
    "refuse_if_write_free",
    "serialize_overlay",
    "write_overlay",
]

LINKS_DIR = Path(".synapse") / "links"
LOCK_NAME = ".lock"
TEMP_SUFFIX = ".tmp"
_GITIGNORE = f"# written by synapse build: the lock and interrupted temp files are not part of the overlay\n{LOCK_NAME}\n*{TEMP_SUFFIX}\n"


@dataclass(frozen=True)
class OverlayState:
    """What a reader found: the overlay (None unless fresh or drifted), its drift status and why."""

    kind: OverlayKind
    path: str
    overlay: Overlay | None
    drift: Drift
    detail: str

    @property
    def usable(self) -> bool:
        """True when there are links to read (fresh or drifted); a drifted overlay is still shown, flagged."""
        return self.overlay is not None


def links_dir(workspace: Workspace) -> Path:
    return workspace.root / LINKS_DIR


def overlay_path(workspace: Workspace, kind: OverlayKind) -> Path:
    if kind not in KINDS:
        raise ValueError(f"unknown overlay kind {kind!r}; expected one of {', '.join(KINDS)}")
    return links_dir(workspace) / FILE_OF_KIND[kind]


def embedding_identity(workspace: Workspace) -> str:
    """The embedding model as the config names it (never an absolute path, so clones agree)."""
    from adapters.index.embedder import DEFAULT_MODEL_ID

    return workspace.config.embedding_model or DEFAULT_MODEL_ID


def serialize_overlay(overlay: Overlay) -> bytes:
    """The committed bytes: links sorted by (practice, canon), two-space JSON, one trailing newline."""
    ordered = overlay.model_copy(update={"links": sorted(overlay.links, key=lambda link: link.key())})
    data = ordered.model_dump(mode="json", exclude_none=True)
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def parse_overlay(raw: bytes, kind: OverlayKind) -> Overlay:
    """Parse and validate one overlay file; raises ``ValueError`` with a reader-facing reason."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"the top level must be an object, not {type(data).__name__}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(f"schema_version {version!r} is not supported (this Synapse reads {SCHEMA_VERSION})")
    try:
        overlay = Overlay.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise ValueError(f"{where}: {first['msg']} ({exc.error_count()} problem(s))") from None
    if overlay.kind != kind:
        raise ValueError(f"the file holds a {overlay.kind!r} overlay, expected {kind!r}")
    keys = [link.key() for link in overlay.links]
    if len(set(keys)) != len(keys):
        raise ValueError("a (practice, canon) pair appears more than once")
    return overlay


def read_overlay(workspace: Workspace, kind: OverlayKind, *, stores: Stores | None = None) -> OverlayState:
    """Open an overlay and check it against the stores now; never raises for a missing or bad file.

    ``stores`` lets a server reuse what it already loaded; otherwise memory and
    the zettelkasten are read here (no model, no index: drift costs one hash pass).
    """
    path = overlay_path(workspace, kind)
    shown = str(path.relative_to(workspace.root))
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return OverlayState(kind, shown, None, "missing", f"no {kind} overlay yet; run synapse build --kind {kind}")
    except OSError as exc:
        return OverlayState(kind, shown, None, "invalid", f"{shown} cannot be read: {exc.strerror or exc}")
    try:
        overlay = parse_overlay(raw, kind)
    except ValueError as exc:
        return OverlayState(kind, shown, None, "invalid", f"{shown}: {exc}; rebuild it with synapse build")
    current = stores if stores is not None else Stores.load(workspace, ("memory", "zk"))
    embedding = embedding_identity(workspace)
    nodes = signature_nodes(current.nodes, overlay.projects)
    now = overlay_signature(kind, overlay.projects, overlay.typer, embedding, nodes)
    if now == overlay.signature:
        return OverlayState(kind, shown, overlay, "fresh", f"matches the stores ({len(overlay.links)} links)")
    if overlay.embedding is not None and overlay.embedding != embedding:
        why = f"the embedding model changed ({overlay.embedding} -> {embedding})"
    else:
        scope = ", ".join(overlay.projects) or "memory only"
        why = f"memory or zettelkasten content (scope: {scope}) changed since the build"
    return OverlayState(kind, shown, overlay, "drifted", f"{why}; rebuild with synapse build --kind {kind}")


def write_overlay(workspace: Workspace, overlay: Overlay, *, write_free: bool = False) -> Path:
    """Atomically replace the overlay file of ``overlay.kind`` under the links lock; the sole Synapse write.

    Refused (:class:`WriteRefused`) when the caller runs write-free or the
    workspace config says ``write_free: true``; nothing is created then.
    """
    refuse_if_write_free(workspace, write_free)
    target = overlay_path(workspace, overlay.kind)
    data = serialize_overlay(overlay)
    folder = target.parent
    if workspace.root.resolve() not in folder.resolve().parents:  # a symlinked .synapse/ must not lead out
        raise PathOutsideWorkspace(
            f"{LINKS_DIR} resolves outside the workspace; refusing to write", path=str(LINKS_DIR)
        )
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder):
        _ensure_gitignore(folder)
        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=TEMP_SUFFIX)
        try:
            os.fchmod(fd, _mode_of(target))  # mkstemp makes 0600; a committed file is world-readable
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        _fsync_dir(folder)
    return target


def refuse_if_write_free(workspace: Workspace, write_free: bool) -> None:
    """Raise :class:`WriteRefused` when either the caller or the workspace config forbids writing."""
    if write_free or workspace.config.write_free:
        source = "this call runs write-free" if write_free else ".synapse/config.yaml sets write_free: true"
        raise WriteRefused(f"build refused: {source}; nothing was written", write_free=True)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``<folder>/.lock``, held for one replace (blocks until free)."""
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _mode_of(target: Path) -> int:
    """Keep the permissions of the file being replaced; a new file gets the usual 0644."""
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        return 0o644


def _ensure_gitignore(folder: Path) -> None:
    """Keep the lock and any interrupted temp file out of commits (written once, under the lock)."""
    path = folder / ".gitignore"
    if not path.exists():
        path.write_text(_GITIGNORE, encoding="utf-8", newline="\n")


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a crash right after must not resurrect the old file)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
