"""Lexical rules of OUTPUT shared by its parser and its serializer.

Keeping each rule in one function is what makes ``parse(serialize(v)) == v``
hold: the serializer refuses a field with exactly the check the parser would
fail on, under the same code.
"""

from __future__ import annotations

import re

from memdsl.address import parse_address
from memdsl.errors import MemDSLParseError, fail

LOCAL_REF = re.compile(r"n[1-9][0-9]*")
"""A rendered local ref; the same shape RENDER assigns (``n1``, ``n2`` ...)."""
CLAIM_ID = re.compile(r"c[1-9][0-9]*")
"""A claim id: ``c`` + a positive integer, so a claim can never be mistaken for a node ref."""
LABEL = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""An abstention label: one lowercase hyphenated word (``low-coverage``)."""
KWARG_KEY = re.compile(r"[a-z_][a-z0-9_]*")
"""An action keyword argument name."""
BARE_VALUE = re.compile(r"[^\s,\"'`=()\u201c\u201d\u2018\u2019]+")
"""A value that may be written without quotes; anything else is quoted (refs must be bare)."""

SMART_QUOTES = "\u201c\u201d\u2018\u2019"
"""Typographic quotes: legal only in free text after ``::``, never in structure."""
_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""C0/C1 controls (tab included), Unicode line/paragraph separators and bidi overrides."""
_SMART = re.compile(f"[{SMART_QUOTES}]")


def check_chars(line: str, line_no: int) -> None:
    """Refuse characters that could hide or fake structure: controls, line separators, bidi overrides."""
    bad = _FORBIDDEN.search(line)
    if bad:
        raise fail(
            "text.control", f"control character U+{ord(bad.group()):04X} is not allowed", line_no, bad.start() + 1
        )


def check_smart_quotes(text: str, line_no: int, column: int) -> None:
    """Refuse typographic quotes in a structural position (a model's 'smart quote' rewrite)."""
    bad = _SMART.search(text)
    if bad:
        raise fail(
            "quote.smart", "typographic quotes are only allowed in free text after '::'", line_no, column + bad.start()
        )


def check_text(text: str, line_no: int, column: int) -> None:
    """A free text (claim text, prose, quote, detail, derive): non-empty, no edge whitespace, no controls."""
    if not text:
        raise fail("text.empty", "text after '::' must not be empty", line_no, column)
    check_chars(text, line_no)
    if text[0].isspace():
        raise fail("text.whitespace", "text must not start with whitespace", line_no, column)
    if text[-1].isspace():
        raise fail("text.whitespace", "text must not end with whitespace", line_no, column + len(text) - 1)


def check_ref(ref: str, line_no: int, column: int) -> None:
    """A ref is a local ``n<k>`` or a canonical address that parses, and is written bare."""
    if LOCAL_REF.fullmatch(ref):
        return
    if ":" not in ref:
        raise fail("ref.syntax", f"{ref!r} is neither a local ref (n1) nor a canonical address", line_no, column)
    if not BARE_VALUE.fullmatch(ref):
        raise fail(
            "ref.syntax", f"ref {ref!r} holds a quote, '=', '(' or ')' and cannot be written bare", line_no, column
        )
    try:
        parse_address(ref, line_no, column)
    except MemDSLParseError as exc:
        raise fail("ref.syntax", f"address {ref!r} does not parse: {exc.message}", exc.line, exc.column) from None
    except ValueError:  # int() refuses a span of more than 4300 digits; that is still just a bad ref
        raise fail("ref.syntax", "address span offsets are too large", line_no, column) from None


def check_claim_id(claim_id: str, line_no: int, column: int) -> None:
    """Claim ids are ``c<k>``; anything else (``n1``, ``C1``, ``c01``) is refused."""
    if not CLAIM_ID.fullmatch(claim_id):
        raise fail("claim.id", f"{claim_id!r} is not a claim id (c1, c2, ...)", line_no, column)
