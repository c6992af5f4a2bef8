"""The envelope of an OUTPUT text: the optional markdown fence and the header.

A model often wraps its artifact in a code fence. The parser unwraps exactly
one clean fence (an opening run of three or more backticks, optionally
followed by ``memdsl``, and a closing line that is the identical run) with
only blank lines outside it. Everything else fails closed: a preamble, an
epilogue, a fence left open, a closing run of another length, a second fence.
Nothing un-delimited is ever trimmed, so a dropped line can never be silently
skipped over and change which claim becomes the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdsl._cursor import split_lines
from memdsl._output_lexicon import check_chars
from memdsl.errors import fail

HEADERS = {"@memdsl.out/1": 1, "@memdsl.out/2": 2}
"""The exact OUTPUT headers and the version each announces."""

_OPENING = re.compile(r"(`{3,})(memdsl)?")
_OTHER_DIRECTION = re.compile(r"@memdsl(?:\.resp)?/[0-9]+")
_OTHER_VERSION = re.compile(r"@memdsl\.out/[0-9]+")

Line = tuple[int, str]
"""A non-blank physical line with its 1-based number in the original text."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """What is inside the fence and after the header: the version and the non-blank body lines."""

    version: int
    header_line: int
    body: list[Line]


def is_blank(line: str) -> bool:
    """Blank lines (empty or spaces only) carry nothing and are ignored between structural lines."""
    return not line.strip(" ")


def open_envelope(text: str) -> Envelope:
    """Unwrap the optional fence, check the header, and return the numbered non-blank body lines."""
    lines = split_lines(text)
    for number, line in enumerate(lines, 1):
        check_chars(line, number)
    numbered = [(number, line) for number, line in enumerate(lines, 1) if not is_blank(line)]
    if not numbered:
        raise fail("output.header", "the text is empty: an OUTPUT starts with @memdsl.out/2", 1, 1)
    if numbered[0][1].lstrip(" ").startswith("`"):
        numbered = _unfence(numbered)
        if not numbered:
            raise fail("output.header", "the fence is empty: an OUTPUT starts with @memdsl.out/2", 1, 1)
    header_no, header = numbered[0]
    return Envelope(_version(header, header_no), header_no, numbered[1:])


def _unfence(numbered: list[Line]) -> list[Line]:
    """The lines strictly inside one exactly matched fence; anything else is an error."""
    open_no, opening = numbered[0]
    match = _OPENING.fullmatch(opening)
    if match is None:
        raise fail("fence.open", "a fence opens with ``` or ```memdsl alone on its line", open_no, 1)
    run = match.group(1)
    for index in range(1, len(numbered)):
        number, line = numbered[index]
        if not line.lstrip(" ").startswith("`"):
            continue
        if line != run:
            raise fail("fence.mismatch", f"fence line {line!r} does not close the opening {run!r}", number, 1)
        if index + 1 < len(numbered):
            raise fail(
                "fence.outside", "nothing but blank lines may follow the closing fence", numbered[index + 1][0], 1
            )
        return numbered[1:index]
    raise fail("fence.unclosed", f"the fence opened with {run!r} is never closed", open_no, 1)


def _version(header: str, number: int) -> int:
    """The version an exact header announces; other directions are refused as an injection boundary."""
    version = HEADERS.get(header)
    if version is not None:
        return version
    if _OTHER_DIRECTION.fullmatch(header):
        raise fail("output.wrong_direction", f"{header} is not an OUTPUT header; directions never mix", number, 1)
    if _OTHER_VERSION.fullmatch(header):
        raise fail("output.version", f"unknown OUTPUT version {header!r} (expected /1 or /2)", number, 1)
    if header.lstrip(" ").lower().startswith("@memdsl"):
        raise fail("output.header", f"malformed header {header!r}: exactly @memdsl.out/2 expected", number, 1)
    raise fail("output.preamble", "text before the header: the first non-blank line must be @memdsl.out/2", number, 1)
