"""Quote finding in a brief is linear: a run of opening curly quotes (a brief can echo store text) never stalls it."""

from __future__ import annotations

import time

import pytest

from synapse_server.overlay.verifier import quoted_spans

BOUND_S = 5.0
"""Generous for a linear scan of 100k characters; the old pattern took minutes on these runs."""


@pytest.mark.parametrize("mark", ["\u201c", "\u2018", '"'])
def test_a_run_of_one_quote_mark_is_scanned_in_linear_time(mark: str) -> None:
    text = "Intro " + mark * 100_000 + " tail \u201cThe ledger keeps cents.\u201d"
    started = time.perf_counter()
    spans = quoted_spans(text)
    seconds = time.perf_counter() - started
    assert seconds < BOUND_S, f"quoted_spans took {seconds:.1f} s"
    assert spans[-1] == (text.index("The ledger"), "The ledger keeps cents.")


def test_each_kind_of_quote_still_gives_its_span_and_offset() -> None:
    text = 'He said "rates rose" and \u201cfees fell\u201d, then \u2018margins held\u2019.'
    assert quoted_spans(text) == [
        (text.index("rates"), "rates rose"),
        (text.index("fees"), "fees fell"),
        (text.index("margins"), "margins held"),
    ]
