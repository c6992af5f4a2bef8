"""The OUTPUT serializer: canonical text, or a refusal.

Canonical text is the header, the actions, then the terminal block (an
abstention's claim lines, if any, right after its ``@abstain`` line), one line
each, no blank lines, one final newline; keyword values are written bare
whenever the bare form reads back identically and double-quoted otherwise.

Every field first passes the lexical check the parser would apply, under the
parser's code. Then, as a backstop, the text is parsed back and compared with
the value: whatever rule the field checks do not cover (a premise cycle, a
quote that occurs twice in the prose, a binding whose offsets disagree with
the prose) surfaces as the parser's own error or as ``value.lossy``. So a
value is either written so that ``parse(serialize(v)) == v``, or refused.
"""

from __future__ import annotations

from typing import Any

from memdsl._output_lexicon import (
    BARE_VALUE,
    KWARG_KEY,
    LABEL,
    check_chars,
    check_claim_id,
    check_ref,
    check_smart_quotes,
    check_text,
)
from memdsl._output_parser import parse
from memdsl._output_values import ACTION_VERBS, INFERENCE_FORMS, Abstention, ActionCall, Answer, Binding, Claim, Output
from memdsl.errors import fail


def serialize(value: Output) -> str:
    """The canonical text of ``value``; ``MemDSLParseError`` for a value it cannot write faithfully.

    A non-``Output`` argument is a ``TypeError``, as in the other directions.
    """
    if not isinstance(value, Output):
        raise TypeError(f"serialize_output takes an Output, not {type(value).__name__}")
    if value.version not in (1, 2) or isinstance(value.version, bool):
        raise fail("output.version", f"OUTPUT version {value.version!r} does not exist (1 or 2)")
    lines = [f"@memdsl.out/{value.version}"]
    for action in _tuple_of(value.actions, ActionCall, "actions"):
        lines.append(_action(action, len(lines) + 1))
    terminal = value.terminal
    if isinstance(terminal, Abstention):
        lines.append(_abstention(terminal, len(lines) + 1))
        for claim in _tuple_of(terminal.claims, Claim, "abstention claims"):
            lines.append(_claim(claim, len(lines) + 1))
    elif isinstance(terminal, Answer):
        _answer(terminal, value.version, lines)
    else:
        raise fail(
            "value.type", f"terminal must be Answer or Abstention, not {type(terminal).__name__}", len(lines) + 1
        )
    text = "\n".join(lines) + "\n"
    if parse(text) != value:
        raise fail("value.lossy", "the value would not read back identically (check field types and binding offsets)")
    return text


def _action(action: ActionCall, number: int) -> str:
    if action.verb in ("answer", "abstain"):
        raise fail("action.terminal_call", f"{action.verb} is a terminal, not an action", number)
    if action.verb not in ACTION_VERBS:
        raise fail("action.verb", f"unregistered verb {action.verb!r}", number)
    parts: list[str] = []
    for ref in _tuple_of(action.args, str, "action args"):
        check_ref(ref, number, 1)
        parts.append(ref)
    for pair in _tuple_of(action.kwargs, tuple, "action kwargs"):
        if len(pair) != 2 or not all(isinstance(item, str) for item in pair):
            raise fail("value.type", "a keyword argument is a (key, value) pair of str", number)
        key, item = pair
        if not KWARG_KEY.fullmatch(key):
            raise fail("action.kwarg", f"keyword {key!r} is not a lowercase identifier", number)
        check_chars(item, number)
        check_smart_quotes(item, number, 1)
        if '"' in item:
            raise fail("action.kwarg", f"keyword value for {key!r} holds '\"' and cannot be quoted", number)
        parts.append(f"{key}={item}" if BARE_VALUE.fullmatch(item) else f'{key}="{item}"')
    return f"{action.verb}({', '.join(parts)})"


def _abstention(abstention: Abstention, number: int) -> str:
    if not isinstance(abstention.label, str) or not LABEL.fullmatch(abstention.label):
        raise fail("abstain.label", f"{abstention.label!r} is not a lowercase hyphenated label", number)
    _expect(abstention.detail, str, "an abstention detail")
    check_text(abstention.detail, number, 1)
    return f"@abstain {abstention.label} :: {abstention.detail}"


def _answer(answer: Answer, version: int, lines: list[str]) -> None:
    lines.append("@answer")
    claims = _tuple_of(answer.claims, Claim, "claims")
    if not claims:
        raise fail("answer.no_claims", "an answer has at least one claim", len(lines) + 1)
    for claim in claims:
        lines.append(_claim(claim, len(lines) + 1))
    bindings = _tuple_of(answer.bindings, Binding, "bindings")
    if version == 1:
        if answer.prose is not None or bindings:
            raise fail("answer.v1_binding", "an @memdsl.out/1 answer has no prose and no bindings", len(lines) + 1)
    else:
        if answer.prose is None:
            raise fail("answer.prose_missing", "a v2 answer has prose", len(lines) + 1)
        _expect(answer.prose, str, "prose")
        check_text(answer.prose, len(lines) + 1, 1)
        lines.append(f"prose :: {answer.prose}")
        if not bindings:
            raise fail("answer.cite_missing", "a v2 answer binds its prose with one or more cites", len(lines) + 1)
        for binding in bindings:
            _expect(binding.claim_id, str, "a binding claim id")
            _expect(binding.text, str, "a binding text")
            check_claim_id(binding.claim_id, len(lines) + 1, 1)
            check_text(binding.text, len(lines) + 1, 1)
            lines.append(f"cite {binding.claim_id} :: {binding.text}")
    _expect(answer.conclusion, str, "the conclusion")
    check_claim_id(answer.conclusion, len(lines) + 1, 1)
    lines.append(f"conclude {answer.conclusion}")


def _claim(claim: Claim, number: int) -> str:
    _expect(claim.id, str, "a claim id")
    check_claim_id(claim.id, number, 1)
    if claim.form not in INFERENCE_FORMS:
        raise fail("claim.form", f"{claim.form!r} is not an inference form", number)
    head = f"claim {claim.id} [{claim.form}]"
    cites = _tuple_of(claim.cites, str, "cites")
    for ref in cites:
        check_ref(ref, number, 1)
    if cites:
        head += " cites " + ", ".join(cites)
    premises = _tuple_of(claim.premises, str, "premises")
    for premise in premises:
        check_claim_id(premise, number, 1)
    if premises:
        head += " from " + ", ".join(premises)
    if claim.derive is not None:
        _expect(claim.derive, str, "a derivation")
        check_chars(claim.derive, number)
        check_smart_quotes(claim.derive, number, 1)
        if '"' in claim.derive or not claim.derive or claim.derive != claim.derive.strip():
            raise fail("claim.derive", "a derivation is non-empty, has no edge whitespace and no '\"'", number)
        head += f' derive "{claim.derive}"'
    _expect(claim.text, str, "a claim text")
    check_text(claim.text, number, len(head) + 5)
    return f"{head} :: {claim.text}"


def _tuple_of(items: Any, kind: type, what: str) -> tuple[Any, ...]:
    """Values are tuples all the way down (hashable, comparable); anything else is refused."""
    if not isinstance(items, tuple) or not all(isinstance(item, kind) for item in items):
        raise fail("value.type", f"{what} must be a tuple of {kind.__name__}")
    return items


def _expect(item: object, kind: type, what: str) -> None:
    if not isinstance(item, kind):
        raise fail("value.type", f"{what} must be {kind.__name__}, not {type(item).__name__}")
