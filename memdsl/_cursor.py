"""A line cursor shared by the RENDER and ACTION-RESPONSE parsers.

The grammar is line-oriented, so the parsers walk physical lines rather than
characters. The cursor owns the two text-level rules every direction shares
(no carriage return anywhere; one optional missing final newline is tolerated)
and stamps every error with the 1-based line it was found on, so no parse
function ever computes a position by hand.
"""

from __future__ import annotations

import re

from memdsl.errors import MemDSLParseError, fail


def split_lines(text: str) -> list[str]:
    """Physical lines of ``text``; only ``\\n`` separates lines, every other character is data.

    A text may omit its final newline (transports and editors often strip it);
    the canonical form always has exactly one. A ``\\r`` anywhere is rejected
    so a CRLF text can never parse as something subtly different.
    """
    if not isinstance(text, str):
        raise TypeError(f"a MemDSL text must be str, not {type(text).__name__}")
    cr = text.find("\r")
    if cr != -1:
        line = text.count("\n", 0, cr) + 1
        column = cr - (text.rfind("\n", 0, cr) + 1) + 1
        raise fail("text.carriage_return", "a MemDSL text never contains '\\r'", line, column)
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


class Cursor:
    """Walks the lines of one text; ``line_no`` is the 1-based number of the current line."""

    __slots__ = ("_index", "_lines")

    def __init__(self, text: str) -> None:
        self._lines = split_lines(text)
        self._index = 0

    @property
    def line_no(self) -> int:
        return self._index + 1

    def at_end(self) -> bool:
        return self._index >= len(self._lines)

    def peek(self) -> str | None:
        """The current line, or ``None`` at the end of the text."""
        return None if self.at_end() else self._lines[self._index]

    def advance(self) -> str:
        """Consume and return the current line (callers check ``at_end`` first)."""
        line = self._lines[self._index]
        self._index += 1
        return line

    def error(self, code: str, message: str, column: int = 1, line: int | None = None) -> MemDSLParseError:
        """An error at ``column`` of the current line (or of an explicit earlier ``line``)."""
        return fail(code, message, self.line_no if line is None else line, column)


def keyword(line: str) -> str:
    """The structural keyword of a line: everything before its first space."""
    return line.split(" ", 1)[0]


def tokens(cur: Cursor, line: str) -> list[tuple[str, int]]:
    """Split a tokenized structural line on single spaces, with each token's 1-based column.

    Tokenized lines are canonical: one space between tokens, none leading or
    trailing. Anything else is ``line.spacing`` rather than a silent normalisation.
    """
    out: list[tuple[str, int]] = []
    column = 1
    for token in line.split(" "):
        if not token:  # point at the surplus space itself, even when it is the last character
            raise cur.error(
                "line.spacing", "structural tokens are separated by exactly one space", min(column, len(line))
            )
        out.append((token, column))
        column += len(token) + 1
    if line[-1].isspace():
        raise cur.error("line.spacing", "a structural line has no trailing whitespace", len(line))
    return out


def items(text: str, column: int) -> list[tuple[str, int]]:
    """Split a ``, ``-separated list that starts at ``column``; each item keeps its column."""
    out: list[tuple[str, int]] = []
    for item in text.split(", "):
        out.append((item, column))
        column += len(item) + 2
    return out


_HEADER = re.compile(r"@memdsl(?:\.([a-z]+))?/([0-9]+)")


def expect_header(cur: Cursor, header: str, prefix: str) -> None:
    """Consume the exact direction header on line 1, or name what stood there instead.

    Another direction's header is ``<prefix>.wrong_direction`` (the injection
    boundary), an unsupported version of this direction ``<prefix>.version``,
    anything else ``<prefix>.header``. Nothing may precede the header.
    """
    line = cur.peek() or ""
    if line == header:
        cur.advance()
        return
    wanted = _HEADER.fullmatch(header)
    found = _HEADER.fullmatch(line)
    if found is None or wanted is None:
        raise cur.error(f"{prefix}.header", f"line 1 must be exactly {header!r}")
    if found.group(1) != wanted.group(1):
        raise cur.error(f"{prefix}.wrong_direction", f"{line!r} is another direction's header; expected {header!r}")
    raise cur.error(f"{prefix}.version", f"unsupported version {line!r}; this parser reads {header!r}")
