"""One parse function per OUTPUT line kind.

Each function takes one non-blank physical line and its number, and either
returns the parsed pieces or raises a positioned ``MemDSLParseError``. None of
them looks at other lines; ordering and cross-references are the block
parser's job (``_output_parser``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memdsl._output_lexicon import (
    BARE_VALUE,
    KWARG_KEY,
    LABEL,
    check_claim_id,
    check_ref,
    check_smart_quotes,
    check_text,
)
from memdsl._output_values import ACTION_VERBS, INFERENCE_FORMS, Abstention, ActionCall, Claim
from memdsl.errors import fail

CALL_SHAPE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)")
"""The whole shape of a call: ``name(...)``."""
ACTION_START = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*\(")
"""The start of anything meant as a call (``expand (n1`` included), so it fails as ``action.syntax``."""
STATUS_WORDS = frozenset({"grounded", "measured", "inferred", "status"})
"""Tokens that would let a model assert a status; the engine alone owns status."""
_CLAUSES = ("cites", "from", "derive")
_KWARG = re.compile(f"({KWARG_KEY.pattern})=")


@dataclass(frozen=True, slots=True)
class ParsedClaim:
    """A claim with the positions the block parser needs for cross-reference errors."""

    claim: Claim
    line: int
    premise_columns: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    column: int
    quoted: bool


def parse_action(line: str, number: int) -> ActionCall:
    """``verb(ref, ..., key=value, key="quoted value")`` for a registered verb with valid arity."""
    check_smart_quotes(line, number, 1)
    shape = CALL_SHAPE.fullmatch(line)
    if shape is None:
        raise fail("action.syntax", "an action is verb(arguments) on one line", number, 1)
    verb, inner = shape.group(1), shape.group(2)
    if verb in ("answer", "abstain"):
        raise fail("action.terminal_call", f"{verb} is a terminal: write @{verb}, not {verb}(...)", number, 1)
    if verb not in ACTION_VERBS:
        raise fail("action.verb", f"unregistered verb {verb!r} (expected one of {', '.join(ACTION_VERBS)})", number, 1)
    args, kwargs = _call_arguments(inner, number, len(verb) + 2)
    _check_arity(verb, args, kwargs, number)
    return ActionCall(verb, tuple(arg for arg, _ in args), tuple(kwargs))


def _call_arguments(inner: str, number: int, start: int) -> tuple[list[tuple[str, int]], list[tuple[str, str]]]:
    """Split ``inner`` into positional refs (with columns) and keyword pairs, separated by exactly ', '."""
    args: list[tuple[str, int]] = []
    kwargs: list[tuple[str, str]] = []
    keys: set[str] = set()
    refs: set[str] = set()
    i = 0
    while i < len(inner):
        column = start + i
        key = _KWARG.match(inner, i)
        if key is not None:
            if key.group(1) in keys:
                raise fail("action.kwarg", f"keyword {key.group(1)!r} given twice", number, column)
            value, i = _kwarg_value(inner, key.end(), number, start)
            keys.add(key.group(1))
            kwargs.append((key.group(1), value))
        else:
            if kwargs:
                raise fail("action.syntax", "positional arguments come before keyword arguments", number, column)
            end = inner.find(",", i)
            end = len(inner) if end == -1 else end
            if inner.startswith('"', i) or not inner[i:end]:
                raise fail("action.syntax", "a positional argument is a bare ref", number, column)
            check_ref(inner[i:end], number, column)
            if inner[i:end] in refs:
                raise fail("action.duplicate_ref", f"ref {inner[i:end]!r} given twice", number, column)
            refs.add(inner[i:end])
            args.append((inner[i:end], column))
            i = end
        if i < len(inner):
            if not inner.startswith(", ", i) or i + 2 >= len(inner):
                raise fail("action.syntax", "arguments are separated by exactly ', '", number, start + i)
            i += 2
    return args, kwargs


def _kwarg_value(inner: str, i: int, number: int, start: int) -> tuple[str, int]:
    """A bare value up to the next ',' or a double-quoted one (no '"' inside); returns it and the end index."""
    if inner.startswith('"', i):
        close = inner.find('"', i + 1)
        if close == -1:
            raise fail("action.syntax", "unterminated quoted value", number, start + i)
        return inner[i + 1 : close], close + 1
    end = inner.find(",", i)
    end = len(inner) if end == -1 else end
    if not BARE_VALUE.fullmatch(inner[i:end]):
        raise fail(
            "action.syntax", "a value with spaces, quotes, '=', '(' or ')' must be double-quoted", number, start + i
        )
    return inner[i:end], end


def _check_arity(verb: str, args: list[tuple[str, int]], kwargs: list[tuple[str, str]], number: int) -> None:
    if kwargs and verb != "ground":
        raise fail("action.kwarg", f"{verb} takes no keyword arguments", number, 1)
    if verb == "join":
        if len(args) < 2:
            raise fail("action.arity", "join takes at least two refs", number, 1)
    elif len(args) != 1:
        raise fail("action.arity", f"{verb} takes exactly one ref", number, 1)


def parse_abstain(line: str, number: int) -> Abstention:
    """``@abstain <label> :: <detail>``."""
    rest = line[len("@abstain ") :]
    label, sep, detail = rest.partition(" :: ")
    if not sep:
        if rest.endswith(" ::") and LABEL.fullmatch(rest[:-3]):
            raise fail("text.empty", "an abstention needs a detail after '::'", number, len(line))
        raise fail("abstain.syntax", "an abstention is @abstain <label> :: <detail>", number, 1)
    if not LABEL.fullmatch(label):
        raise fail("abstain.label", f"{label!r} is not a lowercase hyphenated label", number, len("@abstain ") + 1)
    check_text(detail, number, len(line) - len(detail) + 1)
    return Abstention(label, detail)


def parse_text_line(line: str, number: int, keyword: str) -> tuple[str | None, str]:
    """``prose :: <text>`` (no id) or ``cite <cid> :: <text>``; returns (claim id or None, text)."""
    head, sep, text = line.partition(" :: ")
    if not sep:
        if line.endswith(" ::"):
            raise fail("text.empty", f"a {keyword} line needs text after '::'", number, len(line))
        raise fail(
            f"{keyword}.syntax",
            f"a {keyword} line is {keyword} {'<cid> ' if keyword == 'cite' else ''}:: <text>",
            number,
            1,
        )
    words = head.split(" ")
    if keyword == "prose":
        if words != ["prose"]:
            raise fail("prose.syntax", "a prose line is prose :: <text>", number, 1)
        claim_id = None
    else:
        if len(words) != 2:
            raise fail("cite.syntax", "a cite line is cite <cid> :: <exact assertion>", number, 1)
        check_claim_id(words[1], number, len("cite ") + 1)
        claim_id = words[1]
    check_text(text, number, len(head) + 5)
    return claim_id, text


def parse_conclude(line: str, number: int) -> str:
    """``conclude <cid>``."""
    words = line.split(" ")
    if len(words) != 2:
        raise fail("conclude.syntax", "a conclude line is conclude <cid>", number, 1)
    check_claim_id(words[1], number, len("conclude ") + 1)
    return words[1]


def parse_claim(line: str, number: int) -> ParsedClaim:
    """``claim <cid> [<form>] [cites ...] [from ...] [derive "..."] :: <text>``."""
    tokens, text, text_column = _claim_tokens(line, number)
    for token in tokens:
        check_smart_quotes(token.text, number, token.column)
    for token in tokens[1:]:
        word = token.text.strip("[](),").split("=")[0].split(":")[0].lower()
        if not token.quoted and word in STATUS_WORDS:
            raise fail("claim.status", "a claim carries no status: the engine derives it", number, token.column)
    if len(tokens) < 2:
        raise fail("claim.id", "a claim line names its id: claim c1 [form] ...", number, len(line))
    check_claim_id(tokens[1].text, number, tokens[1].column)
    form = _form(tokens[2] if len(tokens) > 2 else None, number, len(line))
    cites, premises, columns, derive = _clauses(tokens[3:], number)
    if derive is not None and form != "calculation":
        column = next(token.column for token in tokens if token.text == "derive" and not token.quoted)
        raise fail("claim.derive", "only a calculation carries a derivation", number, column)
    if not cites and not premises and form != "assumption":
        raise fail("claim.unsupported", f"a {form} needs cites or premises; only an assumption has neither", number, 1)
    check_text(text, number, text_column)
    claim = Claim(tokens[1].text, form, tuple(cites), tuple(premises), derive, text)
    return ParsedClaim(claim, number, tuple(columns))


def _claim_tokens(line: str, number: int) -> tuple[list[_Token], str, int]:
    """Split the structural head into single-space separated words and one quoted string; the rest is text."""
    tokens: list[_Token] = []
    i = 0
    while True:
        if line.startswith('"', i):
            close = line.find('"', i + 1)
            if close == -1:
                raise fail("claim.syntax", "unterminated quoted derivation", number, i + 1)
            tokens.append(_Token(line[i + 1 : close], i + 1, True))
            i = close + 1
        else:
            end = line.find(" ", i)
            end = len(line) if end == -1 else end
            word = line[i:end]
            if word == "::":
                if end == len(line):
                    raise fail("text.empty", "a claim needs text after '::'", number, i + 1)
                return tokens, line[end + 1 :], end + 2
            if not word or '"' in word:
                raise fail("claim.syntax", "claim tokens are separated by exactly one space", number, i + 1)
            tokens.append(_Token(word, i + 1, False))
            i = end
        if i >= len(line):
            raise fail("claim.syntax", "a claim line needs ' :: ' before its text", number, len(line))
        if line[i] != " ":
            raise fail("claim.syntax", "claim tokens are separated by exactly one space", number, i + 1)
        i += 1


def _form(token: _Token | None, number: int, end_column: int) -> str:
    if token is None or token.quoted:
        raise fail("claim.form", "a claim needs an inference form, e.g. [restatement]", number, end_column)
    form = token.text[1:-1] if token.text.startswith("[") and token.text.endswith("]") else None
    if form not in INFERENCE_FORMS:
        raise fail("claim.form", f"{token.text!r} is not one of [{'], ['.join(INFERENCE_FORMS)}]", number, token.column)
    return form


def _clauses(tokens: list[_Token], number: int) -> tuple[list[str], list[str], list[int], str | None]:
    """The optional ``cites``, ``from`` and ``derive`` clauses, each at most once and in that order."""
    cites: list[str] = []
    premises: list[str] = []
    columns: list[int] = []
    derive: str | None = None
    last = -1
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.quoted or token.text not in _CLAUSES:
            raise fail(
                "claim.clause", f"unexpected {token.text!r}: clauses are cites, from, derive", number, token.column
            )
        order = _CLAUSES.index(token.text)
        if order <= last:
            raise fail(
                "claim.clause", f"{token.text} is repeated or out of order (cites, from, derive)", number, token.column
            )
        last = order
        if token.text == "derive":
            if i + 1 >= len(tokens) or not tokens[i + 1].quoted:
                raise fail("claim.derive", 'a derivation is written derive "<text>"', number, token.column)
            derive = tokens[i + 1].text
            if not derive or derive != derive.strip():
                raise fail(
                    "claim.derive", "a derivation is non-empty with no edge whitespace", number, tokens[i + 1].column
                )
            i += 2
            continue
        items, i = _list(tokens, i + 1, number)
        for item, column in items:
            if token.text == "cites":
                check_ref(item, number, column)
            else:
                check_claim_id(item, number, column)
                columns.append(column)
            (cites if token.text == "cites" else premises).append(item)
    return cites, premises, columns, derive


def _list(tokens: list[_Token], i: int, number: int) -> tuple[list[tuple[str, int]], int]:
    """A ``, ``-separated list: every item but the last ends with ','; returns items and the next index."""
    items: list[tuple[str, int]] = []
    seen: set[str] = set()
    while True:
        if i >= len(tokens) or tokens[i].quoted or tokens[i].text in _CLAUSES:
            column = tokens[i].column if i < len(tokens) else tokens[i - 1].column
            raise fail("claim.clause", "a cites/from list needs at least one item after each ', '", number, column)
        token = tokens[i]
        more = token.text.endswith(",")
        item = token.text[:-1] if more else token.text
        if not item or "," in item:
            raise fail("claim.syntax", "list items are separated by exactly ', '", number, token.column)
        if item in seen:
            raise fail("claim.duplicate_ref", f"{item!r} is listed twice", number, token.column)
        seen.add(item)
        items.append((item, token.column))
        i += 1
        if not more:
            return items, i
