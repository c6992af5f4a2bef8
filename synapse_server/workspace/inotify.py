"""A minimal Linux inotify reader (ctypes, no dependency): "what changed in these folders?".

The freshness check of a long-lived server asks this before every call instead
of stat-ing every store file. The kernel queues an event inside the ``write``,
``rename`` or ``unlink`` that causes it, so a non-blocking read of the queue at
the start of a call sees every change that finished before the call began.
That is why this reads the queue itself rather than using a watcher library:
those deliver events from their own thread after a debounce, so a write made
just before a call could be missed.

:class:`DirectoryWatch` returns None from :meth:`DirectoryWatch.create` where
inotify is not available (another OS, a sandbox without it). :meth:`events`
names each entry an event touched (folder, name, mask) and returns None on a
queue overflow and after any failure, so a caller that rescans on None and
re-reads every named entry otherwise can never miss a change; :meth:`changed`
is the yes/no form.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import logging
import os
import struct
import sys
import weakref
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ISDIR = 0x40000000
IN_ONLYDIR = 0x01000000
IN_MASK_ADD = 0x20000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = 0o2000000

CONTENT = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
CONTENT |= IN_DELETE_SELF | IN_MOVE_SELF
"""Every event that can change what a store folder holds (reads and opens are not among them)."""
ENTRIES = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
"""Only entries appearing or vanishing: for the folders above a store, where unrelated files are edited."""
_HEADER = struct.Struct("iIII")


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        return libc
    except (OSError, AttributeError):
        return None


class DirectoryWatch:
    """One inotify queue over a set of folders; ``changed()`` drains it."""

    def __init__(self, libc: ctypes.CDLL, fd: int) -> None:
        self._libc = libc
        self._fd = fd
        self._broken = False
        self._folders: dict[int, Path] = {}
        """The folder each watch descriptor watches: an event names its folder by descriptor."""
        # A server that is dropped without close() must not keep its queue: instances are few per user.
        self._finalizer = weakref.finalize(self, _close_fd, fd)

    @classmethod
    def create(cls) -> DirectoryWatch | None:
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            log.info("inotify unavailable (%s); freshness falls back to full scans", os.strerror(ctypes.get_errno()))
            return None
        return cls(libc, fd)

    @property
    def trusted(self) -> bool:
        """False once a watch could not be added or the queue failed: every check must rescan then."""
        return not self._broken and self._fd >= 0

    def add(self, folders: Iterable[Path], mask: int) -> None:
        """Watch each folder (not recursively); a folder that vanished meanwhile is skipped."""
        for folder in folders:
            if self._fd < 0:
                return
            # MASK_ADD: a folder watched twice (a store that is also another's parent) keeps both masks.
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), mask | IN_ONLYDIR | IN_MASK_ADD)
            if wd >= 0:
                self._folders[wd] = Path(folder)
                continue
            code = ctypes.get_errno()
            if code in (errno.ENOENT, errno.ENOTDIR):
                continue  # gone (or never a folder): its parent's watch reports the change
            log.warning("cannot watch %s (%s); freshness falls back to full scans", folder.name, os.strerror(code))
            self._broken = True
            return

    def changed(self) -> bool:
        """True if any event arrived since the last call (or the queue cannot be trusted); drains the queue."""
        events = self.events()
        return events is None or bool(events)

    def events(self) -> list[tuple[Path, str, int]] | None:
        """Every event since the last call as (watched folder, entry name, mask); drains the queue.

        None when the queue cannot be trusted (a failed watch, a failed read, an overflow): the caller must
        rescan everything. An event on a watched folder itself has the name ``""``.
        """
        if not self.trusted:
            return None
        out: list[tuple[Path, str, int]] = []
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return out
            except OSError as exc:
                log.warning("inotify read failed (%s); freshness falls back to full scans", exc)
                self._broken = True
                return None
            if not data:
                return out
            offset = 0
            while offset + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                name = data[offset + _HEADER.size : offset + _HEADER.size + length].rstrip(b"\0")
                offset += _HEADER.size + length
                if mask & IN_IGNORED and not mask & ~IN_IGNORED:
                    self._folders.pop(wd, None)
                    continue  # a watch removed because its folder went: the folder event itself came first
                if mask & IN_Q_OVERFLOW:
                    log.info("inotify queue overflowed; rescanning")
                    self._drain()
                    return None
                folder = self._folders.get(wd)
                if folder is None:
                    self._drain()
                    return None  # an event from a descriptor this queue does not know: trust nothing
                out.append((folder, os.fsdecode(name), mask))

    def _drain(self) -> None:
        """Empty the queue after a verdict of "rescan everything": what is left in it is covered by the rescan."""
        with contextlib.suppress(OSError):
            while os.read(self._fd, 65536):
                pass

    def close(self) -> None:
        self._finalizer()
        self._fd = -1


def _close_fd(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
