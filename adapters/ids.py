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
