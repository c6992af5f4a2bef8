"""Question analysis: form, asked kind, focus terms (with optional ones), negation, temporal presupposition."""

from __future__ import annotations

import pytest

from synapse_server.language.question import analyse, stem


@pytest.mark.parametrize(
    ("question", "form", "asked"),
    [
        ("Why was the tool written in Go?", "why", None),
        ("What is the reason for the retry limit?", "why", None),
        ("How much did costs rise?", "how-much", None),
        ("How long do tokens stay valid?", "how-much", None),
        ("What percentage of trades fill?", "how-much", None),
        ("How does the signal rank tickers?", "how", None),
        ("What date format do the records use?", "what", "format"),
        ("Which database stores the index?", "what", "databas"),
        ("What happens to a failed job?", "what", None),
        ("What is the only exception?", "what", None),
        ("When does the backtest rebalance?", "what", "time"),
        ("Who approves a record?", "what", "person"),
        ("Where is the index stored?", "what", "place"),
        ("Does the backtest rebalance monthly?", "yes-no", None),
        ("Describe the cost model.", "other", None),
    ],
)
def test_the_form_and_the_asked_kind_follow_the_question_word(question: str, form: str, asked: str | None) -> None:
    analysed = analyse(question)
    assert (analysed.form, analysed.asked) == (form, asked)


def test_terms_drop_question_words_frame_verbs_and_temporal_markers() -> None:
    terms = analyse("Why did we originally decide to write the CLI in Go?").terms
    assert [term.word for term in terms] == ["cli", "go"]


def test_measure_nouns_distributive_phrases_and_the_asked_noun_are_optional() -> None:
    optional = {
        term.word: term.optional for term in analyse("What date format does the Sharpe ratio use on each trade?").terms
    }
    assert optional == {"date": False, "format": True, "sharpe": False, "ratio": True, "trade": True}


def test_how_long_is_the_form_not_a_term() -> None:
    assert [term.word for term in analyse("How long do access tokens stay valid?").terms] == [
        "access",
        "tokens",
        "stay",
        "valid",
    ]


@pytest.mark.parametrize(
    ("question", "negated", "temporal", "quantifiers"),
    [
        ("Which layers may not import the kernel?", True, None, set()),
        ("What is the current cost model?", False, "current", set()),
        ("How did clients originally authenticate?", False, "past", set()),
        ("What did the team use to do before?", False, None, set()),
        ("What did we used to charge?", False, "past", set()),
        ("What is the only exception?", False, None, {"only"}),
    ],
)
def test_negation_temporal_presupposition_and_quantifiers_are_read(
    question: str, negated: bool, temporal: str | None, quantifiers: set[str]
) -> None:
    analysed = analyse(question)
    assert (analysed.negated, analysed.temporal, set(analysed.quantifiers)) == (negated, temporal, quantifiers)


@pytest.mark.parametrize(
    "forms",
    [
        ("charge", "charges", "charged", "charging"),
        ("pay", "paid", "pays"),
        ("policy", "policies"),
        ("save", "saved", "saves"),
        ("lose", "lost", "loses"),
        ("write", "written", "wrote", "writes"),
        ("fund", "funds"),
        ("stop", "stopped", "stopping"),
        ("index", "indexes"),
    ],
)
def test_inflected_forms_share_one_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(form) for form in forms}) == 1


def test_a_possessive_reads_as_its_noun() -> None:
    assert [term.stem for term in analyse("What is the fund's tax liability?").terms] == [
        stem("fund"),
        stem("tax"),
        stem("liability"),
    ]
