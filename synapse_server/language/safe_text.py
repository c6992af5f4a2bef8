"""Text from a model or the evidence made safe to print on a terminal.

Answer text, claim text and addresses can come from a model or from store
files, and either may hold ESC, BEL or bidirectional overrides that would
recolour, retitle or visually reorder a terminal. Each such character is shown
as a visible escape (``\\x1b``, ``\\u202e``) instead of being sent raw.

Text framed line by line (envelope bodies) keeps its other characters but
shows every line break except ``\\n`` the same way, so a reader that splits
lines by Unicode rules sees the frames the parser sees.

:func:`escape_unsafe` is the one escaping: the card's text (:func:`terminal_safe`)
and the CLI's output writer (``cli/terminal.py``) both call it, so they never
disagree on which characters are unsafe; they differ only in the spelling
(the writer's ``\\uXXXX`` is also a valid escape inside a JSON string).
"""

from __future__ import annotations

import functools
import re
from typing import Literal

LINE_BREAKS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
"""Every character but ``\\n`` that Unicode line breaking ends a line at (``str.splitlines``; JavaScript's ``/m``
knows ``\\r``, U+2028 and U+2029 of them)."""
_UNSAFE_CLASS = "\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""Every control character (C0, DEL, C1: Unicode category Cc), the line and paragraph separators, and the
bidirectional marks and overrides that can visually reorder a line."""
_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")

Spelling = Literal["python", "json"]
"""``python``: ``\\x1b`` below U+0100, ``\\u202e`` above (short, for people); ``json``: always ``\\u001b``."""


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(char: str) -> str:
    return f"\\u{ord(char):04x}"


def is_unsafe(char: str) -> bool:
    """Whether ``char`` is one :func:`escape_unsafe` escapes (a control, a line separator or a bidi mark)."""
    return _UNSAFE.fullmatch(char) is not None


@functools.lru_cache(maxsize=8)
def _unsafe_except(keep: str) -> re.Pattern[str]:
    return re.compile(f"(?![{re.escape(keep)}])[{_UNSAFE_CLASS}]") if keep else _UNSAFE


def escape_unsafe(text: str, *, keep: str = "", spelling: Spelling = "python") -> str:
    """``text`` with every unsafe character except those in ``keep`` written as a visible escape."""
    spell = _escape if spelling == "python" else _json_escape
    return _unsafe_except(keep).sub(lambda match: spell(match.group()), text)


_LINE_BREAK_ESCAPES = {ord(char): _escape(char) for char in LINE_BREAKS}


def line_breaks_escaped(text: str) -> str:
    """``text`` with every :data:`LINE_BREAKS` character as a visible escape, so only ``\\n`` separates its lines.

    For text framed line by line (envelope bodies): a reader that splits with
    ``str.splitlines`` then sees exactly the lines a ``\\n``-only parser sees.
    """
    return text.translate(_LINE_BREAK_ESCAPES)


_SPACED = {ord(char): " " for char in "\t\n\r"}
_SPACED_KEEP_NEWLINES = {ord(char): " " for char in "\t\r"}


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with tabs and line breaks as spaces (newlines kept on request) and every other control escaped."""
    spaced = text.translate(_SPACED_KEEP_NEWLINES if keep_newlines else _SPACED)
    return escape_unsafe(spaced, keep="\n")
