"""What one load of a store made of each file, kept for the next load, so an edit costs one file's parse.

A server or the navigate template reloads a store after any of its files
changes. Parsing every file again made that reload cost the whole store
(seconds at 100k nodes) for one edited line. A :class:`FileMemo` remembers
each file's parse under the file's stat stamp (mtime, ctime, size, inode -
exactly what :mod:`synapse_server.workspace.freshness` watches), and the next
load, handed the earlier memo, parses again only the files whose stamp moved.
Where the freshness check can :class:`Vouch` for a file (no inotify event named
it since the earlier load's scan) its parse is reused without even a stat: at
100k files the stats alone cost a reload most of a second.

The stamp is taken *before* the file is read: a write racing the read leaves a
stamp older than the content, which the next load sees as moved and parses
again, never the reverse. A file that cannot be stat-ed is parsed and not kept,
and so is one whose stamp is younger than :data:`SETTLE_NS` (a second write in
the same timestamp tick could leave its stamp unchanged). Folder listings are
kept the same way, by the folder's stamp, which an entry created, removed or
renamed in it moves.

A parse may depend only on its own file's bytes, the store's fixed settings
and the other files it names through ``reads`` (a zettelkasten source record
checks that its cached text exists inside the store): any of those moving
means the file is parsed again.

:meth:`FileMemo.derive` keeps values computed from several parses (a memory
entry's node needs its children, found across files): the value is reused
while its inputs are the same objects or equal values.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Hashable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from adapters.paths import Listing

__all__ = ["FileMemo", "Vouch"]

T = TypeVar("T")
_Stamp = tuple[int, int, int, int]
_Kept = tuple[_Stamp, Any, tuple[tuple[str, "_Stamp | None"], ...]]
"""A file's stamp, its parse, and the other files that parse read with their stamps (None: absent)."""


SETTLE_NS = 2_000_000_000
"""A stamp younger than this (2 s) is not kept: a second write in the same timestamp tick could leave it unchanged.

Filesystem timestamps advance in ticks (a few ms on a local disk, up to 2 s elsewhere). A file (or folder)
written again within the tick it was read in can keep its stamp, so, as git does with racily clean entries,
only stamps older than the tick can vouch for content; a fresh one is read again next time, at one file's cost.
"""


def _settled(stamp: _Stamp) -> bool:
    return max(stamp[0], stamp[1]) < time.time_ns() - SETTLE_NS


def _stamp(path: str) -> _Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


class Vouch(Protocol):
    """Which files and folders are known unchanged since the earlier load (from the freshness check's events).

    A file it vouches for reuses the earlier parse without a stat; where it says False the stamp decides.
    """

    def file(self, path: str) -> bool: ...

    def folder(self, path: str) -> bool: ...

    def edited(self, folder: str) -> frozenset[str] | None:
        """The files directly in ``folder`` an event named since the earlier scan: every other file in it is
        unchanged. None where the check did not watch the whole folder (then nothing is known)."""
        ...


class FileMemo:
    """One load's parses by file (and derived values by key), read from the earlier load's memo."""

    __slots__ = ("_derived", "_earlier_derived", "_earlier_files", "_files", "_vouch", "hits", "parsed", "unasked")

    def __init__(self, earlier: FileMemo | None = None, vouch: Vouch | None = None) -> None:
        self._earlier_files: dict[str, _Kept] = {} if earlier is None else earlier._files
        self._earlier_derived: dict[Hashable, tuple[tuple[Any, ...], Any]] = {} if earlier is None else earlier._derived
        if earlier is not None:  # the earlier memo's own predecessor is never read again: let it go
            earlier._earlier_files, earlier._earlier_derived = {}, {}
        self._files: dict[str, _Kept] = {}
        self._derived: dict[Hashable, tuple[tuple[Any, ...], Any]] = {}
        self._vouch = vouch
        self.hits = 0
        self.parsed = 0
        self.unasked = 0
        """Of the hits, parses kept by :meth:`reuse_files` (a store that patched its read) without a lookup each."""

    def parse(self, path: Path, parse: Callable[[], T], reads: Callable[[T], Iterable[Path]] | None = None) -> T:
        """``parse()``'s result for ``path``: the earlier load's while the file's stamp is unchanged.

        ``reads`` names the other files a parse's result depends on (a source record's cached text: whether
        it exists, where it resolves); their stamps, or their absence, must be unchanged too.
        """
        key = os.fspath(path)
        earlier = self._earlier_files.get(key)
        if (
            earlier is not None
            and self._vouch is not None
            and self._vouch.file(key)
            and (not earlier[2] or all(_stamp(p) == s for p, s in earlier[2]))
        ):
            self._files[key] = earlier  # no event named it since the earlier load's scan: that parse holds
            self.hits += 1
            kept: T = earlier[1]
            return kept
        stamp = _stamp(key)
        if stamp is None:
            self.parsed += 1
            return parse()  # the parse reports what is wrong with it; nothing is kept
        if earlier is not None and earlier[0] == stamp and all(_stamp(p) == s for p, s in earlier[2]):
            value: T = earlier[1]
            depends = earlier[2]
            self.hits += 1
        else:
            value = parse()
            depends = tuple((os.fspath(p), _stamp(os.fspath(p))) for p in (reads(value) if reads else ()))
            self.parsed += 1
        if _settled(stamp) and all(s is None or _settled(s) for _, s in depends):
            self._files[key] = (stamp, value, depends)
        return value

    def listing(self, directory: Path, scan: Callable[[], Listing]) -> Listing:
        """``scan()``'s listing of ``directory``, reused while the folder's stamp is unchanged.

        A folder's mtime and ctime move when an entry is created, removed or renamed in it, not when a file
        in it is edited. A listing that held a symlink (its target can change while the folder does not) or
        escaped the store is never kept.
        """
        key = "\0listing\0" + os.fspath(directory)
        earlier = self._earlier_files.get(key)
        if earlier is not None and self._vouch is not None and self._vouch.folder(os.fspath(directory)):
            self._files[key] = earlier
            vouched: Listing = earlier[1]
            return vouched
        stamp = _stamp(os.fspath(directory))
        if stamp is not None and earlier is not None and earlier[0] == stamp:
            self._files[key] = earlier
            listed: Listing = earlier[1]
            return listed
        listed = scan()
        if stamp is not None and not listed[2] and _settled(stamp):
            self._files[key] = (stamp, listed, ())
        return listed

    def edited_in(self, folder: Path) -> frozenset[str] | None:
        """What :meth:`Vouch.edited` says of ``folder``; None without a vouch. For a store that patches its
        earlier result: with its listing unchanged, only these files can read differently."""
        return None if self._vouch is None else self._vouch.edited(os.fspath(folder))

    def reuse_files(self, keys: Iterable[str], but: Collection[str] = ()) -> None:
        """Keep the earlier parses of ``keys`` (less ``but``) for the next load, unread: the caller knows the
        files unchanged (:meth:`edited_in`) and patches its result instead of asking file by file."""
        earlier = self._earlier_files
        kept = {key: earlier[key] for key in keys if key in earlier}
        for key in but:
            kept.pop(key, None)
        self._files.update(kept)
        self.hits += len(kept)
        self.unasked += len(kept)

    def reuse_derived(self, keys: Iterable[Hashable], but: Collection[Hashable] = ()) -> None:
        """Keep the earlier :meth:`derive` values of ``keys`` (less ``but``) for the next load, as they are."""
        earlier = self._earlier_derived
        kept = {key: earlier[key] for key in keys if key in earlier}
        for key in but:
            kept.pop(key, None)
        self._derived.update(kept)

    def kept(self, key: str) -> bool:
        """Whether this load keeps a parse of ``key`` for the next (a stamp too young to vouch for is not kept)."""
        return key in self._files

    def carried(self, key: Hashable) -> Any:
        """What the earlier load :meth:`carry`-ed under ``key`` (a store's own record of its read), or None."""
        earlier = self._earlier_derived.get(("\0carried", key))
        return None if earlier is None else earlier[1]

    def carry(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` for the next load's :meth:`carried`."""
        self._derived[("\0carried", key)] = ((), value)

    def derive(self, key: Hashable, inputs: tuple[Any, ...], build: Callable[[], T]) -> T:
        """``build()``'s result, reused from the earlier load while ``inputs`` are the same (``is`` or ``==``)."""
        earlier = self._earlier_derived.get(key)
        value: T = earlier[1] if earlier is not None and earlier[0] == inputs else build()
        self._derived[key] = (inputs, value)
        return value

    def __len__(self) -> int:
        """How many files' parses this memo holds (folder listings are not counted)."""
        return sum(1 for key in self._files if not key.startswith("\0"))
