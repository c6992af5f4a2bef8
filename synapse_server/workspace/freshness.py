"""Is what a server loaded still what the store files say? Answered per call, at a cost that does not grow.

A long-lived server (Claude Code keeps one for a whole session) must answer
from the stores as they are now, so every call asks. The full answer is a
:func:`fingerprint` of the store files: every name and stat stamp, the config
file's, and the git HEAD. At 10k nodes that scan cost ~36 ms, several times
per call. :class:`Freshness` pays it only when something may have changed:
while it loads it watches every store folder with inotify (the folders above a
store for entries appearing or vanishing), and a later check reads the event
queue (one system call) plus the three small git files HEAD names. Any event,
an overflowed queue, or a watch that could not be added means a full rescan,
so the watch can make a check cheaper but never wrong. Where inotify is not
available every check is a full scan, as before.

A folder is watched before it is listed, so a file created while a rescan runs
is either seen by that scan or queues an event for the next check.

Inotify has one blind spot: a write through another hard link (a note linked
into a folder outside the workspace and edited there) changes the file but
queues no event in the store folder, and making the link queues none either.
So a scan notes every store file that has other links, and each check stats
those (a few microseconds each; up to :data:`LINKED_MAX` of them), which makes
their edits show at the next call; and a check at least :data:`SWEEP_EVERY_S`
seconds after the last full scan makes one more. An edit no event reports
(a link made after the scan, a network or virtual filesystem that raises no
events) therefore shows at most ``SWEEP_EVERY_S`` seconds after it is made.
A sweep is a full scan: ~35-65 ms at 10k store files.

Each scan also keeps a digest per store folder (:attr:`Freshness.parts`, plus the
config file's and git HEAD's), so a process that must reload can ask which
folders moved (:func:`changed_parts`) and load only the stores they feed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from synapse_server.workspace.config import CONFIG_RELPATH, Workspace
from synapse_server.workspace.inotify import CONTENT, ENTRIES, DirectoryWatch

__all__ = ["CONFIG_PART", "GIT_PART", "LINKED_MAX", "SWEEP_EVERY_S", "Freshness", "changed_parts", "fingerprint"]

SWEEP_EVERY_S = 5.0
"""A check at least this long after the last full scan rescans: the bound on staleness no event reports."""
LINKED_MAX = 256
"""Up to this many store files with other hard links are stat-ed at every check; beyond it only the sweep sees them."""

CONFIG_PART = "\0config"
"""The key of the config file's stamp in :attr:`Freshness.parts` (no folder path can equal it)."""
GIT_PART = "\0git"
"""The key of git HEAD's digest in :attr:`Freshness.parts`."""

_Stamp = tuple[int, int, int, int]


class Freshness:
    """The fingerprint a load was built from, and the watch that says when it must be recomputed."""

    def __init__(self, workspace: Workspace, *, watch: bool = True, sweep_every_s: float = SWEEP_EVERY_S) -> None:
        self.workspace = workspace
        self._watch = DirectoryWatch.create() if watch else None
        self._sweep_every_s = sweep_every_s
        self.rescans = 0
        self._stale = False
        parts: dict[str, str] = {}
        self.value = self._scan(parts)
        self.parts: dict[str, str] = parts
        """A digest per store folder (its path), and the config's and git HEAD's, as of :attr:`value`."""

    @property
    def watched(self) -> bool:
        """True while changes are detected from the event queue (False: every check rescans)."""
        return self._watch is not None and self._watch.trusted

    def current(self) -> bool:
        """True if the store files still match :attr:`value`; a rescan that matches keeps it current."""
        if self._stale:
            return False  # once moved, stays moved: a failed reload must not make the old load current again
        git = _git_head(self.workspace.code_dir)
        if (
            self._watch is not None
            and self._watch.trusted
            and not self._watch.changed()
            and git == self._git
            and time.monotonic() - self._scanned_at < self._sweep_every_s
            and all(_stamp(path) == stamp for path, stamp in self._linked.items())
        ):
            return True
        self._stale = self._scan() != self.value
        return not self._stale

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()

    def _scan(self, parts: dict[str, str] | None = None) -> str:
        self.rescans += 1
        self._scanned_at = time.monotonic()
        self._git = _git_head(self.workspace.code_dir)
        linked: dict[str, _Stamp] = {}
        value = _fingerprint(self.workspace, self._watch, self._git, linked, {} if parts is None else parts)
        self._linked = linked if len(linked) <= LINKED_MAX else {}
        return value


def fingerprint(workspace: Workspace, watch: DirectoryWatch | None = None, git: bytes | None = None) -> str:
    """A digest of what the stores are built from: every store file's name, stat stamp, plus the git HEAD."""
    return _fingerprint(workspace, watch, git, {}, {})


def changed_parts(before: Mapping[str, str], after: Mapping[str, str]) -> frozenset[str]:
    """The keys of :attr:`Freshness.parts` whose digest differs between two scans (or that only one has)."""
    return frozenset(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


def _fingerprint(
    workspace: Workspace,
    watch: DirectoryWatch | None,
    git: bytes | None,
    linked: dict[str, _Stamp],
    parts: dict[str, str],
) -> str:
    """:func:`fingerprint`, noting in ``linked`` the stamp of every store file that has other hard links
    and in ``parts`` a digest per store folder, the config's and git HEAD's."""
    digest = hashlib.blake2b(digest_size=16)
    root = workspace.root
    if watch is not None:
        watch.add([root], ENTRIES)
        watch.add([root / CONFIG_RELPATH.parent], CONTENT)
    parts[CONFIG_PART] = _config_key(root)
    digest.update(parts[CONFIG_PART].encode())
    dirs = [workspace.memory_dir, workspace.zettelkasten_dir, workspace.runs_dir, *workspace.federation_dirs.values()]
    # Folders (or single files) adopted in place as sources, where the workspace declares any.
    dirs += [Path(p) for p in getattr(workspace, "source_dirs", ())]
    for directory in dirs:
        if watch is not None:
            watch.add(_ancestors(directory, root), ENTRIES)
        digest.update(b"\0dir\0" + os.fsencode(directory))
        folder = hashlib.blake2b(digest_size=16)
        for path, st in _walk(directory, watch):
            stamp = _stamp_of(st)
            if st.st_nlink > 1:
                linked[path] = stamp
            line = f"{path}\0{stamp}\n".encode("utf-8", "surrogateescape")
            digest.update(line)
            folder.update(line)
        key = os.fspath(directory)
        parts[key] = folder.hexdigest() + parts.get(key, "")  # a folder listed twice keeps both listings
    head = _git_head(workspace.code_dir) if git is None else git
    digest.update(head)
    parts[GIT_PART] = hashlib.blake2b(head, digest_size=16).hexdigest()
    return digest.hexdigest()


def _stamp_of(st: os.stat_result) -> _Stamp:
    """What a change to a file's content moves: mtime, ctime (which no ``touch`` can set back), size, inode."""
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _stamp(path: str) -> _Stamp | None:
    try:
        return _stamp_of(os.stat(path))
    except OSError:
        return None


def _walk(top: Path, watch: DirectoryWatch | None) -> Iterator[tuple[str, os.stat_result]]:
    """Every file under ``top`` (sorted, symlinked folders not followed), each folder watched before it is listed."""
    if top.is_file():  # a single adopted file: its folder's events cover it
        if watch is not None:
            watch.add([top.parent], CONTENT)
        with contextlib.suppress(OSError):
            yield os.fspath(top), os.stat(top)
        return
    stack = [os.fspath(top)]
    while stack:
        folder = stack.pop()
        if watch is not None:
            watch.add([Path(folder)], CONTENT)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.path)
                    continue
                st = os.stat(entry.path)
            except OSError:
                continue
            yield entry.path, st
        stack.extend(reversed(subdirs))


def _ancestors(directory: Path, root: Path) -> list[Path]:
    """The folders above ``directory`` whose entries decide whether it exists.

    Inside the workspace: every folder up to the root. Outside (a federated root): up to the first that exists.
    """
    out = []
    for parent in directory.parents:
        out.append(parent)
        if parent == root or (root not in parent.parents and parent.is_dir()):
            break
    return out


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
