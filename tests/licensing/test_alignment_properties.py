"""Properties of the alignment over any text: it never raises, a clause always licenses itself, and a restricting
word added to or dropped from it is always refused."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from synapse_server.language.words import tokens
from synapse_server.licensing.alignment import align
from synapse_server.licensing.frames import frame_of

WORDS = st.sampled_from(
    "the fee is rose fell from to up at least more than not non-certified only all may must until after "
    "account tier savings 5 $25 2.5% 14 days two weeks , ; and also".split()
)
TEXT = st.lists(WORDS, min_size=1, max_size=25).map(" ".join)
RESTRICTING = st.sampled_from(["not", "only", "must", "until", "never", "unless", "Gold", "$7"])


@given(TEXT)
def test_any_clause_licenses_itself_exactly(text: str) -> None:
    result = align(tokens(text), tokens(text))
    assert result.ok and result.exact


@given(TEXT, RESTRICTING, st.integers(min_value=0, max_value=30))
def test_a_restricting_word_added_to_a_clause_is_refused(text: str, word: str, at: int) -> None:
    words = text.split()
    claim = " ".join([*words[: at % (len(words) + 1)], word, *words[at % (len(words) + 1) :]])
    assert not align(tokens(claim), tokens(text)).ok


@given(TEXT, RESTRICTING, st.integers(min_value=0, max_value=30))
def test_a_restricting_word_dropped_from_a_clause_is_refused(text: str, word: str, at: int) -> None:
    words = text.split()
    clause = " ".join([*words[: at % (len(words) + 1)], word, *words[at % (len(words) + 1) :]])
    assert not align(tokens(text), tokens(clause)).ok


@given(TEXT, st.lists(st.text(max_size=20), max_size=3))
def test_alignment_never_raises_on_any_frame(text: str, frame: list[str]) -> None:
    align(tokens(text), tokens(text[::-1]), frame_of(frame))
