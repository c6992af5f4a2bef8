"""Quote anchors: one exact span per cite, no overlaps, and the documented coverage rule."""

from __future__ import annotations

import pytest

from memdsl.errors import MemDSLParseError
from memdsl.output import FREE_PUNCTUATION, is_bearing, parse_output


def artifact(prose: str, *quotes: str) -> str:
    """A v2 answer whose claims c1..cK are each bound by one of ``quotes``; c0 concludes over all."""
    claims = [f"claim c{k} [restatement] cites n{k} :: {quote}" for k, quote in enumerate(quotes, 1)]
    premises = ", ".join(f"c{k}" for k in range(1, len(quotes) + 1))
    cites = [f"cite c{k} :: {quote}" for k, quote in enumerate(quotes, 1)]
    lines = ["@memdsl.out/2", "@answer", *claims, f"claim c99 [deduction] from {premises} :: All of it."]
    return "\n".join([*lines, f"prose :: {prose}", *cites, "conclude c99"]) + "\n"


def failure(text: str) -> tuple[str, int, int]:
    with pytest.raises(MemDSLParseError) as caught:
        parse_output(text)
    return caught.value.code, caught.value.line, caught.value.column


def test_spans_may_touch_and_free_punctuation_may_sit_between_them() -> None:
    value = parse_output(artifact("«Costs rose», (sharply); returns fell…", "Costs rose", "sharply", "returns fell"))
    assert value.answer is not None
    assert [(b.start, b.end) for b in value.answer.bindings] == [(1, 11), (15, 22), (25, 37)]


def test_and_or_also_may_join_two_spans() -> None:
    value = parse_output(artifact("Costs rose, and also returns fell.", "Costs rose", "returns fell."))
    assert value.answer is not None
    assert [(b.start, b.end) for b in value.answer.bindings] == [(0, 10), (21, 34)]


def test_a_connective_that_asserts_a_relation_outside_every_quote_is_uncovered() -> None:
    assert failure(artifact("Costs rose so returns fell.", "Costs rose", "returns fell.")) == (
        "anchor.uncovered",
        6,
        21,
    )


@pytest.mark.parametrize("mark", [":", "\u2014", "\u2013", "->", "=", "\u2192"])
def test_a_colon_dash_arrow_or_equals_sign_between_two_spans_is_uncovered(mark: str) -> None:
    prose = f"Gold tier {mark} members earn 2% cashback."
    assert failure(artifact(prose, "Gold tier", "members earn 2% cashback."))[0] == "anchor.uncovered"


def test_a_joining_word_before_the_first_span_is_uncovered() -> None:
    assert failure(artifact("And costs rose.", "costs rose."))[0] == "anchor.uncovered"


@pytest.mark.parametrize(
    ("prose", "quotes", "column"),
    [
        ("Costs rose -5% overall.", ("Costs rose", "5", "overall."), 21),  # the sign
        ("Costs rose 5 % overall.", ("Costs rose 5", "overall."), 23),  # the percent
        ("Costs rose to $5.", ("Costs rose to", "5."), 24),  # the currency
        ("Sharpe went 1.4 → 1.1.", ("Sharpe went 1.4", "1.1."), 26),  # the arrow
        ("It was 12,000 units.", ("It was 12", "000 units."), 19),  # thousands separator
        ("Ratio 3:1 held.", ("Ratio 3", "1 held."), 17),  # ratio colon
    ],
)
def test_signs_units_symbols_and_number_joiners_bear_meaning(prose: str, quotes: tuple[str, ...], column: int) -> None:
    line = 3 + len(quotes) + 1
    assert failure(artifact(prose, *quotes)) == ("anchor.uncovered", line, column)


def test_a_quote_that_matches_at_overlapping_offsets_is_ambiguous() -> None:
    assert failure(artifact("aaa", "aa", "a"))[0] == "anchor.ambiguous"


def test_quotes_are_case_and_whitespace_exact() -> None:
    assert failure(artifact("Costs rose.", "costs rose."))[0] == "anchor.not_found"
    assert failure(artifact("Costs  rose.", "Costs rose."))[0] == "anchor.not_found"


def test_two_cites_of_the_same_text_overlap() -> None:
    assert failure(artifact("Costs rose.", "Costs rose.", "Costs rose."))[:2] == ("anchor.overlap", 8)


def test_bearing_is_letters_digits_and_symbols_but_not_free_punctuation_or_space() -> None:
    assert all(is_bearing(char, 0) for char in "aZé7٣%$+-/=<>#&@^~|\\×°€→")
    assert not any(is_bearing(char, 0) for char in FREE_PUNCTUATION)
    assert not any(is_bearing(char, 0) for char in " \u00a0\u3000")
    assert is_bearing("1.4", 1) and not is_bearing("a.4", 1) and not is_bearing("1. ", 1)
