"""The projector copies the router's decision into the public surfaces, and fails closed on any disagreement."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memdsl import parse_output
from synapse_server.navigation.claims import Decision
from synapse_server.navigation.epistemics import OUTDATED_DISCLOSURE
from synapse_server.navigation.loop import LoopOutcome, run_loop
from synapse_server.navigation.projector import (
    IntegrityError,
    answer_surface,
    check_answer,
    check_trace,
    trace_surface,
)
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.surfaces import ModelInfo, Telemetry
from synapse_server.navigation.turn import project
from synapse_server.navigation.view import View
from tests.support.engine_builders import answer, budgets, cited, decide, node, substrate, view_of, world
from tests.support.fake_model import FakeModel

COST = "mem:tree:cost"
SHARPE = "mem:tree:sharpe"
PIN = "mem:tree:pin"
TELEMETRY = Telemetry(hops=0, renavigations=0, parse_repairs=0, tokens_spent=0, loop_break="")
INFO = ModelInfo(provider="fake", id="fake")

CHAIN = answer(
    "claim c1 [restatement] cites n1 :: Transaction costs increased from 5 bps to 8 bps.",
    "claim c2 [restatement] cites n2 :: Sharpe decreased from 1.4 to 1.1.",
    "claim c3 [deduction] from c1, c2 :: Sharpe decreased from 1.4 to 1.1.",
    conclude="c3",
)
OUTDATED = answer("claim c1 [restatement] cites n3 :: Costs were raised to 8 bps in May.")


@pytest.fixture(scope="module")
def sub() -> Substrate:
    return substrate(
        [
            node(COST, "Transaction costs increased from 5 bps to 8 bps.", title="Cost model", path="models/costs.py"),
            node(SHARPE, "Sharpe decreased from 1.4 to 1.1.", status="measured", title="Sharpe after costs"),
            node(PIN, "Costs were raised to 8 bps in May.", title="Cost raise"),
        ],
        states={PIN: "outdated"},
    )


@pytest.fixture(scope="module")
def view(sub: Substrate) -> View:
    return view_of(sub)


def closure_of(text: str) -> frozenset[str]:
    terminal = parse_output(text).answer
    assert terminal is not None
    return terminal.closure(terminal.conclusion)


def test_answer_surface_copies_status_conclusion_premises_and_grouped_citations(view: View) -> None:
    decision = decide(CHAIN, view)
    surface = answer_surface(decision, view, closure_of(CHAIN))
    assert surface.model_dump(mode="json") == {
        "version": 1,
        "text": "Sharpe decreased from 1.4 to 1.1.",
        "conclusion_claim_id": "c3",
        "inference_form": "deduction",
        "status": "measured",
        "premise_claim_ids": ["c1", "c2"],
        "citations": [
            {
                "address": COST,
                "claim_ids": ["c1", "c3"],
                "status": "grounded",
                "outdated": False,
                "title": "Cost model",
                "store": "mem",
                "quotes": ["Transaction costs increased from 5 bps to 8 bps."],
                "superseded_by": [],
                "supersession": None,
            },
            {
                "address": SHARPE,
                "claim_ids": ["c2", "c3"],
                "status": "measured",
                "outdated": False,
                "title": "Sharpe after costs",
                "store": "mem",
                "quotes": ["Sharpe decreased from 1.4 to 1.1."],
                "superseded_by": [],
                "supersession": None,
            },
        ],
        "outdated": False,
        "disclosure": None,
        "superseded": False,
        "superseded_disclosures": [],
    }


def test_an_outdated_licensing_node_puts_the_flag_and_the_canonical_disclosure_on_the_answer(view: View) -> None:
    surface = answer_surface(decide(OUTDATED, view), view, closure_of(OUTDATED))
    assert (surface.status, surface.outdated, surface.disclosure) == ("grounded", True, OUTDATED_DISCLOSURE)
    assert [(c.address, c.outdated) for c in surface.citations] == [(PIN, True)]


def test_trace_surface_mirrors_claims_citations_assertions_and_disclosures(view: View) -> None:
    trace = trace_surface(decide(OUTDATED, view), view, TELEMETRY)
    assert trace.verdict == "answer" and trace.status == "grounded" and trace.conclusion_claim_id == "c1"
    assert [(c.id, c.status, c.flags.outdated) for c in trace.claims] == [("c1", "grounded", True)]
    assert [(c.address, c.claim_ids) for c in trace.citations] == [(PIN, ["c1"])]
    assert [(a.text, a.claim_id) for a in trace.assertions] == [("Costs were raised to 8 bps in May.", "c1")]
    assert trace.disclosures == [OUTDATED_DISCLOSURE]
    assert trace.abstention is None


def test_the_trace_of_an_abstention_carries_its_reasons(view: View) -> None:
    decision = decide(answer("claim c1 [restatement] cites n1 :: Transaction costs increased to 9 bps."), view)
    trace = trace_surface(decision, view, TELEMETRY)
    assert trace.verdict == "abstain" and trace.status is None
    assert trace.abstention is not None and trace.abstention.reasons == ["low-coverage"]


def test_the_trace_of_an_abstention_names_each_failing_claim_without_source_bodies(view: View) -> None:
    decision = decide(answer("claim c1 [restatement] cites n1 :: Debit costs were reissued at 5 bps and 8 bps."), view)
    trace = trace_surface(decision, view, TELEMETRY)
    assert trace.abstention is not None
    assert "c1: " in trace.abstention.detail and "reissued" in trace.abstention.detail
    body = view.graph.nodes[view.address_of("n1") or ""].body
    assert body not in trace.abstention.detail


def _tamper_status(d: Decision) -> Decision:
    return replace(d, status="grounded")


def _tamper_conclusion(d: Decision) -> Decision:
    return replace(d, conclusion="c1")


def _tamper_unlicensed(d: Decision) -> Decision:
    return replace(d, claims={**d.claims, "c1": replace(d.claims["c1"], licensed=False)})


def _tamper_outside_closure(d: Decision) -> Decision:
    stray = replace(d.claims["c1"], id="c9")
    return replace(d, claims={**d.claims, "c9": stray}, assertions=(*d.assertions, ("Sharpe decreased.", "c9")))


def _tamper_claim_status(d: Decision) -> Decision:
    return replace(d, claims={**d.claims, "c3": replace(d.claims["c3"], status="grounded")}, status="grounded")


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        pytest.param(_tamper_status, "status differs from the router decision", id="decision-status"),
        pytest.param(_tamper_conclusion, "status differs from the router decision", id="conclusion-swapped"),
        pytest.param(_tamper_unlicensed, "an unlicensed claim sits in the conclusion closure", id="unlicensed"),
        pytest.param(_tamper_outside_closure, "bound outside the conclusion closure", id="assertion-outside"),
        pytest.param(_tamper_claim_status, "answer status is stronger than its evidence", id="status-upgrade"),
    ],
)
def test_each_disagreement_with_the_decision_fails_closed(view: View, tamper: object, message: str) -> None:
    decision = tamper(decide(CHAIN, view))  # type: ignore[operator]
    with pytest.raises(IntegrityError, match=message):
        answer_surface(decision, view, closure_of(CHAIN))


def test_an_abstention_has_no_answer_surface(view: View) -> None:
    decision = decide(answer("claim c1 [restatement] cites n1 :: Transaction costs increased to 9 bps."), view)
    with pytest.raises(IntegrityError):
        answer_surface(decision, view, frozenset({"c1"}))


def test_a_citation_that_is_not_in_the_final_envelope_fails_closed(view: View) -> None:
    decision = decide(CHAIN, view)
    with pytest.raises(IntegrityError, match="not in the final envelope"):
        answer_surface(decision, view.prune(SHARPE), closure_of(CHAIN))


@pytest.mark.parametrize(
    ("field", "value"), [pytest.param("status", "grounded", id="status"), pytest.param("outdated", True, id="outdated")]
)
def test_a_citation_row_that_differs_from_the_envelope_fails_closed(view: View, field: str, value: object) -> None:
    decision = decide(CHAIN, view)
    surface = answer_surface(decision, view, closure_of(CHAIN))
    rows = [surface.citations[0], surface.citations[1].model_copy(update={field: value})]
    with pytest.raises(IntegrityError, match="status or outdated flag differs"):
        check_answer(surface.model_copy(update={"citations": rows}), decision, view, closure_of(CHAIN))


def test_an_answer_without_citations_fails_closed(view: View) -> None:
    decision = decide(CHAIN, view)
    surface = answer_surface(decision, view, closure_of(CHAIN)).model_copy(update={"citations": []})
    with pytest.raises(IntegrityError, match="without citations"):
        check_answer(surface, decision, view, closure_of(CHAIN))


@pytest.mark.parametrize(
    ("update", "message"),
    [
        pytest.param({"disclosure": None}, "outdated flag and disclosure disagree", id="outdated-without-disclosure"),
        pytest.param({"outdated": False}, "outdated flag and disclosure disagree", id="flag-dropped"),
        pytest.param({"disclosure": "fresh enough"}, "non-canonical outdated disclosure", id="rewritten-disclosure"),
        pytest.param({"text": "Costs were cut."}, None, id="v2-text-is-not-checked-against-claims"),
    ],
)
def test_an_outdated_answer_must_carry_the_canonical_disclosure(
    view: View, update: dict[str, object], message: str | None
) -> None:
    decision = decide(OUTDATED, view)
    surface = answer_surface(decision, view, closure_of(OUTDATED)).model_copy(update=update)
    if message is None:
        check_answer(surface, decision, view, closure_of(OUTDATED))
        return
    with pytest.raises(IntegrityError, match=message):
        check_answer(surface, decision, view, closure_of(OUTDATED))


def test_a_disclosure_on_a_fresh_answer_fails_closed(view: View) -> None:
    decision = decide(CHAIN, view)
    surface = answer_surface(decision, view, closure_of(CHAIN)).model_copy(update={"disclosure": OUTDATED_DISCLOSURE})
    with pytest.raises(IntegrityError, match="outdated flag and disclosure disagree"):
        check_answer(surface, decision, view, closure_of(CHAIN))


def test_a_v1_answer_text_that_is_not_the_conclusion_fails_closed(view: View) -> None:
    decision = replace(decide(OUTDATED, view), version=1)
    surface = answer_surface(decision, view, frozenset({"c1"})).model_copy(update={"text": "Costs were cut."})
    with pytest.raises(IntegrityError, match="legacy answer text"):
        check_answer(surface, decision, view, frozenset({"c1"}))


def test_a_trace_whose_claims_differ_from_the_dag_fails(view: View) -> None:
    decision = decide(CHAIN, view)
    trace = trace_surface(decision, view, TELEMETRY)
    with pytest.raises(IntegrityError, match="trace claims differ"):
        check_trace(trace.model_copy(update={"claims": trace.claims[:2]}), decision)


# --- through turn.project(): the public wrapper ---------------------------------------------------


def outcome_for(reply: str, sub: Substrate) -> LoopOutcome:
    outcome = run_loop("How did costs change?", view_of(sub), sub, FakeModel(reply), budgets())
    assert outcome.decision is not None and outcome.decision.verdict == "answer"
    return outcome


def test_an_integrity_failure_becomes_an_answer_surface_invalid_abstention(sub: Substrate) -> None:
    outcome = outcome_for(CHAIN, sub)
    assert outcome.decision is not None
    outcome.decision = _tamper_status(outcome.decision)
    result = project(outcome, INFO)
    assert (result.verdict, result.halted_reason, result.reasons) == ("abstain", "answer-surface-invalid", [])
    assert result.answer_surface is None and result.trace_surface is None and result.status is None
    assert "Transaction costs" not in result.model_dump_json(exclude={"envelope"})


def test_a_trace_only_failure_withholds_the_trace_but_keeps_the_answer(sub: Substrate) -> None:
    outcome = outcome_for(CHAIN, sub)
    assert outcome.decision is not None
    decision = outcome.decision
    # a claim outside the conclusion closure naming a premise the DAG lacks: only the trace can see it
    stray = replace(decision.claims["c1"], id="c9", premises=("c8",))
    outcome.decision = replace(decision, claims={**decision.claims, "c9": stray})
    result = project(outcome, INFO)
    assert (result.verdict, result.halted_reason, result.status) == ("answer", "answer", "measured")
    assert result.answer_surface is not None and result.trace_surface is None


def test_an_untampered_answer_projects_both_surfaces(sub: Substrate) -> None:
    result = project(outcome_for(CHAIN, sub), INFO)
    assert (result.verdict, result.halted_reason, result.reasons) == ("answer", "answer", [])
    assert result.answer_surface is not None and result.trace_surface is not None
    assert result.trace_surface.telemetry.loop_break == ""


def test_no_body_or_path_leaks_into_the_surfaces_and_titles_only_into_answer_citations(sub: Substrate) -> None:
    result = project(outcome_for(OUTDATED, sub), INFO)
    assert result.answer_surface is not None and result.trace_surface is not None
    public = result.answer_surface.model_dump_json() + result.trace_surface.model_dump_json()
    for leaked in ("Cost model", "Sharpe after costs", "models/costs.py", "Transaction costs", "Sharpe"):
        assert leaked not in public
    assert "Cost raise" not in result.trace_surface.model_dump_json()


FIRMS = "zk:research:firms"
FIRMS_BODY = "Revenue was $4.2M in 2025. Orders totalled 1,200 in May. The desk disagreed with the count."
REBALANCE = "repo:demo:backtest.py"


@pytest.fixture(scope="module")
def quoting() -> View:
    return world(
        node(FIRMS, FIRMS_BODY, title="Firm figures", path="notes/firms.md"),
        node(
            REBALANCE, "The backtest rebalances the portfolio on the last trading day of each month.", title="Backtest"
        ),
    )


def test_a_verbatim_citation_carries_its_title_store_status_and_the_source_sentence_it_restates(
    quoting: View,
) -> None:
    text = answer("claim c1 [restatement] cites n1 :: Orders totalled 1200 in May.")
    surface = answer_surface(decide(text, quoting), quoting, closure_of(text))
    (citation,) = surface.citations
    assert (citation.address, citation.title, citation.store, citation.status) == (
        FIRMS,
        "Firm figures",
        "zk",
        "grounded",
    )
    assert citation.quotes == ["Orders totalled 1,200 in May."]
    public = surface.model_dump_json()
    for unquoted in ("Revenue was", "The desk disagreed", "notes/firms.md"):
        assert unquoted not in public


def test_a_paraphrased_citation_carries_its_title_and_store_but_no_quote(quoting: View) -> None:
    text = answer(
        "claim c1 [restatement] cites n2 :: The backtest rebalanced the portfolio on the last trading day of each month."
    )
    surface = answer_surface(decide(text, quoting), quoting, closure_of(text))
    (citation,) = surface.citations
    assert (citation.title, citation.store, citation.status, citation.quotes) == ("Backtest", "repo", "grounded", [])
    assert "rebalances" not in surface.model_dump_json()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        pytest.param("title", "Another title", "title or store differs", id="title"),
        pytest.param("store", "mem", "title or store differs", id="store"),
        pytest.param("quotes", ["Revenue was $4.2M in 2025."], "quotes more than", id="quote-of-another-sentence"),
    ],
)
def test_a_citation_whose_title_store_or_quote_differs_from_the_decision_fails_closed(
    quoting: View, field: str, value: object, message: str
) -> None:
    text = answer("claim c1 [restatement] cites n1 :: Orders totalled 1200 in May.")
    decision = decide(text, quoting)
    surface = answer_surface(decision, quoting, closure_of(text))
    rows = [surface.citations[0].model_copy(update={field: value})]
    with pytest.raises(IntegrityError, match=message):
        check_answer(surface.model_copy(update={"citations": rows}), decision, quoting, closure_of(text))


def test_a_refuted_citation_is_flagged_refuted_not_unresolved() -> None:
    breakeven = "zk:research:breakeven"
    refuted_view = world(
        cited(breakeven, "The breakeven round-trip cost is 10 bps.", "okafor", quote="cost is 10 bps"),
        sources={"okafor": "The breakeven round-trip cost for the strategy is 50 bps."},
    )
    decision = decide(
        answer("claim c1 [restatement] cites n1 :: The breakeven round-trip cost is 10 bps."), refuted_view
    )
    trace = trace_surface(decision, refuted_view, TELEMETRY)
    (citation,) = trace.citations
    assert (citation.flags.refuted, citation.flags.unresolved) == (True, False)
    assert trace.claims[0].flags.refuted
