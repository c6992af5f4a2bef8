"""The one-line navigate summary: an offline answer says it is a matched quote, never a reasoned answer."""

from __future__ import annotations

from synapse_server.actions.navigate_output import SUMMARY_CHARS, summarize
from synapse_server.navigation.surfaces import AnswerCitation, AnswerSurface, ModelInfo, NavigateResult

ADDRESS = "mem:tree:deci-c3d4e5f6"
NOTE = "chosen by the offline navigator by matching the question)"


def answer(text: str, provider: str) -> NavigateResult:
    surface = AnswerSurface(
        text=text,
        conclusion_claim_id="c1",
        inference_form="restatement",
        status="grounded",
        premise_claim_ids=[],
        citations=[AnswerCitation(address=ADDRESS, claim_ids=["c1"], status="grounded", outdated=False)],
        outdated=False,
        disclosure=None,
    )
    return NavigateResult(
        verdict="answer",
        status="grounded",
        reasons=[],
        halted_reason="answer",
        conclusion="c1",
        outdated=False,
        detail="",
        answer_surface=surface,
        trace_surface=None,
        envelope="",
        hops=0,
        renavigations=0,
        tokens_spent=0,
        loop_break="",
        model=ModelInfo(provider=provider, id="x"),
    )


def test_an_extractive_answer_names_its_source_and_how_it_was_chosen() -> None:
    summary = summarize(answer("Positions target 10% volatility.", "extractive"))
    assert summary == (
        f"answer (grounded): Positions target 10% volatility. (quoted from {ADDRESS}; chosen by the offline "
        "navigator by matching the question)"
    )


def test_a_long_extractive_quote_is_shortened_but_the_note_is_kept() -> None:
    summary = summarize(answer("word " * 200, "extractive"))
    assert len(summary) <= SUMMARY_CHARS and summary.endswith(NOTE) and "... (quoted from" in summary


def test_a_model_answer_carries_no_offline_note() -> None:
    summary = summarize(answer("Positions target 10% volatility.", "openai"))
    assert summary == "answer (grounded): Positions target 10% volatility."
