"""Canonical addresses built and checked through the one grammar in :mod:`memdsl.address`.

Adapters never format ``store:source:id`` by hand. An id written *in* a store
file (a memory entry's ``id:``, a cited address) may hold a separator (``:``,
``,``, braces, whitespace) and is refused as ``bad-id`` rather than produce an
address the protocol cannot parse back.

An id made *from* a file name is different: ``notes/Über Notizen.md`` or
``My Notes/a b.md`` is a real file a user keeps, and refusing it drops the
file. :func:`encode_id` is the one escaping function for such ids: it
percent-encodes exactly the characters an address or a bare protocol ref
cannot hold (``%`` itself, the separators ``:{},``, whitespace, quotes, ``=``,
parentheses, backticks and control or bidi characters), so
``repo:demo:My%20Notes/a%20b.md`` parses as the protocol stands, and
:func:`decode_id` gives the path back exactly. Letters outside ASCII are legal
in an address and stay as they are (``zk:vault:über-notizen``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from memdsl.address import Address, format_address, parse_address
from memdsl.errors import MemDSLParseError

__all__ = [
    "BadAddress",
    "check_address",
    "check_file_id",
    "check_id",
    "decode_id",
    "encode_id",
    "make_address",
    "path_address",
]

_ESCAPED = re.compile(
    r"[%:{},\s\"'`=()\u201c\u201d\u2018\u2019\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
"""What an id made from a name must not hold as written: the address separators and whitespace
(:mod:`memdsl.address`), what a bare ref in the OUTPUT protocol cannot hold (quotes, ``=``, parentheses), control
and bidi characters (refused in every protocol line), and ``%`` so that decoding is exact."""


class BadAddress(ValueError):
    """An id or address that breaks the canonical address grammar."""


def encode_id(text: str) -> str:
    """``text`` with every character an address id cannot hold percent-encoded (UTF-8 bytes, upper-case hex)."""
    return _ESCAPED.sub(_escape, text)


def decode_id(ident: str) -> str:
    """The name an :func:`encode_id` id was made from (``My%20Notes/a%20b.md`` -> ``My Notes/a b.md``)."""
    return unquote(ident, errors="surrogateescape") if "%" in ident else ident


def path_address(store: str, source: str, path: str) -> str:
    """The address of what a name identifies (a repository path, a symbol of a file): ``path`` encoded as the id."""
    return make_address(store, source, encode_id(path))


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


def _escape(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8", "surrogateescape"))
