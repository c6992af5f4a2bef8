"""The offline ``extractive`` navigator: a verbatim restatement of the best-matching unit, or an honest abstention."""

from __future__ import annotations

from memdsl import Abstention, Answer, parse_output, serialize_render
from synapse_server.navigation.envelope import render_envelope
from synapse_server.navigation.extractive import ExtractiveModel
from synapse_server.navigation.loop import run_loop
from synapse_server.navigation.prompt import build_prompt
from synapse_server.navigation.view import View
from tests.support.engine_builders import budgets, node, substrate, view_of, world

COSTS = "Transaction costs increased from 5 bps to 8 bps. The cost model was re-estimated in May."
SHARPE = "Sharpe decreased from 1.4 to 1.1 after costs rose to 8 bps."


def ask(question: str, view: View, chars: int = 0) -> str:
    envelope = serialize_render(render_envelope(view, chars))
    prompt = build_prompt(question, envelope, tokens_left=10_000, hops_left=2, focus=[])
    return ExtractiveModel().complete(prompt).text


def test_it_restates_the_best_matching_unit_verbatim_citing_its_node() -> None:
    view = world(node("mem:tree:cost", COSTS), node("mem:tree:sharpe", SHARPE, status="measured"))
    output = parse_output(ask("How did the Sharpe ratio change after costs rose?", view))
    assert isinstance(output.terminal, Answer)
    (claim,) = output.terminal.claims
    assert (claim.form, claim.cites, claim.text) == ("restatement", ("n2",), SHARPE)
    assert output.terminal.prose == SHARPE and output.actions == ()


def test_it_abstains_low_coverage_when_no_unit_covers_the_question() -> None:
    view = world(node("mem:tree:cost", COSTS))
    output = parse_output(ask("Who is the fund's compliance officer?", view))
    assert isinstance(output.terminal, Abstention) and output.terminal.label == "low-coverage"


def test_a_tie_prefers_the_verified_node() -> None:
    view = world(node("mem:tree:guess", COSTS, status="inferred"), node("mem:tree:cost", COSTS))
    output = parse_output(ask("How did transaction costs change?", view))
    assert isinstance(output.terminal, Answer) and output.terminal.claims[0].cites == ("n2",)


def test_a_tie_between_equals_prefers_the_earlier_ref() -> None:
    view = world(node("mem:tree:a", COSTS), node("mem:tree:b", COSTS))
    output = parse_output(ask("How did transaction costs change?", view))
    assert isinstance(output.terminal, Answer) and output.terminal.claims[0].cites == ("n1",)


def test_the_last_unit_of_an_elided_body_is_never_restated() -> None:
    body = "Prices were cleaned. Transaction costs increased from 5 bps to 8 bps in the final month of the test."
    view = world(node("mem:tree:cost", body))
    output = parse_output(ask("How did transaction costs change?", view, chars=len(body) - 10))
    assert isinstance(output.terminal, Abstention)


def test_an_unreadable_envelope_is_an_abstention() -> None:
    text = (
        ExtractiveModel()
        .complete("=== QUESTION ===\nWhy?\n=== END QUESTION ===\n=== ENVELOPE ===\nnot memdsl\n=== END ENVELOPE ===")
        .text
    )
    output = parse_output(text)
    assert isinstance(output.terminal, Abstention) and output.terminal.label == "low-coverage"


def test_it_says_it_is_not_an_llm() -> None:
    identity = ExtractiveModel().identity
    assert identity.provider == "extractive" and "not an LLM" in identity.id


def test_its_answer_is_licensed_by_the_router_and_deterministic() -> None:
    sub = substrate([node("mem:tree:cost", COSTS), node("mem:tree:sharpe", SHARPE, status="measured")])
    outcomes = [
        run_loop("How much did Sharpe decrease after costs rose?", view_of(sub), sub, ExtractiveModel(), budgets())
        for _ in range(2)
    ]
    assert outcomes[0].decision == outcomes[1].decision
    decision = outcomes[0].decision
    assert decision is not None and (decision.verdict, decision.status) == ("answer", "measured")
