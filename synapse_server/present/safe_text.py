"""Text from a model or the evidence made safe to print on a terminal.

Answer text, claim text and addresses can come from a model or from store
files, and either may hold ESC, BEL or bidirectional overrides that would
recolour, retitle or visually reorder a terminal. Each such character is shown
as a visible escape (``\\x1b``, ``\\u202e``) instead of being sent raw.
"""

from __future__ import annotations

import unicodedata

_BIDI = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C))


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


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
