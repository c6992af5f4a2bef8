"""Markdown as text, and the word sequence that "verbatim" compares.

Bodies are Markdown, but list markers, heading marks, blockquote marks,
emphasis, inline-code backticks, table pipes, link and image syntax, footnote
markers, HTML tags, HTML comments and fences are formatting, not words.
:func:`markdown_blocks` removes them while remembering where every kept
character came from, so atomic units can point back into the original body,
and labels each block with its kind (heading, list item, paragraph, table row,
fenced code) so atoms can skip code and track the heading path;
:func:`normalise_words` then reduces text to the tokens that the restatement
rule compares. Every scan is linear in the text: no regex here backtracks
over a run it already read, and no loop copies the rest of a line.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from typing import Literal

from synapse_server.language.numbers import NUMERAL

__all__ = [
    "BlockKind",
    "PlainBlock",
    "markdown_blocks",
    "markup_tokens",
    "normalise_words",
    "plain_text",
    "plain_words",
    "word_spans",
]


BlockKind = Literal["paragraph", "heading", "item", "row", "code"]


@dataclass(frozen=True, slots=True)
class PlainBlock:
    """One Markdown block (paragraph, list item, heading, table row, code line) with its formatting removed.

    ``offsets[i]`` is the index in the source of ``text[i]``; a soft line
    break or a table pipe becomes a space that points at the break or pipe.
    ``kind`` says what the block is; ``level`` is a heading's level (1-6) or a
    list item's indentation in columns (0 for a top-level item), else 0.
    A ``code`` block is one line of a fenced code block: text, not prose.
    """

    text: str
    offsets: tuple[int, ...]
    kind: BlockKind = "paragraph"
    level: int = 0


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RULE = re.compile(r"^ {0,3}(?:([-*_])(?:[ \t]*\1){2,}|=+)[ \t]*$")
_TABLE_SEPARATOR = re.compile(r"^[ \t]*+\|?[ \t]*+:?-++:?[ \t]*+(?:\|[ \t]*+:?-++:?[ \t]*+)++\|?[ \t]*+$")
_QUOTE = re.compile(r"^(?: {0,3}>[ \t]?)+")
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+|$)")
_HEADING_CLOSE = re.compile(r"(?<![ \t])[ \t]++#++[ \t]*+$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[[ xX]\][ \t]+)?")
_LINK_TEXT = r"!?\[((?:[^\[\]\\]|\\.)*)\]"
_LINK = re.compile(
    _LINK_TEXT + r"\([ \t]*(?:<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:[ \t]+(?:\"[^\"]*\"|'[^']*'))?[ \t]*\)"
)
"""An inline link or image, ``[text](destination "title")``: always link syntax."""
_REFERENCE_LINK = re.compile(_LINK_TEXT + r"\[([^\]]*)\]")
"""``[text][label]``: link syntax only when the document defines ``label`` (CommonMark); otherwise it is text, as in a
regular expression's ``[0-5][0-9]``."""
_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*\S", re.M)
_FOOTNOTE = re.compile(r"\[\^[^\]\s]+\]")
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^<>\s]+)>")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

Chars = list[tuple[str, int]]


def markdown_blocks(markdown: str) -> tuple[PlainBlock, ...]:
    """Split Markdown into blocks and strip its formatting, keeping source offsets.

    Fenced code lines become ``code`` blocks; HTML comments (inline or across
    lines) vanish; a paragraph underlined with ``===`` or ``---`` is a heading.
    """
    lines = _lines(markdown)
    labels = _reference_labels(markdown)
    separators = {index for index, (_, line) in enumerate(lines) if _TABLE_SEPARATOR.match(line)}
    blocks: list[PlainBlock] = []
    current: Chars | None = None
    current_item: int | None = None  # the open block's list indentation, None for a paragraph
    fence: str | None = None
    in_comment = False
    in_table = False

    def flush(kind: BlockKind | None = None, level: int = 0) -> None:
        nonlocal current, current_item
        if current is not None:
            if kind is None:
                kind, level = ("paragraph", 0) if current_item is None else ("item", current_item)
            blocks.extend(_block(current, kind, level))
        current, current_item = None, None

    for index, (base, line) in enumerate(lines):
        if fence is not None:
            flush()
            if line.strip().startswith(fence):
                fence = None
            else:
                blocks.extend(_block([(char, base + offset) for offset, char in enumerate(line)], "code"))
            continue
        if in_comment:
            close = line.find(_COMMENT_CLOSE)
            if close == -1:
                continue
            in_comment = False
            base, line = base + close + len(_COMMENT_CLOSE), line[close + len(_COMMENT_CLOSE) :]
            if not line.strip():
                continue
        elif fence_match := _FENCE.match(line):
            flush()
            fence = fence_match.group(1)
            continue
        if (opened := _unclosed_comment(line)) is not None:
            in_comment = True
            line = line[:opened]
            if not line.strip():
                continue
        if current is not None and current_item is None and _SETEXT.match(line):
            flush("heading", 1 if line.strip()[0] == "=" else 2)
            continue
        if not line.strip() or index in separators or _RULE.match(line):
            flush()
            in_table = index in separators
            continue
        quote = _QUOTE.match(line)
        skip = quote.end() if quote else 0
        rest = line[skip:]
        if "|" in rest and (in_table or index + 1 in separators or rest.lstrip().startswith("|")):
            flush()
            blocks.extend(_block(_table_row(rest, base + skip, labels), "row"))
            continue
        in_table = False
        if definition := _DEFINITION.match(rest):
            flush()
            if definition.group(1).startswith("^"):  # a footnote's text is prose; a link's destination is not
                text_start = rest.index("]:") + 2
                blocks.extend(_block(_inline(rest[text_start:].lstrip(), base + skip + text_start, labels)))
            continue
        if heading := _HEADING.match(rest):
            flush()
            content = rest[heading.end() :]
            closing = _HEADING_CLOSE.search(content)
            level = rest[: heading.end()].count("#")
            text = content[: closing.start()] if closing else content
            blocks.extend(_block(_inline(text, base + skip + heading.end(), labels), "heading", level))
            continue
        if item := _ITEM.match(rest):
            flush()
            current = _inline(rest[item.end() :], base + skip + item.end(), labels)
            current_item = _indent(rest)
            continue
        if current is None:
            current = []
        else:
            current.append((" ", base - 1))
        current.extend(_inline(rest, base + skip, labels))
    flush()
    return tuple(blocks)


def _reference_labels(markdown: str) -> frozenset[str]:
    """The link labels a document defines (``[label]: destination``), normalised as CommonMark matches them."""
    return frozenset(_label(m.group(1)) for m in _DEFINITION.finditer(markdown))


def _label(text: str) -> str:
    return " ".join(text.split()).casefold()


def markup_tokens(text: str) -> tuple[str, ...]:
    """The links, images, autolinks, footnote marks and HTML tags of a text: formatting that is not evidence.

    Inline code, emphasis and heading marks are not listed: they are plain text once their marks are gone.
    """
    found = [m.group(0) for pattern in (_LINK, _AUTOLINK, _FOOTNOTE, _HTML_TAG) for m in pattern.finditer(text)]
    return tuple(dict.fromkeys(found))


def plain_text(markdown: str) -> str:
    """The words of ``markdown`` without its formatting, one block per line."""
    return "\n".join(block.text for block in markdown_blocks(markdown))


_WORD_TOKEN = re.compile(
    r"(?P<number>(?:(?<![\w.])[-+\u2212\u2013\u00b1])?(?<![\w.])" + NUMERAL + r")"
    r"|(?P<word>[^\W\d_][^\W_]*(?:['\u2019][^\W\d_]+)*)"
    r"|(?P<digits>\d+)"
    r"|(?P<symbol>[%$€£¥‰×])"
)


def normalise_words(text: str) -> tuple[str, ...]:
    """Case-folded word tokens of ``text`` with formatting, punctuation and whitespace removed.

    Numbers stay atomic and signed (``-5``, ``1.4``; ``1,200`` becomes ``1200``,
    a ``+`` sign is dropped); a number always ends its token, so ``5bps`` and
    ``5 bps`` both read ``5 bps``. Currency and percent symbols are tokens of
    their own because they carry meaning. Apostrophes inside a word vanish
    (``don't`` -> ``dont``) and other punctuation separates words, so
    ``state-of-the-art`` equals ``state of the art``; whitespace between two
    letters still separates words (``net income`` is not ``netincome``).
    """
    return plain_words(" ".join(block.text for block in markdown_blocks(text)))


def plain_words(plain: str) -> tuple[str, ...]:
    """:func:`normalise_words` for text that is already free of Markdown (a unit's text, a claim's plain text)."""
    return tuple(word for word, _, _ in word_spans(unicodedata.normalize("NFKC", plain)))


def word_spans(plain: str) -> tuple[tuple[str, int, int], ...]:
    """Each normalised word of NFKC-normalised plain text with its span, so callers can select words by position."""
    tokens: list[tuple[str, int, int]] = []
    for match in _WORD_TOKEN.finditer(plain):
        if (number := match.group("number")) is not None:
            token = _canonical_number(number)
        elif (word := match.group("word")) is not None:
            token = re.sub(r"['\u2019]", "", word).casefold()
        elif (digits := match.group("digits")) is not None:
            token = digits
        else:
            token = "x" if match.group("symbol") == "×" else match.group("symbol")
        tokens.append((token, match.start(), match.end()))
    return tuple(tokens)


def _canonical_number(number: str) -> str:
    sign, digits = (number[0], number[1:]) if not number[0].isdigit() else ("", number)
    sign = {"+": "", "\u2212": "-", "\u2013": "-"}.get(sign, sign)
    return sign + digits.replace(",", "")


def _lines(text: str) -> list[tuple[int, str]]:
    """Each line with the offset of its first character, line endings removed."""
    lines: list[tuple[int, str]] = []
    position = 0
    for line in text.splitlines(keepends=True):
        lines.append((position, line.rstrip("\r\n")))
        position += len(line)
    return lines


def _block(chars: Chars, kind: BlockKind = "paragraph", level: int = 0) -> list[PlainBlock]:
    """A block from kept characters, whitespace trimmed and collapsed to single spaces; nothing when empty."""
    start, stop = 0, len(chars)
    while start < stop and chars[start][0].isspace():
        start += 1
    while stop > start and chars[stop - 1][0].isspace():
        stop -= 1
    if start == stop:
        return []
    kept = [
        pair
        for index, pair in enumerate(chars[start:stop])
        if not (pair[0].isspace() and chars[start + index - 1][0].isspace())
    ]
    text = "".join(" " if char.isspace() else char for char, _ in kept)
    return [PlainBlock(text, tuple(offset for _, offset in kept), kind, level)]


def _indent(line: str) -> int:
    """Columns of leading whitespace (a tab counts four): how deep a list item sits."""
    columns = 0
    for char in line:
        if char == " ":
            columns += 1
        elif char == "\t":
            columns += 4
        else:
            break
    return columns


def _unclosed_comment(line: str) -> int | None:
    """Where an HTML comment opens on ``line`` without closing on it, or None."""
    position = 0
    while (opened := line.find(_COMMENT_OPEN, position)) != -1:
        closed = line.find(_COMMENT_CLOSE, opened + len(_COMMENT_OPEN))
        if closed == -1:
            return opened
        position = closed + len(_COMMENT_CLOSE)
    return None


def _table_row(row: str, base: int, labels: frozenset[str] = frozenset()) -> Chars:
    """A table row's cells, with each unescaped pipe turned into a separating space."""
    chars: Chars = []
    cell_start = 0
    for index, char in enumerate(row + "|"):
        if char == "|" and (index == 0 or row[index - 1] != "\\"):
            chars.extend(_inline(row[cell_start:index], base + cell_start, labels))
            chars.append((" ", base + min(index, len(row) - 1)))
            cell_start = index + 1
    return chars


def _inline(text: str, base: int, labels: frozenset[str] = frozenset()) -> Chars:
    """Inline Markdown of one line with its formatting removed: (character, source offset) pairs.

    ``labels`` are the link labels the document defines: ``[text][label]`` is a link only for one of them.
    """
    chars: Chars = []
    runs: _BacktickRuns | None = None
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in _ASCII_PUNCTUATION:
            chars.append((text[index + 1], base + index + 1))
            index += 2
        elif char == "`":
            runs = runs or _BacktickRuns(text)
            index = _code_span(text, index, base, chars, runs)
        elif char == "<" and text.startswith(_COMMENT_OPEN, index):
            closed = text.find(_COMMENT_CLOSE, index + len(_COMMENT_OPEN))
            index = len(text) if closed == -1 else closed + len(_COMMENT_CLOSE)
        elif char in "![" and (footnote := _FOOTNOTE.match(text, index)) and _label(footnote[0][1:-1]) in labels:
            index = footnote.end()
        elif char in "![" and (link := _link_at(text, index, labels)):
            chars.extend(_inline(link.group(1), base + link.start(1), labels))
            index = link.end()
        elif char == "<" and (autolink := _AUTOLINK.match(text, index)):
            chars.extend((url_char, base + autolink.start(1) + offset) for offset, url_char in enumerate(autolink[1]))
            index = autolink.end()
        elif char == "<" and (tag := _HTML_TAG.match(text, index)):
            index = tag.end()
        elif char in "*_" or text.startswith("~~", index):
            end = index
            while end < len(text) and text[end] == char:
                end += 1
            if not _is_delimiter(text, index, end):
                chars.extend((text[offset], base + offset) for offset in range(index, end))
            index = end
        else:
            chars.append((char, base + index))
            index += 1
    return chars


def _link_at(text: str, index: int, labels: frozenset[str]) -> re.Match[str] | None:
    """The link starting at ``index``: inline, or a full reference one whose label the document defines."""
    if link := _LINK.match(text, index):
        return link
    reference = _REFERENCE_LINK.match(text, index)
    if reference and _label(reference.group(2) or reference.group(1)) in labels:
        return reference
    return None


class _BacktickRuns:
    """Every maximal run of backticks in a line, by length: a code span closes at the next run of its own length.

    Found once per line, so an unclosed opener never rescans the rest of the line.
    """

    def __init__(self, text: str) -> None:
        self.starts: dict[int, list[int]] = {}
        for run in re.finditer(r"`+", text):
            self.starts.setdefault(len(run.group()), []).append(run.start())

    def closing(self, length: int, after: int) -> int:
        starts = self.starts.get(length, [])
        at = bisect_right(starts, after - 1)
        return starts[at] if at < len(starts) else -1


def _code_span(text: str, index: int, base: int, chars: Chars, runs: _BacktickRuns) -> int:
    """Keep a code span's content verbatim and drop its backticks; return where scanning resumes."""
    end = index
    while end < len(text) and text[end] == "`":
        end += 1
    close = runs.closing(end - index, end)
    if close == -1:
        return end
    chars.extend((text[offset], base + offset) for offset in range(end, close))
    return close + end - index


def _is_delimiter(text: str, start: int, end: int) -> bool:
    """Whether a run of ``*``, ``_`` or ``~`` is emphasis (CommonMark flanking rules), not a literal character."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    left = not after.isspace() and (not _punct(after) or before.isspace() or _punct(before))
    right = not before.isspace() and (not _punct(before) or after.isspace() or _punct(after))
    mark = text[start]
    if mark == "_":
        return (left and (not right or _punct(before))) or (right and (not left or _punct(after)))
    if mark == "~" and end - start != 2:
        return False
    if mark == "*" and before.isdigit() and after.isdigit():
        return False
    return left or right


def _punct(char: str) -> bool:
    return not char.isalnum() and not char.isspace()
