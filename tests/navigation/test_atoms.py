from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from synapse_server.language.atoms import atomic_units, restatement_targets, sentence_units
from synapse_server.language.text import markdown_blocks, normalise_words, plain_words


def _texts(body: str) -> list[str]:
    return [unit.text for unit in atomic_units(body)]


@pytest.mark.parametrize(
    ("body", "units"),
    [
        pytest.param(
            "Sharpe was 1.4. Costs rose to 8 bps.",
            ["Sharpe was 1.4.", "Costs rose to 8 bps."],
            id="decimal-point-does-not-split-but-the-stop-after-it-does",
        ),
        pytest.param(
            "Returns rose 3.5% in May. Costs were flat.",
            ["Returns rose 3.5% in May.", "Costs were flat."],
            id="percentage-with-decimals",
        ),
        pytest.param(
            "Momentum beat value, e.g. Quality lagged in 2024.",
            ["Momentum beat value, e.g. Quality lagged in 2024."],
            id="e-g-abbreviation",
        ),
        pytest.param(
            "We compared momentum vs. Value over ten years.",
            ["We compared momentum vs. Value over ten years."],
            id="vs-abbreviation",
        ),
        pytest.param("See Fig. 3 for the curve. It is flat.", ["See Fig. 3 for the curve.", "It is flat."], id="fig-3"),
        pytest.param("Dr. Smith said costs rose.", ["Dr. Smith said costs rose."], id="title-abbreviation"),
        pytest.param("J. Doe disagreed.", ["J. Doe disagreed."], id="initial"),
        pytest.param("Did costs rise? Yes! They did.", ["Did costs rise?", "Yes!", "They did."], id="question-exclaim"),
        pytest.param("Costs rose. then Sharpe fell.", ["Costs rose. then Sharpe fell."], id="lower-case-after-stop"),
        pytest.param(
            "Costs rose to 8 bps; Sharpe fell to 1.1.",
            ["Costs rose to 8 bps", "Sharpe fell to 1.1."],
            id="semicolon",
        ),
        pytest.param(
            "Transaction costs increased from 5 bps to 8 bps and the Sharpe ratio fell from 1.4 to 1.1.",
            ["Transaction costs increased from 5 bps to 8 bps", "the Sharpe ratio fell from 1.4 to 1.1."],
            id="and-between-independent-clauses",
        ),
        pytest.param(
            "Revenue grew 5% and net income was flat, so the board kept the plan.",
            ["Revenue grew 5%", "net income was flat", "the board kept the plan."],
            id="and-then-so",
        ),
        pytest.param(
            "Momentum works in equities, whereas value factors underperformed in bonds.",
            ["Momentum works in equities", "value factors underperformed in bonds."],
            id="whereas",
        ),
        pytest.param(
            "We stress-tested the model but it failed twice.",
            ["We stress-tested the model", "it failed twice."],
            id="but-with-pronoun-subject",
        ),
    ],
)
def test_bodies_split_into_sentences_and_independent_clauses(body: str, units: list[str]) -> None:
    assert _texts(body) == units


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("We measured turnover and the costs of trading.", id="object-coordination"),
        pytest.param("Costs and fees rose sharply in May.", id="subject-coordination"),
        pytest.param("The model is simple and fast.", id="adjective-coordination"),
        pytest.param("Costs rose or the Sharpe ratio fell sharply.", id="disjunction-asserts-neither-side"),
        pytest.param("If costs rise and the Sharpe ratio falls, we stop.", id="conditional-scope"),
        pytest.param("The gap between what we planned and what we did was large.", id="between-pairing"),
        pytest.param("Costs rose and Sharpe fell.", id="right-clause-shorter-than-three-words"),
        pytest.param("High transaction costs and the slippage model were revised.", id="left-side-has-no-verb"),
    ],
)
def test_conjunctions_that_do_not_join_independent_clauses_do_not_split(body: str) -> None:
    assert _texts(body) == [body]


@pytest.mark.parametrize(
    ("body", "units"),
    [
        pytest.param("# Cost-model decision ##", ["Cost-model decision"], id="heading-marks"),
        pytest.param("- first item\n- second item", ["first item", "second item"], id="bullet-items"),
        pytest.param("1. first\n2) second", ["first", "second"], id="ordered-items"),
        pytest.param("- [x] done task\n  continued here", ["done task continued here"], id="task-item-continuation"),
        pytest.param("Costs **rose** to *8 bps*.", ["Costs rose to 8 bps."], id="emphasis"),
        pytest.param("Set `costs_bps` to 8.", ["Set costs_bps to 8."], id="inline-code"),
        pytest.param("See [the run](runs/run-042.md) for details.", ["See the run for details."], id="link"),
        pytest.param("A ~~bad~~ fine result.", ["A bad fine result."], id="strikethrough-marks"),
        pytest.param("> Quoted claim here.", ["Quoted claim here."], id="blockquote"),
        pytest.param(
            "| metric | value |\n|---|---|\n| Sharpe | 1.4 |", ["metric value", "Sharpe 1.4"], id="table-pipes"
        ),
        pytest.param("2 * 3 is six in snake_case.", ["2 * 3 is six in snake_case."], id="literal-marks"),
        pytest.param("Costs rose.\n\n---\n\nSharpe fell.", ["Costs rose.", "Sharpe fell."], id="horizontal-rule"),
        pytest.param("Text[^1] here.\n\n[^1]: A note.", ["Text here.", "A note."], id="footnote-marker"),
        pytest.param("Match [^a] once.", ["Match [^a] once."], id="undefined-footnote-is-text"),
        pytest.param("```\nx = 1\n```\nCosts rose.", ["Costs rose."], id="fenced-code-is-not-prose"),
    ],
)
def test_markdown_formatting_is_not_part_of_the_units(body: str, units: list[str]) -> None:
    assert _texts(body) == units


def test_a_soft_line_break_joins_a_paragraph_into_one_sentence() -> None:
    assert _texts("Transaction costs rose\nto 8 bps in May.") == ["Transaction costs rose to 8 bps in May."]


def test_unit_offsets_point_into_the_original_body() -> None:
    body = "# Costs\n\n- Transaction costs **increased** from 5 bps to 8 bps and the Sharpe ratio fell to 1.1.\n"
    spans = [body[unit.start : unit.end] for unit in atomic_units(body)]
    assert spans == [
        "Costs",
        "Transaction costs **increased** from 5 bps to 8 bps",
        "the Sharpe ratio fell to 1.1.",
    ]


def test_restatement_targets_add_the_whole_sentence_to_its_clauses() -> None:
    body = "Costs rose to 8 bps and the Sharpe ratio fell to 1.1. Turnover was flat."
    assert [unit.text for unit in sentence_units(body)] == [
        "Costs rose to 8 bps and the Sharpe ratio fell to 1.1.",
        "Turnover was flat.",
    ]
    assert [unit.text for unit in restatement_targets(body)] == [
        "Costs rose to 8 bps and the Sharpe ratio fell to 1.1.",
        "Costs rose to 8 bps",
        "the Sharpe ratio fell to 1.1.",
        "Turnover was flat.",
    ]


def test_a_body_without_words_has_no_units() -> None:
    assert atomic_units("---\n\n| --- | --- |\n\n* * *\n") == ()


MARKDOWN_PIECES = st.sampled_from(
    ["Costs", " rose", " to", " 8 bps", ".", " **bold**", " `code`", " [link](u.md)", "\n", "\n\n", "- ", "# ",
     " and", " the Sharpe ratio fell", ";", " e.g.", " 1.4", " | ", " _x_", " vs.", " It was flat", "!"]
)  # fmt: skip


@given(st.lists(MARKDOWN_PIECES, max_size=30).map("".join))
def test_a_units_source_span_normalises_to_the_units_own_words(body: str) -> None:
    for unit in atomic_units(body):
        assert 0 <= unit.start < unit.end <= len(body)
        assert normalise_words(body[unit.start : unit.end]) == plain_words(unit.text)


@given(st.lists(MARKDOWN_PIECES, max_size=30).map("".join))
def test_block_offsets_map_every_kept_character_back_to_the_same_character(body: str) -> None:
    for block in markdown_blocks(body):
        for char, offset in zip(block.text, block.offsets, strict=True):
            assert char == body[offset] or (char == " " and (body[offset].isspace() or body[offset] == "|"))
