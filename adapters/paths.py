"""Safe path handling for store files: everything an adapter opens stays inside its root.

Store files and the paths they name (run inputs, cached source texts) are
project content, not trusted code. A ``..`` segment, an absolute path or a
symlink that points out of the workspace could make a read-only action read
arbitrary files, so every such path goes through :func:`resolve_inside`, which
resolves symlinks first and then insists the result is still under the root.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adapters.file_memo import FileMemo


class PathEscape(ValueError):
    """A path that resolves outside the root it must stay in."""

    def __init__(self, path: str, root: Path, reason: str) -> None:
        self.path = path
        self.root = root
        self.reason = reason
        super().__init__(f"{path!r} {reason}")


class NotRegularFile(OSError):
    """A store path that names a FIFO, a device, a socket or a directory: never read, never waited on."""


def open_regular(path: Path) -> int:
    """A read descriptor for ``path`` if it is a regular file; raises :class:`NotRegularFile` otherwise.

    The open is non-blocking, so a FIFO without a writer cannot stall the
    caller; the file type is then checked on the open descriptor itself (no
    window between the check and the read) and blocking mode restored.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"not a regular file ({_kind(mode)})")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_bytes(path: Path) -> bytes:
    """The bytes of a regular file; a FIFO, device or socket raises :class:`NotRegularFile` (an ``OSError``)."""
    with os.fdopen(open_regular(path), "rb") as handle:
        return handle.read()


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):  # fmt: skip
        if test(mode):
            return name
    return "not a plain file"


def resolve_inside(root: Path, candidate: str | Path) -> Path:
    """Resolve ``candidate`` (relative to ``root`` unless absolute) and refuse anything outside ``root``.

    Symlinks are followed before the check, so a link inside the root that
    points elsewhere is refused as well. Raises :class:`PathEscape`.
    """
    text = str(candidate)
    if not text or "\x00" in text:
        raise PathEscape(text, root, "is empty or contains a NUL byte")
    try:
        real_root = root.resolve()
        target = (real_root / candidate).resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError for a symlink loop
        raise PathEscape(text, root, "cannot be resolved (a symlink loop or an unreadable link)") from None
    try:
        target.relative_to(real_root)
    except ValueError:
        raise PathEscape(text, root, "resolves outside its root") from None
    return target


def under(workspace_root: Path, path: Path) -> Path:
    """``path`` itself when absolute, else joined to the workspace root (config paths are workspace-relative)."""
    return path if path.is_absolute() else workspace_root / path


def check_relative(text: str) -> str:
    """Normalise a store-written relative path to POSIX form; refuse absolute paths and ``..``.

    Used for paths recorded in store files (pins, run inputs, ``files:``) that
    are later joined to a root: the check is lexical, so it also holds for
    paths that do not exist yet.
    """
    if not text or "\x00" in text or "\\" in text:
        raise ValueError(f"path {text!r} is empty or holds a NUL byte or backslash")
    pure = PurePosixPath(text)
    if pure.is_absolute():
        raise ValueError(f"path {text!r} is absolute; store paths are relative")
    if any(part == ".." for part in pure.parts):
        raise ValueError(f"path {text!r} climbs out of its root with '..'")
    normal = pure.as_posix()
    if normal in ("", "."):
        raise ValueError(f"path {text!r} names no file")
    return normal


def display_path(path: Path, workspace_root: Path) -> str:
    """The workspace-relative POSIX path used in diagnostics and ``Node.path``.

    Paths outside the workspace (a federated zettelkasten) keep a relative form
    with ``..`` so a diagnostic never prints an absolute machine path. A path
    lexically under the root (every store file an adapter lists) needs no
    resolving: the adapters call this once per file, and resolving the root each
    time was an ``lstat`` per component per file.
    """
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.relative_to(workspace_root).as_posix()
    except ValueError:
        pass
    real_root = workspace_root.resolve()
    absolute = path if path.is_absolute() else real_root / path
    try:
        return absolute.relative_to(real_root).as_posix()
    except ValueError:
        return Path(os.path.relpath(absolute, real_root)).as_posix()


Listing = tuple[list[Path], list[tuple[Path, str]], bool]
"""A folder's accepted entries, its refused ones with the reason, and whether it held a symlink."""


def list_store_files(
    directory: Path, suffix: str, root: Path, memo: FileMemo | None = None
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Non-directory entries directly in ``directory`` ending in ``suffix``, sorted by name, plus the refused ones.

    A directory entry that resolves outside ``root`` (an escaping symlink) is
    returned in the second list with the reason, for the caller to report. A
    FIFO or device is returned with the files: reading it through
    :func:`read_regular_bytes` reports it as unreadable instead of skipping it silently.

    With ``memo``, a listing of symlink-free entries is reused while the directory's own stamp is unchanged
    (editing a file does not move it; creating, removing or renaming an entry does).
    """
    if memo is None:
        return _listing(directory, root, lambda name: name.endswith(suffix), dirs=False)[:2]
    scanned = memo.listing(directory, lambda: _listing(directory, root, lambda name: name.endswith(suffix), dirs=False))
    return scanned[0], scanned[1]


def list_store_dirs(directory: Path, root: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Sub-directories of ``directory`` (hidden ones skipped), sorted, plus those refused as escaping ``root``."""
    return _listing(directory, root, lambda _name: True, dirs=True)[:2]


def _listing(directory: Path, root: Path, wanted: Callable[[str], bool], *, dirs: bool) -> Listing:
    """The visible entries of ``directory`` that ``wanted`` names and that are (or lead to) directories when
    ``dirs``, anything else otherwise, sorted by name; plus those refused as escaping ``root``, with the reason;
    and whether any entry was a symlink (whose target can move while the directory does not).

    Stores hold tens of thousands of files, and resolving each one walks every
    component of its path with an ``lstat``. So the directory is resolved once:
    an entry that is not a symlink resolves to the resolved directory plus its
    name, inside ``root`` exactly when the directory is, and its kind is known
    from the scan. Only a symlink is resolved on its own (:func:`resolve_inside`)
    and judged by what it points at; a dangling one is left out.
    """
    accepted: list[Path] = []
    refused: list[tuple[Path, str]] = []
    linked = False
    if not directory.is_dir():
        return accepted, refused, True  # nothing to keep: a folder that appears must be listed
    try:
        resolve_inside(root, directory)
        escape: str | None = None
    except PathEscape as exc:  # every entry resolves through the directory, so every one escapes
        escape = exc.reason
    with os.scandir(directory) as scan:
        found = sorted((e for e in scan if not e.name.startswith(".") and wanted(e.name)), key=lambda e: e.name)
    for item in found:
        entry = directory / item.name
        if escape is not None:
            refused.append((entry, escape))
            continue
        try:
            plain = not item.is_symlink()
            kind_is_dir = item.is_dir(follow_symlinks=False)
        except OSError:  # vanished since the scan: judged below by resolving, which finds nothing there
            plain, kind_is_dir = False, False
        if plain:
            if kind_is_dir == dirs:
                accepted.append(entry)
            continue
        linked = True
        try:
            target = resolve_inside(root, entry)
        except PathEscape as exc:
            refused.append((entry, exc.reason))
            continue
        if target.is_dir() if dirs else (target.exists() and not target.is_dir()):
            accepted.append(entry)
    return accepted, refused, linked or escape is not None
