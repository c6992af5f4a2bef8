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
seconds after the last full scan makes one more, or :data:`SWEEP_SHARE` times
the last full scan's duration where that is longer (a sweep then takes at most
1/``SWEEP_SHARE`` of the time). An edit no event reports (a link made after the
scan, a network or virtual filesystem that raises no events) therefore shows at
most that long after it is made: ``SWEEP_EVERY_S`` seconds up to ~10k store
files, longer where a sweep costs more. Where every store folder is on a local
filesystem (:func:`~synapse_server.workspace.mounts.all_local`), a folder's entries cannot change without an event,
so a sweep stats the files the scan holds and lists nothing; elsewhere (a
network or FUSE mount, no watch) it is a full rescan.

Each scan also keeps a digest per store folder (:attr:`Freshness.parts`, plus the
config file's and git HEAD's), so a process that must reload can ask which
folders moved (:func:`changed_parts`) and load only the stores they feed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from adapters.file_memo import SETTLE_NS
from synapse_server.workspace.config import CONFIG_RELPATH, Workspace
from synapse_server.workspace.inotify import CONTENT, ENTRIES, IN_ISDIR, DirectoryWatch
from synapse_server.workspace.mounts import all_local

__all__ = [
    "CONFIG_PART",
    "GIT_PART",
    "LINKED_MAX",
    "SWEEP_EVERY_S",
    "SWEEP_SHARE",
    "Freshness",
    "Unmoved",
    "changed_parts",
    "fingerprint",
]

SWEEP_EVERY_S = 5.0
"""A check at least this long after the last full scan rescans: the bound on staleness no event reports."""
SWEEP_SHARE = 20
"""...or this many times the last full scan's duration, where that is longer: sweeps cost at most 1/20 of the time."""
LINKED_MAX = 256
"""Up to this many store files with other hard links are stat-ed at every check; beyond it only the sweep sees them."""

CONFIG_PART = "\0config"
"""The key of the config file's stamp in :attr:`Freshness.parts` (no folder path can equal it)."""
GIT_PART = "\0git"
"""The key of git HEAD's digest in :attr:`Freshness.parts`."""

_Stamp = tuple[int, int, int, int]
_MOD = 1 << 64


class Freshness:
    """The fingerprint a load was built from, and the watch that says when it must be recomputed."""

    def __init__(self, workspace: Workspace, *, watch: bool = True, sweep_every_s: float = SWEEP_EVERY_S) -> None:
        self._setup(workspace, DirectoryWatch.create() if watch else None, sweep_every_s)
        self._start(self._full_scan(), None)

    def _setup(self, workspace: Workspace, watch: DirectoryWatch | None, sweep_every_s: float) -> None:
        """Every field a check has, as a fresh one starts it (:meth:`renewed` starts one here too)."""
        self.workspace = workspace
        self._watch = watch
        self._sweep_every_s = sweep_every_s
        self._sweep_s = sweep_every_s
        self._scanned_at = time.monotonic()
        self.rescans = 0
        """Full scans made (the first included)."""
        self.updates = 0
        """Checks answered by re-reading only the entries events named."""
        self.restats = 0
        """Sweeps answered by a stat of every known store file, without listing a folder (see :func:`~synapse_server.workspace.mounts.all_local`)."""
        self._stale = False

    def _start(self, kept: _Scan, moved: frozenset[str] | None) -> None:
        self._kept = kept
        self._moved: set[str] = set()
        """Every store file that can have changed since :attr:`value`'s scan: the entries events named, and
        what a later full rescan found different (or too young to vouch for) beside the scan it replaced."""
        self.moved = moved
        """For a renewed check: the files that can have changed between the earlier load's scan and this one's;
        None for a check scanned from nothing (no earlier load to compare with)."""
        self.value = kept.value()
        self.parts: dict[str, str] = kept.parts()
        """A digest per store folder (its path), and the config's and git HEAD's, as of :attr:`value`."""

    @property
    def watched(self) -> bool:
        """True while changes are detected from the event queue (False: every check rescans)."""
        return self._watch is not None and self._watch.trusted

    def current(self) -> bool:
        """True if the store files still match :attr:`value`; a check that matches keeps it current."""
        if self._stale:
            return False  # once moved, stays moved: a failed reload must not make the old load current again
        git = _git_head(self.workspace.code_dir)
        events = self._watch.events() if self._watch is not None else None
        sweep = time.monotonic() - self._scanned_at >= self._sweep_s
        if (
            events is None
            or (sweep and not self._kept.local)
            or any(_stamp(path) != stamp for path, stamp in self._kept.watched_links().items())
            or not self._apply(events, git)
        ):
            earlier, self._kept = self._kept, self._full_scan(git)
            self._moved |= earlier.moved_in(self._kept)
        elif sweep:
            self._restat()
        self._stale = self._kept.value() != self.value
        return not self._stale

    def renewed(self, workspace: Workspace) -> Freshness:
        """The check for a reload after this one went stale, fingerprinted by the check that saw the change.

        It takes over the watch and the scan (so a reload pays no second scan: the scan was made before the
        reload, and a write after it queues an event for the next check); this one is closed. Where the
        workspace now names other store folders, or this one is still current, the new check scans afresh.
        """
        if not self._stale or _dirs(workspace) != _dirs(self.workspace) or workspace.root != self.workspace.root:
            renewed = Freshness(workspace, watch=self._watch is not None, sweep_every_s=self._sweep_every_s)
            self.close()
            return renewed
        renewed = Freshness.__new__(Freshness)
        renewed._setup(workspace, self._watch, self._sweep_every_s)
        self._watch = None  # the watch is the renewed check's now: closing this one leaves it open
        renewed._sweep_s, renewed._scanned_at = self._sweep_s, self._scanned_at
        renewed.rescans, renewed.updates, renewed.restats = self.rescans, self.updates, self.restats
        renewed._start(self._kept, frozenset(self._moved))
        return renewed

    @property
    def vouch(self) -> Unmoved | None:
        """What this renewed check can vouch for: the store files and folders no event touched since the
        earlier load's scan (a parse or listing from that load still holds); None where that is not known."""
        return None if self.moved is None else Unmoved(self.moved, self._kept)

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None

    def _full_scan(self, git: bytes | None = None) -> _Scan:
        self.rescans += 1
        started = time.monotonic()
        scan = _scan_stores(self.workspace, self._watch, git)
        self._scanned_at = time.monotonic()
        self._sweep_s = max(self._sweep_every_s, SWEEP_SHARE * (self._scanned_at - started))
        return scan

    def _restat(self) -> None:
        """The sweep where every store folder is on a local filesystem: a stat of each file the scan holds.

        There every entry created, removed or renamed in a watched folder queues an event; what none reports
        is an edit through another hard link, which moves the file's stamp. So the folders need not be listed
        again, and a file whose stamp moved is re-read as an event would have it.
        """
        self.restats += 1
        started = time.monotonic()
        scan = self._kept
        young = scan.started_ns - SETTLE_NS
        for key, files in scan.files.items():
            for path, stamp in list(files.items()):
                now = _stamp(path)
                if now != stamp or max(stamp[0], stamp[1]) >= young:
                    self._moved.add(path)
                    if now != stamp:
                        scan.reread(os.path.dirname(path), os.path.basename(path), only=key)
        self._scanned_at = time.monotonic()
        self._sweep_s = max(self._sweep_every_s, SWEEP_SHARE * (self._scanned_at - started))

    def _apply(self, events: list[tuple[Path, str, int]], git: bytes) -> bool:
        """Update the kept scan from the entries the events name; False where only a full rescan can tell."""
        scan = self._kept
        config_folder = os.fspath(self.workspace.root / CONFIG_RELPATH.parent)
        for folder, name, mask in events:
            key = os.fspath(folder)
            if key == config_folder:
                scan.config = _config_key(self.workspace.root)
                if key not in scan.folders:
                    continue
            if not name or mask & IN_ISDIR or key not in scan.folders:
                return False  # a folder made, moved or gone, or an event above a store: rescan
            self._moved.add(os.path.join(key, name))
            if not scan.reread(key, name):
                return False
        scan.git = git
        if events:
            self.updates += 1
        return True


class Unmoved:
    """The store files and folders no event named between two scans (see :attr:`Freshness.vouch`).

    Only what the scan holds is vouched for: a path spelled otherwise than the scan spells it, or outside
    every store folder, is never vouched for, so a caller that does not find it reads it again.
    """

    def __init__(self, moved: frozenset[str], scan: _Scan) -> None:
        self._moved = moved
        self._in: dict[str, set[str]] = {}
        for path in moved:
            self._in.setdefault(os.path.dirname(path), set()).add(path)
        self._scan = scan
        self._held = set().union(*scan.files.values())

    def file(self, path: str) -> bool:
        return path in self._held and path not in self._moved

    def folder(self, path: str) -> bool:
        """No entry in it was created, removed, renamed or edited (a folder event forces a full rescan)."""
        return path not in self._in and path not in self._moved and path in self._scan.folders

    def edited(self, folder: str) -> frozenset[str] | None:
        """The files in ``folder`` an event named; None unless the scan listed and watched all of it."""
        feeds = self._scan.folders.get(folder)
        if not feeds or any(name is not None for name in feeds.values()) or folder in self._moved:
            return None
        return frozenset(self._in.get(folder, ()))


class _Scan:
    """What one scan saw, kept so that an event can update it: each store folder's files, stamps and digest.

    A store folder's digest is the sum (mod 2**64) of one hash per (path, stamp): the order of a listing
    does not matter, and a file that changes leaves the sum and joins it again in constant time, so an
    updated scan and a fresh one of the same files agree exactly.
    """

    def __init__(self) -> None:
        self.started_ns = time.time_ns()
        """Wall-clock time the scan began: a stamp at or after it (less a tick) cannot vouch for content."""
        self.config = ""
        self.git = b""
        self.order: list[str] = []
        """Each store folder's key, in the workspace's order (a folder listed twice appears twice)."""
        self.files: dict[str, dict[str, _Stamp]] = {}
        self.sums: dict[str, int] = {}
        self.folders: dict[str, dict[str, str | None]] = {}
        """Every folder listed -> the store folders it feeds, each with the one name it holds (a single adopted
        file) or None (every entry)."""
        self.linked: dict[str, _Stamp] = {}
        self.local = False
        """Every store folder is on a local filesystem, where the kernel reports every entry made or removed."""

    def value(self) -> str:
        digest = hashlib.blake2b(digest_size=16)
        digest.update(self.config.encode())
        for key in self.order:
            digest.update(b"\0dir\0" + os.fsencode(key) + b"\0" + self._part(key).encode())
        digest.update(self.git)
        return digest.hexdigest()

    def parts(self) -> dict[str, str]:
        parts = {CONFIG_PART: self.config}
        parts.update((key, self._part(key)) for key in self.order)
        parts[GIT_PART] = hashlib.blake2b(self.git, digest_size=16).hexdigest()
        return parts

    def watched_links(self) -> dict[str, _Stamp]:
        """The files with other hard links a check stats (none beyond :data:`LINKED_MAX`: the sweep covers them)."""
        return self.linked if len(self.linked) <= LINKED_MAX else {}

    def moved_in(self, later: _Scan) -> set[str]:
        """The files whose stamps differ between this scan and a ``later`` one, or that only one holds, and
        every file of ``later`` stamped within :data:`SETTLE_NS` before this scan began or after it (a write in
        the tick this scan read it in can leave its stamp unchanged: git's racily clean entries)."""
        young = self.started_ns - SETTLE_NS
        moved: set[str] = set()
        for key, files in later.files.items():
            before = self.files.get(key, {})
            moved.update(path for path in before.keys() - files.keys())
            for path, stamp in files.items():
                if before.get(path) != stamp or max(stamp[0], stamp[1]) >= young:
                    moved.add(path)
        for key in self.files.keys() - later.files.keys():
            moved.update(self.files[key])
        return moved

    def add(self, key: str, path: str, st: os.stat_result) -> None:
        stamp = _stamp_of(st)
        self.files[key][path] = stamp
        self.sums[key] = (self.sums[key] + _line_hash(path, stamp)) % _MOD
        if st.st_nlink > 1:
            self.linked[path] = stamp

    def reread(self, folder: str, name: str, only: str | None = None) -> bool:
        """Stat one entry an event named and update every store folder it feeds (or ``only`` that one);
        False if it is a folder now."""
        path = os.path.join(folder, name)
        st: os.stat_result | None
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                return False
            st = os.stat(path)  # a symlink's target, as the full scan reads it
        except OSError:
            st = None
        for key, single in self.folders.get(folder, {}).items():
            if (single is not None and single != name) or (only is not None and key != only):
                continue
            old = self.files[key].pop(path, None)
            self.linked.pop(path, None)
            if old is not None:
                self.sums[key] = (self.sums[key] - _line_hash(path, old)) % _MOD
            if st is not None:
                self.add(key, path, st)
        return True

    def _part(self, key: str) -> str:
        return f"{self.sums[key]:016x}.{len(self.files[key])}"


def fingerprint(workspace: Workspace, watch: DirectoryWatch | None = None, git: bytes | None = None) -> str:
    """A digest of what the stores are built from: every store file's name, stat stamp, plus the git HEAD."""
    return _scan_stores(workspace, watch, git).value()


def changed_parts(before: Mapping[str, str], after: Mapping[str, str]) -> frozenset[str]:
    """The keys of :attr:`Freshness.parts` whose digest differs between two scans (or that only one has)."""
    return frozenset(key for key in before.keys() | after.keys() if before.get(key) != after.get(key))


def _dirs(workspace: Workspace) -> list[Path]:
    """The store folders (or single adopted files) a fingerprint covers, in order."""
    dirs = [workspace.memory_dir, workspace.zettelkasten_dir, workspace.runs_dir, *workspace.federation_dirs.values()]
    # Folders (or single files) adopted in place as sources, where the workspace declares any.
    return dirs + [Path(p) for p in getattr(workspace, "source_dirs", ())]


def _scan_stores(workspace: Workspace, watch: DirectoryWatch | None, git: bytes | None) -> _Scan:
    """Every store file's stamp, per store folder, with the config's stamp and git HEAD; each folder is watched
    before it is listed."""
    scan = _Scan()
    root = workspace.root
    if watch is not None:
        watch.add([root], ENTRIES)
        watch.add([root / CONFIG_RELPATH.parent], CONTENT)
    scan.config = _config_key(root)
    for directory in _dirs(workspace):
        if watch is not None:
            watch.add(_ancestors(directory, root), ENTRIES)
        key = os.fspath(directory)
        scan.order.append(key)
        if key in scan.files:
            continue  # a folder listed twice: one listing serves both
        files: dict[str, _Stamp] = {}
        total = 0
        for path, st in _walk(directory, watch, scan.folders, key):  # _Scan.add, inlined: 100k times a scan
            stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
            files[path] = stamp
            total += hash((path, stamp))
            if st.st_nlink > 1:
                scan.linked[path] = stamp
        scan.files[key], scan.sums[key] = files, total % _MOD
    scan.git = _git_head(workspace.code_dir) if git is None else git
    scan.local = watch is not None and all_local([root, *_dirs(workspace)])
    return scan


def _line_hash(path: str, stamp: _Stamp) -> int:
    """One file's share of its folder's digest: Python's own hash (salted per process, and a fingerprint never
    leaves the process that made it), a fifth of what a cryptographic digest per file cost a 100k scan."""
    return hash((path, stamp)) % _MOD


def _stamp_of(st: os.stat_result) -> _Stamp:
    """What a change to a file's content moves: mtime, ctime (which no ``touch`` can set back), size, inode."""
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _stamp(path: str) -> _Stamp | None:
    try:
        return _stamp_of(os.stat(path))
    except OSError:
        return None


def _walk(
    top: Path, watch: DirectoryWatch | None, folders: dict[str, dict[str, str | None]], key: str
) -> Iterator[tuple[str, os.stat_result]]:
    """Every file under ``top`` (symlinked folders not followed), each folder watched before it is listed and
    noted in ``folders`` as feeding ``key``."""
    if top.is_file():  # a single adopted file: its folder's events cover it
        if watch is not None:
            watch.add([top.parent], CONTENT)
        folders.setdefault(os.fspath(top.parent), {})[key] = top.name
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
                entries = list(it)
        except OSError:
            continue
        folders.setdefault(folder, {})[key] = None
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    continue
                st = os.stat(entry.path)
            except OSError:
                continue
            yield entry.path, st


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
