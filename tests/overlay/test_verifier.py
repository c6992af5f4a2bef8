"""The synthesize traceability verifier: every case the seed names, and its three blind spots."""

from __future__ import annotations

import pytest

from synapse_server.overlay.verifier import BLIND_SPOTS, BriefMaterial, quoted_spans, verify_brief

MEMORY_ID = "deci-4e291b00"
MATERIAL = BriefMaterial(
    memory_id=MEMORY_ID,
    texts=(
        "Cost-model decision",
        "Transaction costs increased from 5 bps to 8 bps. Momentum increases returns in our sample.",
        "Higher costs reduce net momentum returns",
        "The spread fell to 250bps after costs.",
        "After costs of 10 bps per trade the spread fell to 0.6% per month.",
    ),
    verbatim=("After costs of 10 bps per trade the spread fell to 0.6% per month.",),
    identifiers=("mem:tree:deci-4e291b00", "zk:research:20260407-1030-costs-reduce-returns", "okafor-2019"),
)

FLAGGED = [
    ("fabricated statistic in digits", f"{MEMORY_ID} cut costs by 400bps.", ["400bps"]),
    ("spelled magnitude absent from the material", f"{MEMORY_ID} cut costs by four hundred basis points.",
     ["four hundred basis points"]),
    ("spelled statistic unit", f"{MEMORY_ID} lifted returns by twenty percent.", ["twenty percent"]),
    ("a hex id's digits never license a number", f"{MEMORY_ID} raised costs 400 times over.", ["400"]),
    ("the address's digits never license a number", f"mem:tree:{MEMORY_ID} saw 291 trades.", ["291"]),
    ("quoted span absent from the material", f'{MEMORY_ID}: the paper says "costs never matter".',
     ["costs never matter"]),
    ("quote stitched across material with an ellipsis", f'{MEMORY_ID}: "After costs ... the spread doubled".',
     ["After costs ... the spread doubled"]),
    ("memory id not cited", "Costs rose from 5 bps to 8 bps.", ["deci-4e291b00"]),
    ("the sign is part of the figure", f"{MEMORY_ID}: costs changed by -8 bps.", ["-8 bps"]),
    ("a bare number is still a figure in digits", f"{MEMORY_ID} reviewed 17 fills.", ["17"]),
]  # fmt: skip

PASSING = [
    ("figures restated from the material", f"{MEMORY_ID}: costs rose from 5 bps to 8 bps."),
    ("spelled figure present in digits in the material", f"{MEMORY_ID}: costs per trade were ten bps."),
    ("bare cardinal in prose is not a figure", f"{MEMORY_ID} is one of our decisions."),
    ("ordinal word in prose is not a figure", f"{MEMORY_ID} was the first experiment on costs."),
    ("verbatim quote of a retrieved quote", f'{MEMORY_ID}: "the spread fell to 0.6% per month".'),
    ("quote with an ellipsis over one source", f'{MEMORY_ID}: "After costs of 10 bps ... fell to 0.6% per month."'),
    ("the address cited in full", f"Practice mem:tree:{MEMORY_ID} applies the claim."),
    ("a canon address with digits is an identifier",
     f"{MEMORY_ID} applies zk:research:20260407-1030-costs-reduce-returns."),
    ("a source id is an identifier", f"{MEMORY_ID} follows okafor-2019."),
]  # fmt: skip

BLIND = [
    ("lexical meaning-inversion passes", f"{MEMORY_ID}: momentum decreases returns in our sample."),
    ("unit-variant restatement passes (2.5% for 250bps)", f"{MEMORY_ID}: the spread fell to 2.5% after costs."),
    ("spelled multiplier 'double' passes", f"{MEMORY_ID}: costs were double the breakeven."),
    ("spelled multiplier 'tenfold' passes", f"{MEMORY_ID}: costs rose tenfold."),
    ("spelled fraction 'a quarter' passes", f"{MEMORY_ID}: costs ate a quarter of the premium."),
    ("spelled fraction 'half' passes", f"{MEMORY_ID}: costs ate half of the premium."),
    ("ordinal as magnitude 'a fourth' passes", f"{MEMORY_ID}: costs ate a fourth of the premium."),
]


@pytest.mark.parametrize(("case", "brief", "failed"), FLAGGED, ids=[c[0] for c in FLAGGED])
def test_an_untraceable_brief_is_flagged_with_what_failed(case: str, brief: str, failed: list[str]) -> None:
    verdict = verify_brief(brief, MATERIAL)
    assert verdict.verified is False
    assert verdict.failed_tokens == failed


@pytest.mark.parametrize(("case", "brief"), PASSING, ids=[c[0] for c in PASSING])
def test_a_traceable_brief_verifies(case: str, brief: str) -> None:
    verdict = verify_brief(brief, MATERIAL)
    assert verdict.failures == []
    assert verdict.verified is True


@pytest.mark.parametrize(("case", "brief"), BLIND, ids=[c[0] for c in BLIND])
def test_the_documented_blind_spots_stay_blind_and_pass(case: str, brief: str) -> None:
    assert verify_brief(brief, MATERIAL).verified is True


def test_the_blind_spots_are_reported_as_three_named_classes() -> None:
    assert len(BLIND_SPOTS) == 3
    assert any("inversion" in spot for spot in BLIND_SPOTS)
    assert any("250bps" in spot for spot in BLIND_SPOTS)
    assert any("tenfold" in spot for spot in BLIND_SPOTS)


def test_spelled_magnitude_traces_when_the_material_states_it_in_digits() -> None:
    material = BriefMaterial(MEMORY_ID, ("The cut was 400bps.",), ())
    assert verify_brief(f"{MEMORY_ID} cut four hundred basis points.", material).verified is True


def test_spelled_percent_traces_to_the_same_figure_in_digits() -> None:
    material = BriefMaterial(MEMORY_ID, ("Returns rose 20%.",), ())
    assert verify_brief(f"{MEMORY_ID}: returns rose twenty percent.", material).verified is True


def test_a_hex_id_whose_digits_spell_the_figure_still_does_not_license_it() -> None:
    material = BriefMaterial("deci-40000000", ("Costs rose.",), ())
    verdict = verify_brief("deci-40000000 cut costs by 40000000 dollars.", material)
    assert verdict.failed_tokens == ["40000000 dollars"]


def test_an_all_digit_memory_id_is_still_an_identifier_not_a_figure() -> None:
    material = BriefMaterial("20260504", ("Costs rose.",), ())
    assert verify_brief("Entry 20260504 records that costs rose.", material).verified is True
    assert verify_brief("Entry 20260504 records 20260505.", material).failed_tokens == ["20260505"]


def test_a_bare_locator_never_blanks_a_figure() -> None:
    material = BriefMaterial(MEMORY_ID, ("Costs rose 13%.",), (), identifiers=("3",))
    assert verify_brief(f"{MEMORY_ID}: costs rose 13%.", material).verified is True
    assert verify_brief(f"{MEMORY_ID}: costs rose 3%.", material).failed_tokens == ["3%"]


def test_every_failure_is_reported_in_order_of_appearance() -> None:
    brief = f'{MEMORY_ID}: "costs vanish" at 400bps, then twenty percent.'
    verdict = verify_brief(brief, MATERIAL)
    assert verdict.failed_tokens == ["costs vanish", "400bps", "twenty percent"]
    assert [f.kind for f in verdict.failures] == ["quote", "figure", "figure"]
    assert verdict.figures_checked == 2
    assert verdict.quotes_checked == 1


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ('He said "a b" and "c".', ["a b", "c"]),
        ("Curly \u201cquoted words\u201d here.", ["quoted words"]),
        ("Single \u2018curly\u2019 quotes count.", ["curly"]),
        ("Apostrophes don't open a quote.", []),
        ('An empty "" quote is nothing.', []),
    ],
)
def test_quoted_spans_are_double_or_curly_quotes(text: str, spans: list[str]) -> None:
    assert [span for _, span in quoted_spans(text)] == spans
