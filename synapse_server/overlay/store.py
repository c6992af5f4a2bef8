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
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from synapse_server.errors import PathOutsideWorkspace, WriteRefused
from synapse_server.overlay.model import FILE_OF_KIND, KINDS, SCHEMA_VERSION, Drift, Overlay, OverlayKind
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

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
    Every step goes through descriptors opened without following links
    (``O_NOFOLLOW``): a symlinked ``.synapse/``, ``links/``, lock,
    ``.gitignore`` or overlay file is refused (:class:`PathOutsideWorkspace`),
    so a build can never write through a link into a source store or out of
    the workspace. The new file is always mode 0644, and temp files left by
    an interrupted build are removed under the lock.
    """
    refuse_if_write_free(workspace, write_free)
    target = overlay_path(workspace, overlay.kind)
    data = serialize_overlay(overlay)
    folder = _open_links_dir(workspace.root.resolve())
    try:
        with _locked(folder):
            _ensure_gitignore(folder)
            _refuse_link(folder, target.name)
            _sweep_temp_files(folder)
            temp = f".{target.name}.{secrets.token_hex(6)}{TEMP_SUFFIX}"
            fd = os.open(temp, _NEW_FILE, 0o644, dir_fd=folder)
            try:
                os.fchmod(fd, 0o644)  # the umask must not decide a committed file's mode
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, target.name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temp, dir_fd=folder)
                raise
            os.fsync(folder)  # make the rename itself durable
    finally:
        os.close(folder)
    return target


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_links_dir(root: Path) -> int:
    """A descriptor of ``.synapse/links``, created if absent, refusing a symlink at either level."""
    fd = os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW)
    try:
        for part in LINKS_DIR.parts:
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=fd)
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:  # ELOOP: a symlink; ENOTDIR: a file or a link to one
                raise _refused(f"{part} is a symlink or not a folder") from exc
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _refused(why: str) -> PathOutsideWorkspace:
    return PathOutsideWorkspace(f"{LINKS_DIR}: {why}; refusing to write", path=str(LINKS_DIR))


def _refuse_link(folder: int, name: str) -> None:
    """An existing entry ``name`` must be a plain file: a symlink would make the replace hide a link's target."""
    try:
        mode = os.lstat(name, dir_fd=folder).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise _refused(f"{name} is a symlink or not a plain file")


def _sweep_temp_files(folder: int) -> None:
    """Remove ``.<overlay>.*.tmp`` left by an interrupted build (no other writer can own one under the lock)."""
    prefixes = tuple(f".{name}." for name in FILE_OF_KIND.values())
    for name in os.listdir(folder):
        if name.startswith(prefixes) and name.endswith(TEMP_SUFFIX):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=folder)  # unlink removes a link itself, never its target


def refuse_if_write_free(workspace: Workspace, write_free: bool) -> None:
    """Raise :class:`WriteRefused` when either the caller or the workspace config forbids writing."""
    if write_free or workspace.config.write_free:
        source = "this call runs write-free" if write_free else ".synapse/config.yaml sets write_free: true"
        raise WriteRefused(f"build refused: {source}; nothing was written", write_free=True)


@contextlib.contextmanager
def _locked(folder: int) -> Iterator[None]:
    """An exclusive advisory lock on ``<folder>/.lock``, held for one replace (blocks until free)."""
    try:
        fd = os.open(LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=folder)
    except OSError as exc:
        raise _refused(f"{LOCK_NAME} is a symlink or cannot be opened") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refused(f"{LOCK_NAME} is not a plain file")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _ensure_gitignore(folder: int) -> None:
    """Keep the lock and any interrupted temp file out of commits (written once, under the lock)."""
    try:
        fd = os.open(".gitignore", _NEW_FILE, 0o644, dir_fd=folder)
    except FileExistsError:
        _refuse_link(folder, ".gitignore")  # a dangling link "exists" too: refuse it rather than skip it
        return
    except OSError as exc:
        raise _refused(".gitignore cannot be created") from exc
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(_GITIGNORE)
