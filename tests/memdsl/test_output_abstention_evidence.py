"""A false-premise abstention may carry claim lines: the evidence that contradicts the question.

Only ``@memdsl.out/2`` and only the ``false-premise`` label: every other
abstention stays a single line, and the claim lines keep the answer's claim
rules (ids, premises, cycles) but take no prose, cite or conclude line.
"""

from __future__ import annotations

import pytest

from memdsl.errors import MemDSLParseError
from memdsl.output import Abstention, Claim, Output, parse_output, serialize_output

HEAD = "@memdsl.out/2\n@abstain false-premise :: the question assumes costs rose\n"
EVIDENCE = "claim c1 [restatement] cites n1 :: Costs fell from 8 bps to 5 bps.\n"


def failure(text: str) -> tuple[str, int, int]:
    with pytest.raises(MemDSLParseError) as caught:
        parse_output(text)
    return caught.value.code, caught.value.line, caught.value.column


def test_a_false_premise_abstention_reads_its_claim_lines_as_its_evidence() -> None:
    value = parse_output(HEAD + EVIDENCE)
    assert value.terminal == Abstention(
        "false-premise",
        "the question assumes costs rose",
        (Claim("c1", "restatement", ("n1",), (), None, "Costs fell from 8 bps to 5 bps."),),
    )


def test_an_abstention_without_claim_lines_still_has_no_claims() -> None:
    value = parse_output(HEAD)
    assert isinstance(value.terminal, Abstention) and value.terminal.claims == ()


def test_an_abstention_with_claims_round_trips_byte_for_byte() -> None:
    text = HEAD + EVIDENCE + "claim c2 [deduction] from c1 :: Costs fell from 8 bps to 5 bps.\n"
    assert serialize_output(parse_output(text)) == text


@pytest.mark.parametrize("label", ["low-coverage", "missing-hop", "stale", "budget-2x"])
def test_claim_lines_after_any_other_label_are_trailing_lines(label: str) -> None:
    text = f"@memdsl.out/2\n@abstain {label} :: nothing grounds it\n{EVIDENCE}"
    assert failure(text) == ("terminal.trailing", 3, 1)


def test_a_legacy_v1_false_premise_abstention_carries_no_claims() -> None:
    assert failure("@memdsl.out/1" + HEAD[len("@memdsl.out/2") :] + EVIDENCE) == ("terminal.trailing", 3, 1)


@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        pytest.param("prose :: Costs fell.\n", ("terminal.trailing", 4, 1), id="prose"),
        pytest.param("cite c1 :: Costs fell.\n", ("terminal.trailing", 4, 1), id="cite"),
        pytest.param("conclude c1\n", ("terminal.trailing", 4, 1), id="conclude"),
        pytest.param("expand(n1)\n", ("action.after_terminal", 4, 1), id="action"),
        pytest.param("@abstain stale :: x\n", ("terminal.duplicate", 4, 1), id="second-terminal"),
        pytest.param("@answer\n", ("terminal.duplicate", 4, 1), id="answer-after"),
        pytest.param(EVIDENCE, ("claim.duplicate_id", 4, 7), id="duplicate-id"),
        pytest.param("claim c2 [deduction] from c9 :: So.\n", ("claim.premise_unknown", 4, 27), id="premise"),
        pytest.param("claim c2 [grounded] cites n1 :: So.\n", ("claim.status", 4, 10), id="status-as-form"),
        pytest.param("claim c2 [restatement] :: So.\n", ("claim.unsupported", 4, 1), id="uncited"),
    ],
)
def test_the_evidence_lines_keep_the_claim_rules_and_nothing_else_follows(
    tail: str, expected: tuple[str, int, int]
) -> None:
    assert failure(HEAD + EVIDENCE + tail) == expected


def test_a_premise_cycle_among_evidence_claims_is_refused() -> None:
    text = HEAD + "claim c1 [deduction] from c2 :: One.\nclaim c2 [deduction] from c1 :: Two.\n"
    assert failure(text) == ("claim.cycle", 3, 1)


def test_a_claim_line_before_the_abstention_is_still_an_unknown_line() -> None:
    text = "@memdsl.out/2\n" + EVIDENCE + "@abstain false-premise :: the question assumes costs rose\n"
    assert failure(text) == ("line.unknown", 2, 1)


def test_the_serializer_refuses_claims_on_an_abstention_that_cannot_carry_them() -> None:
    claim = Claim("c1", "restatement", ("n1",), (), None, "Costs fell.")
    for value in (
        Output(2, (), Abstention("low-coverage", "x", (claim,))),
        Output(1, (), Abstention("false-premise", "x", (claim,))),
    ):
        with pytest.raises(MemDSLParseError) as caught:
            serialize_output(value)
        assert caught.value.code == "terminal.trailing"


def test_the_serializer_refuses_evidence_that_is_not_a_tuple_of_claims() -> None:
    value = Output(2, (), Abstention("false-premise", "x", ["c1"]))  # type: ignore[arg-type]
    with pytest.raises(MemDSLParseError) as caught:
        serialize_output(value)
    assert caught.value.code == "value.type"
