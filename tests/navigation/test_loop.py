"""The bounded navigation loop, driven by scripted multi-turn models (FakeModel)."""

from __future__ import annotations

import pytest

from synapse_server.navigation.loop import IN_LOOP_HOPS, LoopOutcome, estimate_tokens, run_loop
from synapse_server.navigation.prompt import sections
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.surfaces import ModelInfo
from synapse_server.navigation.turn import project
from tests.support.engine_builders import answer, artifact, budgets, node, substrate, view_of
from tests.support.fake_model import FakeModel, counted

COST = "mem:tree:cost"  # n1, seeded
SHARPE = "mem:tree:sharpe"  # n2 once expanded from n1
TURNOVER = "mem:tree:turnover"  # n3 once expanded from n2
LONG = "Sharpe decreased from 1.4 to 1.1 after costs rose. " + "The run used the full sample of prices. " * 20
QUESTION = "How did Sharpe change after costs rose?"
HALTED = {"answer", "abstain", "budget", "hops", "parse-fail", "validation", "answer-surface-invalid"}

GOOD = answer("claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps.")
UNLICENSED = answer("claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 9 bps.")
GARBAGE = "Sure! Costs went up."


@pytest.fixture
def sub() -> Substrate:
    return substrate(
        [
            node(COST, "Transaction costs increased from 5 bps to 8 bps.", links=[SHARPE]),
            node(SHARPE, LONG, status="measured", links=[TURNOVER]),
            node(TURNOVER, "Average monthly turnover was 38% of the portfolio.", status="measured"),
        ]
    )


def loop(
    sub: Substrate, model: FakeModel, *, token_budget: int = 24_000, hop_rounds: int = IN_LOOP_HOPS
) -> LoopOutcome:
    limits = budgets(render_max_body_chars=200, token_budget=token_budget)
    return run_loop(QUESTION, view_of(sub, [COST]), sub, model, limits, hop_rounds=hop_rounds)


def test_actions_run_expand_then_ground_then_prune_whatever_order_they_are_written_in(sub: Substrate) -> None:
    reply = artifact(
        "prune(n1)",
        "ground(n2)",
        "expand(n1)",
        "@answer",
        "claim c1 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1 after costs rose.",
        "prose :: Sharpe decreased from 1.4 to 1.1 after costs rose.",
        "cite c1 :: Sharpe decreased from 1.4 to 1.1 after costs rose.",
        "conclude c1",
    )
    model = FakeModel(reply)
    outcome = loop(sub, model)
    # written order would prune n1 first and leave ground(n2) and expand(n1) with unknown refs
    assert outcome.view.order == (SHARPE,)
    assert SHARPE in outcome.view.unelided
    assert (outcome.halted_reason, outcome.decision and outcome.decision.status) == ("answer", "measured")
    assert len(model.history) == 1


def test_one_parse_repair_then_a_valid_reply_answers(sub: Substrate) -> None:
    model = FakeModel(GARBAGE, GOOD)
    outcome = loop(sub, model)
    assert (outcome.halted_reason, outcome.parse_repairs) == ("answer", 1)
    assert "PARSE ERROR" in sections(model.history[1].text)
    assert "PARSE ERROR" not in sections(model.history[0].text)
    result = project(outcome, ModelInfo(provider="fake", id="fake"))
    assert result.verdict == "answer"
    assert result.trace_surface is not None and result.trace_surface.telemetry.parse_repairs == 1


def test_a_second_unparseable_reply_halts_parse_fail_with_no_reasons(sub: Substrate) -> None:
    model = FakeModel(GARBAGE, "@memdsl.out/2\n@answer\n", GOOD)
    outcome = loop(sub, model)
    assert (outcome.halted_reason, outcome.loop_break, outcome.decision) == ("parse-fail", "parse-fail", None)
    assert len(model.history) == 2
    result = project(outcome, ModelInfo(provider="fake", id="fake"))
    assert (result.verdict, result.reasons, result.halted_reason) == ("abstain", [], "parse-fail")
    assert result.answer_surface is None and result.trace_surface is None


def test_low_coverage_earns_one_renavigation_with_the_previous_turn_in_the_prompt(sub: Substrate) -> None:
    model = FakeModel(UNLICENSED, GOOD)
    outcome = loop(sub, model)
    assert (outcome.halted_reason, outcome.renavigations) == ("answer", 1)
    second = sections(model.history[1].text)
    assert "PREVIOUS TURN" in second and "low-coverage" in second["PREVIOUS TURN"]
    assert "PREVIOUS TURN" not in sections(model.history[0].text)


def test_there_is_never_a_second_renavigation(sub: Substrate) -> None:
    model = FakeModel(UNLICENSED, UNLICENSED, GOOD)
    outcome = loop(sub, model)
    assert len(model.history) == 2
    assert (outcome.halted_reason, outcome.renavigations) == ("abstain", 1)
    assert outcome.decision is not None and outcome.decision.reasons == ("low-coverage",)


def test_a_refuted_ground_also_earns_the_renavigation(sub: Substrate) -> None:
    refuting = artifact('ground(n1, verifier=quote, quote="Costs fell.")', *GOOD.splitlines()[1:])
    model = FakeModel(refuting, artifact("@abstain false-premise :: the quote was refuted"))
    outcome = loop(sub, model)
    assert len(model.history) == 2 and outcome.renavigations == 1
    assert "false-premise" in sections(model.history[1].text)["PREVIOUS TURN"]
    assert outcome.decision is not None and outcome.decision.reasons == ("false-premise",)


def test_a_bare_model_abstention_ends_the_turn_without_renavigating(sub: Substrate) -> None:
    model = FakeModel(artifact("@abstain low-coverage :: nothing here"), GOOD)
    outcome = loop(sub, model)
    assert len(model.history) == 1
    assert (outcome.halted_reason, outcome.renavigations) == ("abstain", 0)


def test_a_first_prompt_over_the_token_budget_halts_before_any_model_call(sub: Substrate) -> None:
    model = FakeModel()
    outcome = loop(sub, model, token_budget=50)
    assert model.history == []
    assert (outcome.halted_reason, outcome.loop_break, outcome.tokens_spent) == ("budget", "budget", 0)
    result = project(outcome, ModelInfo(provider="fake", id="fake"))
    assert (result.verdict, result.reasons, result.halted_reason) == ("abstain", [], "budget")


def test_a_renavigation_the_budget_cannot_afford_keeps_the_first_verdict(sub: Substrate) -> None:
    model = FakeModel(counted(UNLICENSED, 21_000, 2_500), GOOD)
    outcome = loop(sub, model, token_budget=24_000)
    assert len(model.history) == 1
    assert (outcome.halted_reason, outcome.tokens_spent, outcome.renavigations) == ("abstain", 23_500, 0)


def test_tokens_spent_use_provider_usage_else_a_characters_estimate(sub: Substrate) -> None:
    counted_model = FakeModel(counted(GOOD, 700, 40))
    assert loop(sub, counted_model).tokens_spent == 740
    estimated_model = FakeModel(GOOD)
    outcome = loop(sub, estimated_model)
    sent = estimated_model.history[0]
    assert outcome.tokens_spent == estimate_tokens((sent.system or "") + sent.text) + estimate_tokens(GOOD)


def test_an_expansion_after_the_hop_rounds_are_spent_halts_hops(sub: Substrate) -> None:
    first = artifact("expand(n1)", *UNLICENSED.splitlines()[1:])
    second = artifact("expand(n2)", *UNLICENSED.splitlines()[1:])
    model = FakeModel(first, second)
    outcome = loop(sub, model, hop_rounds=1)
    assert len(model.history) == 2
    assert (outcome.halted_reason, outcome.loop_break, outcome.decision) == ("hops", "hops", None)
    assert TURNOVER not in outcome.view.order and SHARPE in outcome.view.order
    assert "0 expand/join round(s) left" in model.history[1].text


def test_each_expanding_turn_spends_one_hop_round(sub: Substrate) -> None:
    first = artifact("expand(n1)", *UNLICENSED.splitlines()[1:])
    second = artifact("expand(n2)", *GOOD.splitlines()[1:])
    model = FakeModel(first, second)
    outcome = loop(sub, model, hop_rounds=2)
    assert (
        "2 expand/join round(s) left" in model.history[0].text
        and "1 expand/join round(s) left" in model.history[1].text
    )
    assert outcome.view.order == (COST, SHARPE, TURNOVER)
    assert (outcome.halted_reason, outcome.hops) == ("answer", 2)


def test_by_default_the_renavigation_turn_may_not_expand_again_and_halts_hops(sub: Substrate) -> None:
    expand_twice = artifact("expand(n1)", *UNLICENSED.splitlines()[1:])
    outcome = loop(sub, FakeModel(expand_twice, expand_twice))
    assert (outcome.halted_reason, outcome.hops, outcome.renavigations) == ("hops", 1, 1)


SCENARIOS: dict[str, tuple[list[str], dict[str, int]]] = {
    "answer": ([GOOD], {}),
    "abstain": ([UNLICENSED, UNLICENSED], {}),
    "model-abstain": ([artifact("@abstain stale :: old")], {}),
    "parse-fail": ([GARBAGE, GARBAGE], {}),
    "budget": ([], {"token_budget": 50}),
    "hops": ([artifact("expand(n1)", *UNLICENSED.splitlines()[1:])] * 2, {"hop_rounds": 0}),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_outcome_has_a_halted_reason(sub: Substrate, name: str) -> None:
    replies, options = SCENARIOS[name]
    outcome = loop(sub, FakeModel(*replies), **options)
    assert outcome.halted_reason in HALTED
    result = project(outcome, ModelInfo(provider="fake", id="fake"))
    assert result.halted_reason == outcome.halted_reason
    assert (result.answer_surface is None) is (result.verdict != "answer")


@pytest.mark.parametrize("label", ["stale", "missing-hop", "low-coverage"])
def test_an_abstention_that_asks_to_read_gets_its_re_navigation_whatever_its_label(sub: Substrate, label: str) -> None:
    first = artifact("expand(n1)", f"@abstain {label} :: reading the neighbours first")
    second = artifact(
        "@answer",
        "claim c1 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1 after costs rose.",
        "prose :: Sharpe decreased from 1.4 to 1.1 after costs rose.",
        "cite c1 :: Sharpe decreased from 1.4 to 1.1 after costs rose.",
        "conclude c1",
    )
    model = FakeModel(first, second)
    outcome = loop(sub, model)
    assert outcome.renavigations == 1 and len(model.history) == 2
    assert outcome.decision is not None and outcome.decision.verdict == "answer"
    assert "You abstained" in sections(model.history[1].text)["PREVIOUS TURN"]


def test_an_abstention_without_actions_is_final(sub: Substrate) -> None:
    model = FakeModel(artifact("@abstain stale :: the pin is stale"))
    outcome = loop(sub, model)
    assert outcome.renavigations == 0 and len(model.history) == 1


def test_the_re_navigation_prompt_names_the_failing_claim_and_its_tokens(sub: Substrate) -> None:
    model = FakeModel(UNLICENSED, GOOD)
    loop(sub, model)
    previous = sections(model.history[1].text)["PREVIOUS TURN"]
    assert '- c1: changed-number: figure "9 bps"' in previous, previous


def test_the_fixed_instructions_go_as_the_system_prompt_and_the_turn_as_the_message(sub: Substrate) -> None:
    model = FakeModel(GOOD)
    loop(sub, model)
    sent = model.history[0]
    assert sent.system is not None and "EXAMPLE CALCULATION" in sent.system
    assert sent.text.lstrip().startswith("=== QUESTION ===") and "EXAMPLE CALCULATION" not in sent.text


# read rounds, the last turn, and a turn the host model answers later

READ = artifact("ground(n1)", "@abstain low-coverage :: reading n1 in full first")


def test_a_read_round_does_not_use_up_the_renavigation_a_refused_answer_needs(sub: Substrate) -> None:
    model = FakeModel(READ, UNLICENSED, GOOD)
    outcome = loop(sub, model)
    assert len(model.history) == 3 and (outcome.halted_reason, outcome.read_rounds, outcome.retries) == ("answer", 1, 1)
    assert "not accepted (low-coverage)" in sections(model.history[2].text)["PREVIOUS TURN"]


def test_last_turn_is_said_only_when_no_further_call_can_follow(sub: Substrate) -> None:
    model = FakeModel(READ, UNLICENSED, GOOD)
    loop(sub, model)
    assert "This is your last turn" not in model.history[1].text, "a refused answer could still be retried"
    assert "This is your last turn" not in model.history[2].text, "a parse repair is still left"
    spent = FakeModel(GARBAGE, READ, READ, UNLICENSED, GOOD)
    outcome = loop(sub, spent)
    assert outcome.halted_reason == "answer" and len(spent.history) == 5
    assert "This is your last turn" in spent.history[4].text
    assert all("This is your last turn" not in prompt.text for prompt in spent.history[:4])


def test_a_read_round_whose_actions_were_all_refused_earns_no_further_turn(sub: Substrate) -> None:
    expanding = artifact("expand(n1)", "@abstain low-coverage :: reading the neighbours first")
    model = FakeModel(expanding, expanding, GOOD)
    outcome = loop(sub, model)
    assert len(model.history) == 2 and outcome.halted_reason == "hops"


def test_a_model_whose_reply_comes_later_suspends_the_turn_with_the_prompt_it_must_answer(sub: Substrate) -> None:
    from synapse_server.models.base import Prompt
    from synapse_server.models.host import HostModel, prompt_digest

    first = loop(sub, HostModel("a host"))
    assert first.halted_reason == "pending" and first.decision is None and first.pending is not None
    assert first.pending.step == 1 and "=== QUESTION ===" in first.pending.prompt.text
    digest = prompt_digest(Prompt(first.pending.prompt.text, first.pending.prompt.system))
    assert first.pending.digest == digest
    second = loop(sub, HostModel("a host", [GARBAGE], [digest]))
    assert second.halted_reason == "pending" and second.pending is not None and second.pending.step == 2
    assert "=== PARSE ERROR ===" in second.pending.prompt.text and second.tokens_spent > 0
    done = loop(sub, HostModel("a host", [GARBAGE, GOOD], [digest, second.pending.digest]))
    assert done.halted_reason == "answer" and done.parse_repairs == 1


def test_a_host_reply_replayed_against_another_prompt_is_stale_never_answered(sub: Substrate) -> None:
    from synapse_server.models.host import HostModel, StaleTurn

    with pytest.raises(StaleTurn) as stale:
        loop(sub, HostModel("a host", [GOOD], ["0" * 16]))
    assert stale.value.step == 1
