"""A reader for memdsl 0.4 ``.mem`` source, written from the public format description.

A file is a sequence of declarations::

    boundary privacy.no_family_in_public {
      subject: User
      rule: "Never include family member names in public-facing content."
      force: hard
      exceptions: [user_explicit_override]
      guard { when_any: ["public", "blog"] deny_any: ["family"] }
      evidence { source: chat quote: "Keep my family out of blog posts." }
    }

Inside braces, ``key: value`` pairs (a quoted string, a bare word or a
``[list]``) and nested ``key { … }`` blocks follow one another, separated by
whitespace; a block named twice (two ``evidence`` blocks) collects into a
list. ``#`` and ``//`` start comments outside strings. Each declaration is
parsed on its own, so one broken declaration costs only itself: it is
reported as :class:`MemSyntaxError` with its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

_HEADER = re.compile(r"^([A-Za-z_][\w-]*+)[ \t]++([A-Za-z0-9_][\w.\-]*+)[ \t]*+\{", re.MULTILINE)
_WORD = re.compile(r"[^\s{}\[\]:,\"#]++")
MAX_NESTING = 64
"""Blocks nest a level or two (``guard { … }``); deeper is hostile or broken, and is refused, never recursed into."""


class MemSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        self.message = message
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: {message}")


@dataclass(frozen=True, slots=True)
class Declaration:
    """``kind id { fields }`` with the line the declaration starts on."""

    kind: str
    id: str
    fields: dict[str, Any]
    line: int
    text: str = field(repr=False)


class _Token(NamedTuple):
    kind: str  # word | string | punct
    value: str
    line: int
    column: int


class _Tokens:
    """One declaration's tokens, read only as far as the parser asks: a broken declaration stops the scan."""

    def __init__(self, chunk: str, first_line: int) -> None:
        self._source = _scan(chunk, first_line)
        self._read: list[_Token] = []

    def at(self, position: int) -> _Token | None:
        """The token at ``position``, or None past the last one."""
        while len(self._read) <= position:
            token = next(self._source, None)
            if token is None:
                return None
            self._read.append(token)
        return self._read[position]

    def last(self) -> _Token:
        """The declaration's last token (every token is read)."""
        for token in self._source:
            self._read.append(token)
        return self._read[-1]


def parse_mem(text: str) -> tuple[list[Declaration], list[MemSyntaxError]]:
    """Every declaration of a ``.mem`` file, and the syntax errors of the ones that could not be read."""
    text = text.replace("\r\n", "\n")
    starts = [m.start() for m in _HEADER.finditer(text)]
    declarations: list[Declaration] = []
    errors: list[MemSyntaxError] = []
    first = starts[0] if starts else len(text)
    for number, raw in enumerate(text[:first].split("\n"), 1):
        if re.split(r"#|//", raw, maxsplit=1)[0].strip():
            errors.append(MemSyntaxError("text outside any declaration", number, 1))
            break
    line, counted = 1, 0
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        line, counted = line + text.count("\n", counted, start), start  # one pass, not one per declaration
        try:
            declarations.append(_declaration(text[start:end], line))
        except MemSyntaxError as exc:
            errors.append(exc)
    return declarations, errors


def _declaration(chunk: str, line: int) -> Declaration:
    tokens = _Tokens(chunk, line)
    kind, ident, brace = tokens.at(0), tokens.at(1), tokens.at(2)
    if kind is None or ident is None or brace is None:
        raise MemSyntaxError("declaration is cut short", line, 1)
    fields, position = _block(tokens, 3, 1)
    rest = tokens.at(position)
    if rest is not None:
        raise MemSyntaxError(f"unexpected {rest.value!r} after the declaration", rest.line, rest.column)
    return Declaration(kind.value, ident.value, fields, line, chunk)


def _block(tokens: _Tokens, position: int, depth: int) -> tuple[dict[str, Any], int]:
    """Entries up to the matching ``}``; returns the fields and the position after the brace."""
    fields: dict[str, Any] = {}
    while True:
        token = tokens.at(position)
        if token is None:
            last = tokens.last()
            raise MemSyntaxError("'{' is never closed", last.line, last.column)
        if token.value == "}" and token.kind == "punct":
            return fields, position + 1
        if token.kind != "word":
            raise MemSyntaxError(f"expected a field name, found {token.value!r}", token.line, token.column)
        following = tokens.at(position + 1)
        if following is not None and following.kind == "punct" and following.value == ":":
            value, position = _value(tokens, position + 2, token)
            fields[token.value] = value
        elif following is not None and following.kind == "punct" and following.value == "{":
            if depth >= MAX_NESTING:
                message = f"blocks nested deeper than {MAX_NESTING} levels"
                raise MemSyntaxError(message, following.line, following.column)
            inner, position = _block(tokens, position + 2, depth + 1)
            previous = fields.get(token.value)
            if previous is None:
                fields[token.value] = inner
            elif isinstance(previous, list):
                previous.append(inner)
            else:
                fields[token.value] = [previous, inner]
        else:
            raise MemSyntaxError(f"field {token.value!r} needs ':' or '{{'", token.line, token.column)


def _value(tokens: _Tokens, position: int, key: _Token) -> tuple[Any, int]:
    token = tokens.at(position)
    if token is None:
        raise MemSyntaxError(f"field {key.value!r} has no value", key.line, key.column)
    if token.kind in ("word", "string"):
        return token.value, position + 1
    if token.value == "[":
        items: list[str] = []
        position += 1
        while (item := tokens.at(position)) is not None:
            if item.kind == "punct" and item.value == "]":
                return items, position + 1
            if item.kind == "punct" and item.value == ",":
                position += 1
                continue
            if item.kind not in ("word", "string"):
                raise MemSyntaxError(f"unexpected {item.value!r} in a list", item.line, item.column)
            items.append(item.value)
            position += 1
        raise MemSyntaxError("'[' is never closed", token.line, token.column)
    raise MemSyntaxError(f"field {key.value!r} has no value", token.line, token.column)


def _scan(chunk: str, first_line: int) -> Iterator[_Token]:
    index, line, line_start = 0, first_line, 0
    while index < len(chunk):
        char = chunk[index]
        column = index - line_start + 1
        if char == "\n":
            line, line_start = line + 1, index + 1
            index += 1
        elif char.isspace():
            index += 1
        elif char == "#" or chunk.startswith("//", index):
            end = chunk.find("\n", index)
            index = len(chunk) if end < 0 else end
        elif char in "{}[]:,":
            yield _Token("punct", char, line, column)
            index += 1
        elif char == '"':
            value, index = _string(chunk, index, line, column)
            yield _Token("string", value, line, column)
        else:
            match = _WORD.match(chunk, index)
            if match is None:  # pragma: no cover - every other character starts a word
                raise MemSyntaxError(f"unexpected character {char!r}", line, column)
            yield _Token("word", match.group(), line, column)
            index = match.end()


def _string(chunk: str, index: int, line: int, column: int) -> tuple[str, int]:
    out: list[str] = []
    index += 1
    while index < len(chunk):
        char = chunk[index]
        if char == "\\" and index + 1 < len(chunk):
            out.append({"n": "\n", "t": "\t"}.get(chunk[index + 1], chunk[index + 1]))
            index += 2
        elif char == '"':
            return "".join(out), index + 1
        elif char == "\n":
            break
        else:
            out.append(char)
            index += 1
    raise MemSyntaxError("string is not closed on its line", line, column)
