"""What one load of a store made of each file, kept for the next load, so an edit costs one file's parse.

A server or the navigate template reloads a store after any of its files
changes. Parsing every file again made that reload cost the whole store
(seconds at 100k nodes) for one edited line. A :class:`FileMemo` remembers
each file's parse under the file's stat stamp (mtime, ctime, size, inode -
exactly what :mod:`synapse_server.workspace.freshness` watches), and the next
load, handed the earlier memo, parses again only the files whose stamp moved.

The stamp is taken *before* the file is read: a write racing the read leaves a
stamp older than the content, which the next load sees as moved and parses
again, never the reverse. A file that cannot be stat-ed is parsed and not kept.

Only a parse that depends on nothing but its own file's bytes (and the store's
fixed settings) may be memoised; a record whose meaning reads another file
(a zettelkasten source and its cached text) is parsed every time.

:meth:`FileMemo.derive` keeps values computed from several parses (a memory
entry's node needs its children, found across files): the value is reused
while its inputs are the same objects or equal values.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["FileMemo"]

T = TypeVar("T")
_Stamp = tuple[int, int, int, int]


class FileMemo:
    """One load's parses by file (and derived values by key), read from the earlier load's memo."""

    __slots__ = ("_derived", "_earlier_derived", "_earlier_files", "_files", "hits", "parsed")

    def __init__(self, earlier: FileMemo | None = None) -> None:
        self._earlier_files: dict[str, tuple[_Stamp, Any]] = {} if earlier is None else earlier._files
        self._earlier_derived: dict[Hashable, tuple[tuple[Any, ...], Any]] = {} if earlier is None else earlier._derived
        if earlier is not None:  # the earlier memo's own predecessor is never read again: let it go
            earlier._earlier_files, earlier._earlier_derived = {}, {}
        self._files: dict[str, tuple[_Stamp, Any]] = {}
        self._derived: dict[Hashable, tuple[tuple[Any, ...], Any]] = {}
        self.hits = 0
        self.parsed = 0

    def parse(self, path: Path, parse: Callable[[], T]) -> T:
        """``parse()``'s result for ``path``: the earlier load's while the file's stamp is unchanged."""
        key = os.fspath(path)
        try:
            st = os.stat(key)
        except OSError:
            self.parsed += 1
            return parse()  # the parse reports what is wrong with it; nothing is kept
        stamp = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        earlier = self._earlier_files.get(key)
        if earlier is not None and earlier[0] == stamp:
            value: T = earlier[1]
            self.hits += 1
        else:
            value = parse()
            self.parsed += 1
        self._files[key] = (stamp, value)
        return value

    def derive(self, key: Hashable, inputs: tuple[Any, ...], build: Callable[[], T]) -> T:
        """``build()``'s result, reused from the earlier load while ``inputs`` are the same (``is`` or ``==``)."""
        earlier = self._earlier_derived.get(key)
        value: T = earlier[1] if earlier is not None and earlier[0] == inputs else build()
        self._derived[key] = (inputs, value)
        return value

    def __len__(self) -> int:
        return len(self._files)
