"""OUTPUT parser behaviours that the one-fixture-per-rule table does not spell out."""

from __future__ import annotations

import pytest

from memdsl.errors import MemDSLParseError
from memdsl.output import Abstention, ActionCall, parse_output, serialize_output


def answer(*claims: str, conclude: str, prose: str | None = None, cites: tuple[str, ...] = ()) -> str:
    lines = ["@memdsl.out/2" if prose else "@memdsl.out/1", "@answer", *claims]
    if prose:
        lines += [f"prose :: {prose}", *cites]
    return "\n".join([*lines, f"conclude {conclude}"]) + "\n"


def failure(text: str) -> tuple[str, int, int]:
    with pytest.raises(MemDSLParseError) as caught:
        parse_output(text)
    return caught.value.code, caught.value.line, caught.value.column


def test_premises_may_name_claims_defined_further_down() -> None:
    text = answer("claim c2 [deduction] from c1 :: So it follows.", "claim c1 [restatement] cites n1 :: Costs rose.",
                  conclude="c2")  # fmt: skip
    value = parse_output(text)
    assert value.answer is not None and value.answer.closure("c2") == frozenset({"c1", "c2"})


def test_a_cycle_is_reported_at_its_earliest_claim_even_when_found_from_a_later_one() -> None:
    text = answer(
        "claim c5 [deduction] from c4 :: Five.",
        "claim c1 [restatement] cites n1 :: Base.",
        "claim c2 [deduction] from c1, c4 :: Two.",
        "claim c3 [deduction] from c2 :: Three.",
        "claim c4 [deduction] from c3 :: Four.",
        conclude="c5",
    )
    assert failure(text) == ("claim.cycle", 5, 1)


def test_a_claim_that_is_its_own_premise_is_a_cycle() -> None:
    assert failure(answer("claim c1 [deduction] cites n1 from c1 :: Self.", conclude="c1")) == ("claim.cycle", 3, 1)


def test_a_long_premise_chain_and_a_wide_fan_in_parse() -> None:
    chain = [f"claim c{k} [deduction] from c{k - 1} :: Step {k}." for k in range(2, 3001)]
    fan = "claim c3001 [deduction] from " + ", ".join(f"c{k}" for k in range(1, 3001)) + " :: All of them."
    text = answer("claim c1 [restatement] cites n1 :: Base.", *chain, fan, conclude="c3001")
    value = parse_output(text)
    assert value.answer is not None and len(value.answer.closure("c3001")) == 3001


def test_status_words_in_free_text_are_just_words() -> None:
    text = answer("claim c1 [restatement] cites n1 :: The result is grounded, measured and inferred.", conclude="c1")
    assert parse_output(text).answer is not None


def test_the_separator_inside_a_derivation_or_a_claim_text_is_data() -> None:
    text = answer('claim c1 [calculation] cites n1 derive "8 - 5 :: 3" :: Costs rose by 3 :: bps.', conclude="c1")
    value = parse_output(text)
    assert value.answer is not None
    assert (value.answer.claims[0].derive, value.answer.claims[0].text) == ("8 - 5 :: 3", "Costs rose by 3 :: bps.")


def test_quoted_keyword_values_may_hold_separators_and_parentheses() -> None:
    text = '@memdsl.out/2\nground(n1, quote="a, b) c=d", verifier=quote)\n@abstain stale :: the pin drifted\n'
    value = parse_output(text)
    assert value.actions == (ActionCall("ground", ("n1",), (("quote", "a, b) c=d"), ("verifier", "quote"))),)
    assert serialize_output(value) == text


def test_addresses_with_locators_are_valid_refs_and_kept_verbatim() -> None:
    ref = "doc:filing:s3{#0-40@2026-01-01}"
    value = parse_output(answer(f"claim c1 [restatement] cites {ref}, n2 :: Filed.", conclude="c1"))
    assert value.answer is not None and value.answer.claims[0].cites == (ref, "n2")


def test_an_address_span_too_long_for_int_is_a_ref_error_not_a_crash() -> None:
    text = "@memdsl.out/2\nexpand(mem:a:b{#0-" + "9" * 5000 + "})\n@abstain stale :: x\n"
    assert failure(text)[:2] == ("ref.syntax", 2)


def test_a_v1_abstention_is_legal_and_keeps_its_version() -> None:
    value = parse_output("@memdsl.out/1\n@abstain missing-hop :: no edge from n1 to the run\n")
    assert (value.version, value.terminal) == (1, Abstention("missing-hop", "no edge from n1 to the run"))


def test_the_abstention_label_is_open_but_must_be_one_lowercase_hyphenated_word() -> None:
    assert parse_output("@memdsl.out/2\n@abstain budget-2x :: out of tokens\n").terminal == Abstention(
        "budget-2x", "out of tokens"
    )
    assert failure("@memdsl.out/2\n@abstain low--coverage :: x\n")[0] == "abstain.label"


def test_a_cite_error_points_at_the_quote() -> None:
    text = answer("claim c1 [restatement] cites n1 :: Costs rose.", conclude="c1", prose="Costs rose.",
                  cites=("cite c1 :: Costs fell.",))  # fmt: skip
    assert failure(text) == ("anchor.not_found", 5, 12)
