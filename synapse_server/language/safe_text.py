"""Text from a model or the evidence made safe to print on a terminal.

Answer text, claim text and addresses can come from a model or from store
files, and either may hold ESC, BEL or bidirectional overrides that would
recolour, retitle or visually reorder a terminal. Each such character is shown
as a visible escape (``\\x1b``, ``\\u202e``) instead of being sent raw.

Text framed line by line (envelope bodies) keeps its other characters but
shows every line break except ``\\n`` the same way, so a reader that splits
lines by Unicode rules sees the frames the parser sees.
"""

from __future__ import annotations

import unicodedata

LINE_BREAKS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
"""Every character but ``\\n`` that Unicode line breaking ends a line at (``str.splitlines``; JavaScript's ``/m``
knows ``\\r``, U+2028 and U+2029 of them)."""
_BIDI = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C))


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_LINE_BREAK_ESCAPES = {ord(char): _escape(char) for char in LINE_BREAKS}


def line_breaks_escaped(text: str) -> str:
    """``text`` with every :data:`LINE_BREAKS` character as a visible escape, so only ``\\n`` separates its lines.

    For text framed line by line (envelope bodies): a reader that splits with
    ``str.splitlines`` then sees exactly the lines a ``\\n``-only parser sees.
    """
    return text.translate(_LINE_BREAK_ESCAPES)


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with tabs and line breaks as spaces (newlines kept on request) and every other control escaped."""
    out: list[str] = []
    for char in text:
        if keep_newlines and char == "\n":
            out.append(char)
        elif char in "\t\n\r":
            out.append(" ")
        elif char in _BIDI or unicodedata.category(char) in {"Cc", "Zl", "Zp"}:
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)
