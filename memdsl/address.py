"""Canonical addresses: ``store:source:id{locator}``.

Every substrate node has exactly one address. The locator is optional and
carries a half-open character span ``#start-end``, an as-of stamp ``@stamp``,
or both (``#0-40@2026-01-01``). Segments are non-empty and never contain the
structural separators ``:`` ``{`` ``}`` ``,`` or whitespace; dots are legal, so
a code symbol or a schema column needs no special shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdsl.errors import MemDSLParseError, fail

RESERVED_STORES = frozenset({"session", "work"})
"""Reserved for future mutable working state: parsed, never emitted by navigation."""

_FORBIDDEN = re.compile(r"[:{},\s]")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
"""Control characters (C0, DEL, C1) are never part of an address: echoed to a terminal they are escape sequences."""
_STAMP_FORBIDDEN = re.compile(r"[{},#@\s]")
_SPAN = re.compile(r"#(0|[1-9][0-9]{0,14})-(0|[1-9][0-9]{0,14})")
"""Offsets are bounded (15 digits) so a hostile span cannot cost a huge int conversion."""


@dataclass(frozen=True, order=True, slots=True)
class Locator:
    """A half-open ``[start, end)`` character span, an as-of stamp, or both."""

    start: int | None = None
    end: int | None = None
    as_of: str | None = None

    def __post_init__(self) -> None:
        if (self.start is None) != (self.end is None):
            raise fail("address.span", "a span needs both start and end")
        if self.start is not None and self.end is not None and (self.start < 0 or self.end <= self.start):
            raise fail("address.span", f"span #{self.start}-{self.end} is not half-open (0 <= start < end)")
        if self.as_of is not None and (
            not self.as_of or _STAMP_FORBIDDEN.search(self.as_of) or _CONTROL.search(self.as_of)
        ):
            raise fail("address.stamp", f"as-of stamp {self.as_of!r} is empty or holds a separator")
        if self.start is None and self.as_of is None:
            raise fail("address.locator", "an empty locator is not allowed; omit it instead")

    @property
    def has_span(self) -> bool:
        return self.start is not None


@dataclass(frozen=True, order=True, slots=True)
class Address:
    """``store:source:id`` plus an optional :class:`Locator`."""

    store: str
    source: str
    id: str
    locator: Locator | None = None

    def __post_init__(self) -> None:
        for name in ("store", "source", "id"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise fail("address.segment", f"address {name} must be a non-empty string")
            bad = _FORBIDDEN.search(value)
            if bad:
                raise fail("address.separator", f"address {name} {value!r} contains separator {bad.group()!r}")
            if _CONTROL.search(value):
                raise fail("address.control", f"address {name} contains a control character")

    @property
    def reserved(self) -> bool:
        """True for the ``session``/``work`` stores that shipped navigation never emits."""
        return self.store in RESERVED_STORES

    def without_locator(self) -> Address:
        return Address(self.store, self.source, self.id)

    def __str__(self) -> str:
        return format_address(self)


def format_address(address: Address) -> str:
    """The canonical text of an address; ``parse_address(format_address(a)) == a``."""
    text = f"{address.store}:{address.source}:{address.id}"
    loc = address.locator
    if loc is None:
        return text
    inner = ""
    if loc.start is not None:
        inner += f"#{loc.start}-{loc.end}"
    if loc.as_of is not None:
        inner += f"@{loc.as_of}"
    return text + "{" + inner + "}"


def parse_address(text: str, line: int = 1, column: int = 1) -> Address:
    """Parse one canonical address; position arguments place errors inside a larger text."""
    if not isinstance(text, str) or not text:
        raise fail("address.empty", "address is empty", line, column)
    body, locator = text, None
    brace = text.find("{")
    if brace != -1:
        if not text.endswith("}") or text.count("{") != 1 or text.count("}") != 1:
            raise fail("address.locator", f"malformed locator in {text!r}", line, column + brace)
        body, locator = text[:brace], _parse_locator(text[brace + 1 : -1], line, column + brace)
    elif "}" in text:
        raise fail("address.locator", f"stray '}}' in {text!r}", line, column + text.index("}"))
    parts = body.split(":")
    if len(parts) != 3:
        raise fail("address.arity", f"address {text!r} needs exactly store:source:id", line, column)
    offset = 0
    for part in parts:
        if not part:
            raise fail("address.segment", f"empty segment in address {text!r}", line, column + offset)
        bad = _FORBIDDEN.search(part)
        if bad:
            raise fail(
                "address.separator",
                f"separator {bad.group()!r} in address {text!r}",
                line,
                column + offset + bad.start(),
            )
        control = _CONTROL.search(part)
        if control:
            raise fail("address.control", "control character in address", line, column + offset + control.start())
        offset += len(part) + 1
    return Address(parts[0], parts[1], parts[2], locator)


def _parse_locator(inner: str, line: int, column: int) -> Locator:
    start = end = None
    rest = inner
    if rest.startswith("#"):
        match = _SPAN.match(rest)
        if match is None:
            raise fail("address.span", f"malformed span in locator {{{inner}}}", line, column)
        start, end = int(match.group(1)), int(match.group(2))
        rest = rest[match.end() :]
    as_of = None
    if rest:
        if not rest.startswith("@"):
            raise fail("address.locator", f"unexpected {rest!r} in locator {{{inner}}}", line, column)
        as_of = rest[1:]
    try:
        return Locator(start, end, as_of)
    except MemDSLParseError as exc:  # re-stamp the position of a Locator rule violation
        raise fail(exc.code, exc.message, line, column) from None
