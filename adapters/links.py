"""Links in Markdown prose, found in time linear in the text: ``[[wikilinks]]``, ``[label](target)`` and lines.

Store text is written by anyone who can commit, so a pattern that backtracks
is a way to freeze the server (a 25 KB run of ``[`` once held the GIL for
46 s). Every repeated class here stops at the character that could open the
next link and is possessive, so a failed attempt scans only up to where the
next attempt starts: each character is read a bounded number of times. Line
numbers come from one pass over the text, then a bisection per link.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

__all__ = ["MARKDOWN_LINK", "WIKILINK", "LineNumbers"]

WIKILINK = re.compile(
    r"(!?)\[\["
    r"([^\[\]|#\n]*+)"  # the target: a note name never holds [ ] | # (Obsidian refuses them in file names)
    r"(?:#((?:[^\[\]|\n]|\[(?!\[))*+))?"  # #heading: a lone [ is text, [[ opens the next link
    r"(?:\|((?:[^\[\]\n]|\[(?!\[))*+))?"  # |alias
    r"\]\]"
)
"""``[[target#heading|alias]]`` (``![[…]]`` for an embed): groups ``!``, target, heading, alias."""

MARKDOWN_LINK = re.compile(r"\[([^\[\]\n]*+)\]\(([^\[)\s]++)\)")
"""``[label](target)`` on one line: groups label, target (with any ``#fragment``); an image is ``!`` before it."""


class LineNumbers:
    """The line of any offset into one text, after a single pass that records where each line ends."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        self._ends = list(accumulate(len(line) + 1 for line in text.split("\n")))
        self._first = first_line

    def line(self, offset: int) -> int:
        """The line holding ``offset`` (``first_line`` for the text's first line)."""
        return self._first + bisect_right(self._ends, offset)
