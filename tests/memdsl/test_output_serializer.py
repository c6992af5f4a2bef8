"""The OUTPUT serializer writes only what reads back identically, and refuses the rest with a code."""

from __future__ import annotations

from typing import Any

import pytest

from memdsl.errors import MemDSLParseError
from memdsl.output import Abstention, ActionCall, Answer, Binding, Claim, Output, parse_output, serialize_output

SENTENCE = "Transaction costs increased from 5 bps to 8 bps."


def claim(**changes: Any) -> Claim:
    fields: dict[str, Any] = {
        "id": "c1", "form": "restatement", "cites": ("n1",), "premises": (), "derive": None, "text": SENTENCE,
    }  # fmt: skip
    fields.update(changes)
    return Claim(**fields)


def answer_output(*claims: Claim, prose: str | None = SENTENCE, bindings: tuple[Binding, ...] | None = None,
                  version: int = 2, conclusion: str = "c1", actions: tuple[ActionCall, ...] = ()) -> Output:  # fmt: skip
    if bindings is None:
        bindings = (Binding("c1", SENTENCE, 0, len(SENTENCE)),) if version == 2 else ()
    return Output(version, actions, Answer(claims or (claim(),), prose if version == 2 else None, bindings, conclusion))


def refusal(value: Any) -> str:
    with pytest.raises(MemDSLParseError) as caught:
        serialize_output(value)
    return caught.value.code


def test_a_claim_text_holding_the_separator_and_markers_round_trips() -> None:
    text = 'a :: b @answer "quoted" | conclude c1'
    value = answer_output(claim(), claim(id="c2", form="deduction", cites=(), premises=("c1",), text=text))
    assert parse_output(serialize_output(value)) == value


def test_keyword_values_are_bare_when_possible_and_quoted_otherwise() -> None:
    ground = ActionCall("ground", ("n1",), (("verifier", "quote"), ("quote", "a, b (c)"), ("empty", "")))
    text = serialize_output(answer_output(actions=(ground,)))
    assert 'ground(n1, verifier=quote, quote="a, b (c)", empty="")\n' in text
    assert parse_output(text).actions == (ground,)


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (answer_output(claim(text="two\nlines")), "text.control"),
        (answer_output(claim(text=" leading")), "text.whitespace"),
        (answer_output(claim(text="")), "text.empty"),
        (answer_output(claim(form="guess")), "claim.form"),
        (answer_output(claim(id="n1")), "claim.id"),
        (answer_output(claim(cites=("x1",))), "ref.syntax"),
        (answer_output(claim(cites=("mem:tree:a=b",))), "ref.syntax"),
        (answer_output(claim(form="calculation", derive='say "hi"')), "claim.derive"),
        (answer_output(claim(form="calculation", derive="\u201c1 + 1\u201d")), "quote.smart"),
        (answer_output(claim(form="calculation", derive=" 1 + 1")), "claim.derive"),
        (answer_output(claim(form="deduction", derive="1 + 1")), "claim.derive"),
        (answer_output(claim(form="deduction", cites=())), "claim.unsupported"),
        (answer_output(claim(), claim()), "claim.duplicate_id"),
        (answer_output(claim(premises=("c1",))), "claim.cycle"),
        (answer_output(claim(form="assumption", cites=())), "conclude.uncited"),
        (answer_output(conclusion="c2"), "conclude.unknown"),
        (answer_output(prose=None), "answer.prose_missing"),
        (answer_output(bindings=()), "answer.cite_missing"),
        (answer_output(bindings=(Binding("c1", SENTENCE, 1, 49),)), "value.lossy"),
        (answer_output(bindings=(Binding("c1", "Costs fell", 0, 10),)), "anchor.not_found"),
        (answer_output(prose=SENTENCE + " Extra."), "anchor.uncovered"),
        (Output(1, (), Answer((claim(),), SENTENCE, (), "c1")), "answer.v1_binding"),
        (Output(2, (), Answer((), SENTENCE, (), "c1")), "answer.no_claims"),
        (Output(3, (), Abstention("stale", "x")), "output.version"),
        (Output(2, (), Abstention("Low Coverage", "x")), "abstain.label"),
        (Output(2, (), Abstention("stale", "x\u2028y")), "text.control"),
        (Output(2, (ActionCall("answer", ("c1",)),), Abstention("stale", "x")), "action.terminal_call"),
        (Output(2, (ActionCall("fetch", ("n1",)),), Abstention("stale", "x")), "action.verb"),
        (Output(2, (ActionCall("join", ("n1",)),), Abstention("stale", "x")), "action.arity"),
        (Output(2, (ActionCall("join", ("n1", "n1")),), Abstention("stale", "x")), "action.duplicate_ref"),
        (Output(2, (ActionCall("expand", ("n1",), (("k", "v"),)),), Abstention("stale", "x")), "action.kwarg"),
        (
            Output(2, (ActionCall("ground", ("n1",), (("quote", 'say "x"'),)),), Abstention("stale", "x")),
            "action.kwarg",
        ),
        (Output(2, (ActionCall("ground", ("n1",), (("Quote", "x"),)),), Abstention("stale", "x")), "action.kwarg"),
        (
            Output(2, (ActionCall("ground", ("n1",), (("quote", "\u2018x\u2019"),)),), Abstention("stale", "x")),
            "quote.smart",
        ),
    ],
)
def test_a_value_that_cannot_be_written_faithfully_is_refused_with_its_code(value: Output, code: str) -> None:
    assert refusal(value) == code


def test_lists_where_tuples_belong_are_refused() -> None:
    assert refusal(Output(2, [ActionCall("expand", ("n1",))], Abstention("stale", "x"))) == "value.type"  # type: ignore[arg-type]
    assert refusal(answer_output(claim(cites=["n1"]))) == "value.type"


def test_serializing_something_that_is_not_an_output_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        serialize_output("@memdsl.out/2\n")  # type: ignore[arg-type]


def test_a_refusal_points_at_the_line_the_field_would_occupy() -> None:
    value = answer_output(claim(), claim(id="c2", form="deduction", cites=(), premises=("c1",), text="bad\ttab"))
    with pytest.raises(MemDSLParseError) as caught:
        serialize_output(value)
    assert (caught.value.code, caught.value.line) == ("text.control", 4)
