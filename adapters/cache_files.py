"""Every write under the cache folder goes through here, and none follows a symlink.

A cloned repository can ship its own cache folder (``.angelo``), and git
happily stores symlinks: a committed ``.angelo/dashboard/history.jsonl`` or
``.angelo/index-default.sqlite3`` pointing at a file outside the workspace
would otherwise make Synapse append to, or turn into a database, whatever file
the link names. So folders and files under the cache are opened one component
at a time through directory descriptors with ``O_NOFOLLOW``: the cache folder
itself and every folder and file below it must be real, and a link at any of
those levels is refused with :class:`CacheLinkRefused` (mapped to the public
``path_outside_workspace`` error in ``synapse_server/errors.py``). Only the
folder that holds the cache folder (the workspace root, or the user's cache
base) is opened as the user named it.

SQLite opens files by path, so :func:`check_sqlite_files` checks the database
and its ``-wal``, ``-shm`` and ``-journal`` siblings through the folder's
descriptor just before a connection opens them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = [
    "SQLITE_SUFFIXES",
    "CacheLinkRefused",
    "cache_folder",
    "check_sqlite_files",
    "open_file",
    "refuse_links",
    "replace",
    "unlink",
]

SQLITE_SUFFIXES = ("", "-wal", "-shm", "-journal")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class CacheLinkRefused(Exception):
    """A symlink (or something that is not a folder or plain file) where the cache keeps its own.

    ``where`` is the path from the cache folder's name down, never an absolute path.
    """

    def __init__(self, where: str, what: str) -> None:
        self.where = where
        self.message = f"the cache entry {where} is {what}; Synapse never writes through it (remove it)"
        super().__init__(self.message)


@contextlib.contextmanager
def cache_folder(cache_dir: Path, *parts: str, create: bool = True) -> Iterator[int]:
    """A descriptor of ``cache_dir/parts...`` (made when ``create``), no level from ``cache_dir`` down followed.

    A missing level without ``create`` raises ``FileNotFoundError``; other ``OSError`` (an unwritable
    place, a plain file where a folder should be) propagate as they are.
    """
    cache_dir = Path(cache_dir)
    if create:
        os.makedirs(cache_dir.parent, exist_ok=True)
    fd = os.open(cache_dir.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    shown: list[str] = []
    try:
        for part in (cache_dir.name, *parts):
            shown.append(part)
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                _refuse_if_link(fd, part, shown)
                raise
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def open_file(folder: int, name: str, flags: int, mode: int = 0o600, *, within: str = "") -> int:
    """Open ``name`` in ``folder`` without following a symlink; only a plain file is ever returned.

    ``within`` names the folder in a refusal (``.angelo/dashboard``), never as an absolute path.
    """
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=folder)
    except FileNotFoundError:
        raise
    except OSError:  # ELOOP for a link; EISDIR and the like for what is not a plain file
        refuse_links(folder, [name], within=within)
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CacheLinkRefused(_joined(within, name), "not a plain file")
    return fd


def refuse_links(folder: int, names: Sequence[str], *, within: str = "") -> None:
    """Refuse if any existing ``name`` in ``folder`` is a symlink or not a plain file (a missing one is fine)."""
    for name in names:
        try:
            mode = os.lstat(name, dir_fd=folder).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            raise CacheLinkRefused(_joined(within, name), "a symlink" if stat.S_ISLNK(mode) else "not a plain file")


def check_sqlite_files(database: Path) -> None:
    """Refuse a database whose folder, file or ``-wal``/``-shm``/``-journal`` sibling is a symlink.

    Call it just before SQLite opens ``database`` by path (SQLite itself follows links).
    """
    with cache_folder(database.parent, create=False) as folder:
        refuse_links(folder, [database.name + suffix for suffix in SQLITE_SUFFIXES], within=database.parent.name)


def replace(folder: int, source: str, target: str) -> None:
    """Rename ``source`` over ``target`` inside one folder (a rename never follows a link at either name)."""
    os.replace(source, target, src_dir_fd=folder, dst_dir_fd=folder)


def unlink(folder: int, name: str) -> None:
    """Remove ``name`` from ``folder`` if present; a link is removed itself, never its target."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=folder)


def _refuse_if_link(folder: int, name: str, shown: list[str]) -> None:
    """After a failed open: raise :class:`CacheLinkRefused` when ``name`` is a symlink, else return."""
    try:
        mode = os.lstat(name, dir_fd=folder).st_mode
    except OSError:
        return
    if stat.S_ISLNK(mode):
        raise CacheLinkRefused("/".join(shown), "a symlink")


def _joined(within: str, name: str) -> str:
    return f"{within}/{name}" if within else name
