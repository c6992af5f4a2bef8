"""Canonical addresses built and checked through the one grammar in :mod:`memdsl.address`.

Adapters never format ``store:source:id`` by hand: an id written in a store
file may hold a separator (``:``, ``,``, braces, whitespace) and must be
refused as ``bad-id`` rather than produce an address the protocol cannot
parse back.
"""

from __future__ import annotations

from memdsl.address import Address, format_address, parse_address
from memdsl.errors import MemDSLParseError


class BadAddress(ValueError):
    """An id or address that breaks the canonical address grammar."""


def make_address(store: str, source: str, ident: str) -> str:
    """``store:source:ident`` as canonical text; raises :class:`BadAddress` for an illegal segment."""
    try:
        return format_address(Address(store, source, ident))
    except MemDSLParseError as exc:
        raise BadAddress(exc.message) from None


def check_address(text: str) -> Address:
    """Parse an address written in a store file (``cites:``, ``links: to``); raises :class:`BadAddress`."""
    try:
        return parse_address(text)
    except MemDSLParseError as exc:
        raise BadAddress(exc.message) from None


def check_id(ident: str) -> str:
    """An id usable as the last address segment; raises :class:`BadAddress` otherwise."""
    make_address("x", "x", ident)
    return ident


def check_file_id(ident: str) -> str:
    """An id that is also a file name (a memory entry's ``<id>.md``): no path separator, no ``.``/``..``.

    Code ids may hold slashes (``repo:demo:models/costs.py``); an entry id may
    not, because ``../../../etc/passwd`` would be an id that names a path
    outside its store. Raises :class:`BadAddress`.
    """
    if "/" in ident or "\\" in ident:
        raise BadAddress(f"id {ident!r} holds a path separator; an entry id is a plain file name")
    if ident in (".", ".."):
        raise BadAddress(f"id {ident!r} is a path segment, not a name")
    return check_id(ident)
