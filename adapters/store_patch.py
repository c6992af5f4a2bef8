"""A store folder's earlier read, patched at the files an event named instead of read file by file again.

At 100k files even a reload that reuses every parse (:class:`~adapters.file_memo.FileMemo`) costs a lookup,
a vouch and a merge step per file: a third of a second for one edited note. A store that keeps what its
last read of a folder made (per file, in listing order) can do better when the freshness check says which
files an event named (:meth:`FileMemo.edited_in`): with the listing unchanged, every other file reads as
it did, so only the named ones are parsed again and put in their places. The store decides whether a new
parse fits in place (same address, same file, nothing another file's node depends on); where it does not,
or where too much moved, it reads every file as before. Either way the result is what a full load gives.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from adapters.file_memo import FileMemo

T = TypeVar("T")

PATCH_MAX = 64
"""Files named by events above which a folder is read whole again (the patch would save little)."""


@dataclass(frozen=True, slots=True)
class FolderRead:
    """Which files one read of a folder went through, in listing order, and which of their parses the memo
    did not keep (a stamp too young to vouch for: read again next time, whatever the events say)."""

    listing: Sequence[Path]
    keys: tuple[str, ...]
    position: dict[str, int]
    unkept: frozenset[int]

    @classmethod
    def of(cls, listing: Sequence[Path], keys: tuple[str, ...], memo: FileMemo) -> FolderRead:
        """The read just made of ``listing`` (``keys``: each path as the memo keys it)."""
        unkept = frozenset(at for at, key in enumerate(keys) if not memo.kept(key))
        return cls(listing, keys, {key: at for at, key in enumerate(keys)}, unkept)

    def again(self, listing: Sequence[Path], reread: Sequence[int], memo: FileMemo) -> FolderRead:
        """This read carried to the next load, in which the files at ``reread`` were parsed again."""
        unkept = (self.unkept - set(reread)) | {at for at in reread if not memo.kept(self.keys[at])}
        return FolderRead(listing, self.keys, self.position, frozenset(unkept))


def rereads(memo: FileMemo, folder: Path, earlier: FolderRead | None, listing: Sequence[Path]) -> list[int] | None:
    """The positions in ``listing`` to parse again for a patch of ``earlier``, or None to read every file.

    A patch needs the same listing as the earlier read (an entry created, removed or renamed changes it) and
    a freshness check that watched the whole folder; then the files an event named, and those whose parse
    was not kept, are all that can read differently.
    """
    if earlier is None or (earlier.listing is not listing and list(earlier.listing) != list(listing)):
        return None
    edited = memo.edited_in(folder)
    if edited is None:
        return None
    reread = {earlier.position[key] for key in edited if key in earlier.position} | earlier.unkept
    return sorted(reread) if len(reread) <= PATCH_MAX else None


def keys_of(listing: Sequence[Path]) -> tuple[str, ...]:
    """Each path as :class:`FileMemo` keys it."""
    return tuple(map(os.fspath, listing))


def each_parse(
    memo: FileMemo,
    listing: Sequence[Path],
    keys: Sequence[str],
    parse: Callable[[Path], T],
    parsed: Mapping[str, T],
) -> Iterator[T]:
    """Each file's parse in listing order: the one an abandoned patch already made (``parsed``), else the memo's."""
    for path, key in zip(listing, keys, strict=True):
        value = parsed.get(key) if parsed else None
        yield value if value is not None else memo.parse(path, partial(parse, path))
