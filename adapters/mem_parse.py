"""A reader for memdsl ``.mem`` source, written from the public format description (memdsl 0.4 and 0.9).

The grammar both versions document::

    document    := (module_stmt | use_stmt | declaration)*
    module_stmt := 'module' NAME
    use_stmt    := 'use' NAME
    declaration := KIND NAME block
    block       := '{' entry* '}'
    entry       := FIELD ':' value | FIELD block
    value       := STRING | ATOM | list
    list        := '[' (value (','? value)*)? ']'

``KIND`` is a standard kind (``boundary``) or, from 0.9, a namespaced one
(``coding.project_rule``). An ATOM is a bare word, a dotted symbol
(``User.DayJob``), a number, a date or a call form (``project("Aurora")``),
kept verbatim. Strings are double-quoted with ``\\n \\t \\" \\\\`` escapes and
may run over several lines; a block named twice (two ``evidence`` blocks)
collects into a list; ``#`` starts a comment outside strings.

A file is cut into statements at the lines that start one: a ``module`` or
``use`` line at column 1, or a ``KIND NAME {`` header (which no entry can look
like). Each statement is parsed on its own, so one broken declaration costs
only itself: it is reported as :class:`MemSyntaxError` with its line and
column, and the next statement is read as if nothing had happened. Text left
over after a statement is one error of its own and does not cost the
statement before it. (A line inside a multi-line string that looks like a
header is read as one: the format gives a reader no other way to resync.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

_KIND = r"[A-Za-z_][\w-]*+(?:\.[A-Za-z_][\w-]*+)*+"
_NAME = r"[^\s{}\[\]:,\"#()]++"
_STATEMENT = re.compile(rf"^(?:(?:module|use)(?![^\s#])|[ \t]*+{_KIND}[ \t]++{_NAME}\s*+\{{)", re.MULTILINE)
_KEYWORDS = frozenset({"module", "use"})
_PUNCT = "{}[]:,"
_WORD_STOP = frozenset(' \t\r\n\f\v#"(' + _PUNCT)
_ESCAPES = {"n": "\n", "t": "\t"}
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
    """``kind id { fields }`` with the line the declaration starts on and the module its file declared."""

    kind: str
    id: str
    fields: dict[str, Any]
    line: int
    text: str = field(repr=False)
    module: str | None = None


class _Token(NamedTuple):
    kind: str  # word | string | punct
    value: str
    line: int
    column: int


class _Tokens:
    """One statement's tokens, read only as far as the parser asks: a broken statement stops the scan."""

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
        """The statement's last token (every token is read)."""
        for token in self._source:
            self._read.append(token)
        return self._read[-1]


def parse_mem(text: str) -> tuple[list[Declaration], list[MemSyntaxError]]:
    """Every declaration of a ``.mem`` file, and the syntax errors of what could not be read."""
    text = text.replace("\r\n", "\n")
    starts = [m.start() for m in _STATEMENT.finditer(text)]
    declarations: list[Declaration] = []
    errors: list[MemSyntaxError] = []
    _leftover(_Tokens(text[: starts[0] if starts else len(text)], 1), 0, errors)
    module: str | None = None
    line, counted = 1, 0
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(text)
        line, counted = line + text.count("\n", counted, start), start  # one pass, not one per statement
        tokens = _Tokens(text[start:end], line)
        try:
            first = tokens.at(0)
            if first is not None and first.value in _KEYWORDS and first.column == 1:
                name, position = _statement(tokens, first)
                module = name if first.value == "module" else module
            else:
                decl, position = _declaration(tokens, text[start:end], line, module)
                declarations.append(decl)
        except MemSyntaxError as exc:
            errors.append(exc)
            continue
        _leftover(tokens, position, errors)
    return declarations, errors


def _leftover(tokens: _Tokens, position: int, errors: list[MemSyntaxError]) -> None:
    """One error for text after a statement (or before the first), which no statement can own."""
    try:
        rest = tokens.at(position)
    except MemSyntaxError as exc:
        errors.append(exc)
        return
    if rest is not None:
        errors.append(MemSyntaxError(f"unexpected {rest.value[:40]!r} outside any declaration", rest.line, rest.column))


def _statement(tokens: _Tokens, keyword: _Token) -> tuple[str, int]:
    """``module NAME`` or ``use NAME``: the name and the position after it."""
    name = tokens.at(1)
    if name is None or name.kind != "word" or name.line != keyword.line:
        raise MemSyntaxError(f"'{keyword.value}' needs a name on its line", keyword.line, keyword.column)
    return name.value, 2


def _declaration(tokens: _Tokens, chunk: str, line: int, module: str | None) -> tuple[Declaration, int]:
    kind, ident = tokens.at(0), tokens.at(1)
    if kind is None or ident is None or tokens.at(2) is None:  # pragma: no cover - the header pattern has all three
        raise MemSyntaxError("declaration is cut short", line, 1)
    fields, position = _block(tokens, 3, 1)
    return Declaration(kind.value, ident.value, fields, line, chunk, module), position


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
            raise MemSyntaxError(f"expected a field name, found {token.value[:40]!r}", token.line, token.column)
        following = tokens.at(position + 1)
        if following is not None and following.kind == "punct" and following.value == ":":
            value, position = _value(tokens, position + 2, token, depth)
            fields[token.value] = value
        elif following is not None and following.kind == "punct" and following.value == "{":
            if depth >= MAX_NESTING:
                message = f"blocks nested deeper than {MAX_NESTING} levels"
                raise MemSyntaxError(message, following.line, following.column)
            inner, position = _block(tokens, position + 2, depth + 1)
            previous = fields.get(token.value)
            if previous is None:
                fields[token.value] = inner
            elif isinstance(previous, list) and all(isinstance(item, dict) for item in previous):
                previous.append(inner)
            else:
                fields[token.value] = [previous, inner]
        else:
            raise MemSyntaxError(f"field {token.value[:40]!r} needs ':' or '{{'", token.line, token.column)


def _value(tokens: _Tokens, position: int, key: _Token, depth: int) -> tuple[Any, int]:
    token = tokens.at(position)
    if token is None:
        raise MemSyntaxError(f"field {key.value[:40]!r} has no value", key.line, key.column)
    if token.kind in ("word", "string"):
        return token.value, position + 1
    if token.value == "[":
        return _list(tokens, position + 1, token, depth)
    raise MemSyntaxError(f"field {key.value[:40]!r} has no value", token.line, token.column)


def _list(tokens: _Tokens, position: int, opener: _Token, depth: int) -> tuple[list[Any], int]:
    """Items up to the matching ``]`` (commas between them optional, lists may nest); the position after it."""
    items: list[Any] = []
    while (item := tokens.at(position)) is not None:
        if item.kind == "punct" and item.value == "]":
            return items, position + 1
        if item.kind == "punct" and item.value == ",":
            position += 1
        elif item.kind in ("word", "string"):
            items.append(item.value)
            position += 1
        elif item.value == "[" and depth < MAX_NESTING:
            inner, position = _list(tokens, position + 1, item, depth + 1)
            items.append(inner)
        else:
            raise MemSyntaxError(f"unexpected {item.value!r} in a list", item.line, item.column)
    raise MemSyntaxError("'[' is never closed", opener.line, opener.column)


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
        elif char == "#":
            end = chunk.find("\n", index)
            index = len(chunk) if end < 0 else end
        elif char in _PUNCT:
            yield _Token("punct", char, line, column)
            index += 1
        elif char == '"':
            value, index, newlines, last_newline = _string(chunk, index, line, column)
            yield _Token("string", value, line, column)
            if newlines:
                line, line_start = line + newlines, last_newline + 1
        else:
            end = _word_end(chunk, index, line, column)
            yield _Token("word", chunk[index:end], line, column)
            index = end


def _word_end(chunk: str, index: int, line: int, column: int) -> int:
    """Where the atom starting at ``index`` ends: at a space, punctuation, quote or comment, or after a call form.

    A call form (``project("Aurora")``) is one atom up to its matching ``)``, quoted parts included, on one line.
    """
    start = index
    while index < len(chunk) and chunk[index] not in _WORD_STOP:
        index += 1
    if index < len(chunk) and chunk[index] == "(":
        return _call_end(chunk, index, line, column + index - start)
    return index


def _call_end(chunk: str, index: int, line: int, column: int) -> int:
    depth, quoted = 0, False
    while index < len(chunk):
        char = chunk[index]
        if char == "\n":
            break
        if quoted:
            if char == "\\":
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    raise MemSyntaxError("'(' is not closed on its line", line, column)


def _string(chunk: str, index: int, line: int, column: int) -> tuple[str, int, int, int]:
    """The string opening at ``index``: its value, the index after it, the newlines inside and the last one's index."""
    out: list[str] = []
    newlines, last_newline = 0, -1
    index += 1
    while index < len(chunk):
        char = chunk[index]
        if char == "\\" and index + 1 < len(chunk):
            out.append(_ESCAPES.get(chunk[index + 1], chunk[index + 1]))
            index += 2
            continue
        if char == '"':
            return "".join(out), index + 1, newlines, last_newline
        if char == "\n":
            newlines, last_newline = newlines + 1, index
        out.append(char)
        index += 1
    raise MemSyntaxError("string is never closed", line, column)
