"""The OUTPUT block parser: line order, the terminal, and the claim DAG.

The text is read in three phases: actions, then exactly one terminal block
(``@answer`` ... ``conclude``, or one ``@abstain`` line, which in v2 and only
for ``false-premise`` may be followed by claim lines naming the contradicting
evidence), then nothing but blank lines. Every line is classified before it is
parsed, so a line of the wrong kind in the wrong place gets its own code rather
than a generic syntax error. Cross-line rules (premises, cycles, the conclusion, quote anchors) run
once the block is complete.
"""

from __future__ import annotations

from memdsl._anchors import CiteLine, bind_quotes
from memdsl._output_fence import Line, open_envelope
from memdsl._output_lines import (
    ACTION_START,
    ParsedClaim,
    parse_abstain,
    parse_action,
    parse_claim,
    parse_conclude,
    parse_text_line,
)
from memdsl._output_values import FALSE_PREMISE, Abstention, ActionCall, Answer, Output
from memdsl.errors import fail

ANSWER_KEYWORDS = ("claim", "prose", "cite", "conclude")


def parse(text: str) -> Output:
    """Parse one OUTPUT text (v1 or v2); any broken rule raises a positioned ``MemDSLParseError``."""
    envelope = open_envelope(text)
    lines = envelope.body
    end_line = (lines[-1][0] if lines else envelope.header_line) + 1
    actions: list[ActionCall] = []
    for index, (number, line) in enumerate(lines):
        kind = classify(line, number)
        if kind == "action":
            actions.append(parse_action(line, number))
        elif kind == "@answer":
            answer, rest = _answer_block(lines[index + 1 :], envelope.version, end_line)
            _nothing_after(rest)
            return Output(envelope.version, tuple(actions), answer)
        elif kind == "@abstain":
            abstention = _abstain_block(line, number, lines[index + 1 :], envelope.version)
            return Output(envelope.version, tuple(actions), abstention)
        else:
            raise fail("line.unknown", _unknown(kind), number, 1)
    raise fail("terminal.missing", "an OUTPUT ends with one @answer block or one @abstain line", end_line, 1)


def classify(line: str, number: int) -> str:
    """The kind of a non-blank body line; markers that are near misses fail here, with their own code."""
    if line[0] == " " or line[-1] == " ":
        column = 1 if line[0] == " " else len(line)
        raise fail("line.spacing", "a line has no leading or trailing whitespace", number, column)
    if line.startswith("```"):
        raise fail(
            "fence.stray", "a fence line inside the artifact (only one clean outer fence is unwrapped)", number, 1
        )
    if line.startswith("@"):
        if line == "@answer":
            return "@answer"
        if line.startswith("@abstain "):
            return "@abstain"
        if line == "@abstain":
            raise fail("abstain.syntax", "an abstention is @abstain <label> :: <detail>", number, 1)
        if line.lower().startswith("@memdsl"):
            raise fail("output.header_repeated", "a second header inside the artifact", number, 1)
        raise fail("terminal.syntax", f"{line.split(' ', 1)[0]!r} is not @answer or @abstain", number, 1)
    keyword = line.split(" ", 1)[0]
    if keyword in ANSWER_KEYWORDS:
        return keyword
    if ACTION_START.match(line):
        return "action"
    return "unknown"


def _unknown(kind: str) -> str:
    if kind in ANSWER_KEYWORDS:
        return f"a {kind} line belongs inside an @answer block"
    return "not an OUTPUT line before the terminal (expected an action call, @answer or @abstain)"


def _answer_block(lines: list[Line], version: int, end_line: int) -> tuple[Answer, list[Line]]:
    """Claims, then (v2) one prose line and one or more cites, then ``conclude``; returns the rest."""
    claims: list[ParsedClaim] = []
    claim_ids: set[str] = set()
    prose: tuple[str, int, int] | None = None
    cites: list[CiteLine] = []
    for index, (number, line) in enumerate(lines):
        kind = classify(line, number)
        if kind in ("prose", "cite") and version == 1:
            raise fail("answer.v1_binding", f"a {kind} line is OUTPUT v2; @memdsl.out/1 answers have none", number, 1)
        if kind in ANSWER_KEYWORDS and kind != "claim" and not claims:
            raise fail("answer.no_claims", "an answer starts with at least one claim line", number, 1)
        if kind == "claim":
            if prose is not None:
                raise fail("answer.order", "claim lines come before the prose line", number, 1)
            parsed = parse_claim(line, number)
            if parsed.claim.id in claim_ids:
                raise fail("claim.duplicate_id", f"claim id {parsed.claim.id} is used twice", number, 7)
            claim_ids.add(parsed.claim.id)
            claims.append(parsed)
        elif kind == "prose":
            if prose is not None:
                raise fail("answer.prose_duplicate", "an answer has exactly one prose line", number, 1)
            _, text = parse_text_line(line, number, "prose")
            prose = (text, number, len("prose :: ") + 1)
        elif kind == "cite":
            if prose is None:
                raise fail("answer.order", "cite lines follow the prose line", number, 1)
            claim_id, quote = parse_text_line(line, number, "cite")
            cites.append(CiteLine(str(claim_id), quote, number, len(line) - len(quote) + 1))
        elif kind == "conclude":
            if version == 2:
                _check_bindings_present(prose, cites, number)
            conclusion = parse_conclude(line, number)
            answer = _build(claims, prose, cites, conclusion, number)
            return answer, lines[index + 1 :]
        elif kind in ("@answer", "@abstain"):
            raise fail("terminal.duplicate", "an OUTPUT has exactly one terminal", number, 1)
        elif kind == "action":
            raise fail("action.after_terminal", "all actions come before the terminal", number, 1)
        else:
            raise fail("line.unknown", "not an answer line (claim, prose, cite or conclude)", number, 1)
    if not claims:
        raise fail("answer.no_claims", "an answer has at least one claim line", end_line, 1)
    if version == 2:
        _check_bindings_present(prose, cites, end_line)
    raise fail("answer.conclude_missing", "an answer ends with an explicit conclude line", end_line, 1)


def _abstain_block(line: str, number: int, rest: list[Line], version: int) -> Abstention:
    """``@abstain <label> :: <detail>``; a v2 false-premise one may be followed by claim lines (its evidence).

    The claims form a DAG like an answer's (unique ids, known premises, no cycle)
    but have no prose, cites or conclusion: the engine shows a licensed one as
    what is true instead of the question's premise.
    """
    abstention = parse_abstain(line, number)
    carries = version == 2 and abstention.label == FALSE_PREMISE
    claims: list[ParsedClaim] = []
    for index, (claim_number, claim_line) in enumerate(rest):
        if classify(claim_line, claim_number) != "claim":
            _nothing_after(rest[index:])  # raises on this very line
        if not carries:
            raise fail(
                "terminal.trailing",
                "only an @memdsl.out/2 false-premise abstention is followed by claim lines",
                claim_number,
                1,
            )
        parsed = parse_claim(claim_line, claim_number)
        if any(parsed.claim.id == earlier.claim.id for earlier in claims):
            raise fail("claim.duplicate_id", f"claim id {parsed.claim.id} is used twice", claim_number, 7)
        claims.append(parsed)
    _check_dag(claims)
    return Abstention(abstention.label, abstention.detail, tuple(parsed.claim for parsed in claims))


def _check_bindings_present(prose: tuple[str, int, int] | None, cites: list[CiteLine], number: int) -> None:
    if prose is None:
        raise fail("answer.prose_missing", "a v2 answer has one prose line after its claims", number, 1)
    if not cites:
        raise fail("answer.cite_missing", "a v2 answer binds its prose with one or more cite lines", number, 1)


def _nothing_after(lines: list[Line]) -> None:
    """Only blank lines may follow the terminal block."""
    for number, line in lines:
        kind = classify(line, number)
        if kind in ("@answer", "@abstain"):
            raise fail("terminal.duplicate", "an OUTPUT has exactly one terminal", number, 1)
        if kind == "action":
            raise fail("action.after_terminal", "all actions come before the terminal", number, 1)
        raise fail("terminal.trailing", "nothing may follow the terminal block", number, 1)


def _build(
    claims: list[ParsedClaim],
    prose: tuple[str, int, int] | None,
    cites: list[CiteLine],
    conclusion: str,
    conclude_line: int,
) -> Answer:
    """Check the DAG and the conclusion, resolve the quote anchors, and assemble the answer."""
    known = _check_dag(claims)
    answer = Answer(tuple(parsed.claim for parsed in claims), None, (), conclusion)
    if conclusion not in known:
        raise fail("conclude.unknown", f"conclusion {conclusion} names no claim", conclude_line, len("conclude ") + 1)
    closure = answer.closure(conclusion)
    if not any(answer.claim(claim_id).cites for claim_id in closure):
        raise fail("conclude.uncited", "the conclusion's closure cites no evidence", conclude_line, 1)
    if prose is None:
        return answer
    for cite in cites:
        if cite.claim_id not in known:
            raise fail("cite.unknown_claim", f"cite names unknown claim {cite.claim_id}", cite.line, len("cite ") + 1)
        if cite.claim_id not in closure:
            raise fail(
                "cite.outside_closure",
                f"{cite.claim_id} is outside the conclusion's closure",
                cite.line,
                len("cite ") + 1,
            )
    bindings = bind_quotes(prose[0], cites, prose[1], prose[2])
    return Answer(answer.claims, prose[0], bindings, conclusion)


def _check_dag(claims: list[ParsedClaim]) -> set[str]:
    """Every premise names a claim of the same block and no claim rests on itself; returns the claim ids."""
    known = {parsed.claim.id for parsed in claims}
    for parsed in claims:
        for premise, column in zip(parsed.claim.premises, parsed.premise_columns, strict=True):
            if premise not in known:
                raise fail("claim.premise_unknown", f"premise {premise} names no claim", parsed.line, column)
    _check_acyclic(claims)
    return known


def _check_acyclic(claims: list[ParsedClaim]) -> None:
    """Refuse a premise cycle: depth-first in line order, naming the cycle's earliest claim.

    Iterative and linear in claims plus premises, so neither a deep chain nor a
    wide fan-in can stall the parser. Every premise is known to exist.
    """
    premises = {parsed.claim.id: parsed.claim.premises for parsed in claims}
    line_of = {parsed.claim.id: parsed.line for parsed in claims}
    done: set[str] = set()
    for parsed in claims:
        if parsed.claim.id in done:
            continue
        path = [parsed.claim.id]
        on_path = {parsed.claim.id}
        pending = [iter(premises[parsed.claim.id])]
        while pending:
            premise = next(pending[-1], None)
            if premise is None:
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                pending.pop()
            elif premise in on_path:
                first = min(path[path.index(premise) :], key=line_of.__getitem__)
                raise fail("claim.cycle", f"claim {first} rests on itself through its premises", line_of[first], 1)
            elif premise not in done:
                path.append(premise)
                on_path.add(premise)
                pending.append(iter(premises[premise]))
