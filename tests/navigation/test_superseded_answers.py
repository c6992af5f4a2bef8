"""Hostile twins: an answer citing a superseded record is never published without its disclosure."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memdsl import parse_output
from synapse_server.navigation.projector import IntegrityError, answer_surface, check_answer, check_trace, trace_surface
from synapse_server.navigation.surfaces import Telemetry
from synapse_server.navigation.view import View
from tests.support.engine_builders import answer, decide, node, world

OLD = "mem:adr:0002-publish-invoices-as-pdf-files"
NEW = "mem:adr:0004-render-invoices-as-html-email"
OLD_SENTENCE = "We will generate a PDF file per invoice."
NEW_SENTENCE = "We will render each invoice as an HTML email."
DISCLOSED = f"{OLD} is superseded by {NEW} (status: superseded)"
TELEMETRY = Telemetry(hops=0, renavigations=0, parse_repairs=0, tokens_spent=0, loop_break="")
CITES_OLD = answer(f"claim c1 [restatement] cites n1 :: {OLD_SENTENCE}")
CITES_NEW = answer(f"claim c1 [restatement] cites n2 :: {NEW_SENTENCE}")


@pytest.fixture(scope="module")
def view() -> View:
    old = replace(
        node(OLD, OLD_SENTENCE, links=(NEW,), rel="superseded-by"),
        meta={"adr_status": "superseded", "status": "superseded"},
    )
    new = node(NEW, NEW_SENTENCE, links=(OLD,), rel="supersedes")
    return world(old, new)


def closure(text: str) -> frozenset[str]:
    terminal = parse_output(text).answer
    assert terminal is not None
    return terminal.closure(terminal.conclusion)


def test_an_answer_citing_a_superseded_record_keeps_its_status_and_carries_the_disclosure(view: View) -> None:
    decision = decide(CITES_OLD, view)
    assert (decision.verdict, decision.status, decision.superseded) == ("answer", "grounded", (DISCLOSED,))
    surface = answer_surface(decision, view, closure(CITES_OLD))
    assert (surface.superseded, surface.superseded_disclosures) == (True, [DISCLOSED])
    assert surface.text == OLD_SENTENCE  # the model's words never carried the disclosure; the surface does
    (row,) = surface.citations
    assert (row.superseded_by, row.supersession, row.status) == ([NEW], "superseded", "grounded")
    trace = trace_surface(decision, view, TELEMETRY)
    assert trace.disclosures == [DISCLOSED]
    assert trace.claims[0].flags.superseded and trace.citations[0].flags.superseded


def test_an_answer_citing_the_current_record_has_no_supersession_disclosure(view: View) -> None:
    decision = decide(CITES_NEW, view)
    surface = answer_surface(decision, view, closure(CITES_NEW))
    assert (decision.superseded, surface.superseded, surface.superseded_disclosures) == ((), False, [])


def test_citing_a_superseded_record_beside_the_current_one_still_discloses_it(view: View) -> None:
    text = answer(f"claim c1 [restatement] cites n2, n1 :: {OLD_SENTENCE}")
    decision = decide(text, view)
    assert decision.verdict == "answer", decision.detail
    surface = answer_surface(decision, view, closure(text))
    assert [row.address for row in surface.citations] == [OLD, NEW]
    assert surface.superseded_disclosures == [DISCLOSED]  # the current record adds no disclosure


def test_prose_that_calls_the_superseded_record_current_is_not_published(view: View) -> None:
    text = answer(
        f"claim c1 [restatement] cites n1 :: {OLD_SENTENCE}",
        prose=f"{OLD_SENTENCE} This is still the current decision.",
        cites=[("c1", OLD_SENTENCE), ("c1", "This is still the current decision.")],
    )
    decision = decide(text, view)
    assert decision.verdict == "abstain" and "low-coverage" in decision.reasons


@pytest.mark.parametrize(
    ("update", "message"),
    [
        pytest.param({"superseded_disclosures": []}, "without its canonical disclosure", id="dropped"),
        pytest.param({"superseded": False}, "without its canonical disclosure", id="flag-dropped"),
        pytest.param(
            {"superseded_disclosures": [f"{OLD} is current (status: accepted)"]},
            "without its canonical disclosure",
            id="rewritten",
        ),
    ],
)
def test_a_surface_that_drops_or_rewrites_the_disclosure_fails_closed(
    view: View, update: dict[str, object], message: str
) -> None:
    decision = decide(CITES_OLD, view)
    surface = answer_surface(decision, view, closure(CITES_OLD)).model_copy(update=update)
    with pytest.raises(IntegrityError, match=message):
        check_answer(surface, decision, view, closure(CITES_OLD))


def test_a_citation_row_that_hides_its_successor_fails_closed(view: View) -> None:
    decision = decide(CITES_OLD, view)
    surface = answer_surface(decision, view, closure(CITES_OLD))
    rows = [surface.citations[0].model_copy(update={"superseded_by": [], "supersession": None})]
    with pytest.raises(IntegrityError, match="supersession differs"):
        check_answer(surface.model_copy(update={"citations": rows}), decision, view, closure(CITES_OLD))


def test_a_decision_that_lost_its_disclosure_fails_closed(view: View) -> None:
    decision = replace(decide(CITES_OLD, view), superseded=())
    with pytest.raises(IntegrityError, match="differ from the envelope"):
        answer_surface(decision, view, closure(CITES_OLD))


def test_a_disclosure_on_a_current_answer_fails_closed(view: View) -> None:
    decision = decide(CITES_NEW, view)
    surface = answer_surface(decision, view, closure(CITES_NEW)).model_copy(
        update={"superseded": True, "superseded_disclosures": [DISCLOSED]}
    )
    with pytest.raises(IntegrityError, match="without its canonical disclosure"):
        check_answer(surface, decision, view, closure(CITES_NEW))


def test_a_trace_that_drops_the_disclosure_fails_closed(view: View) -> None:
    decision = decide(CITES_OLD, view)
    trace = trace_surface(decision, view, TELEMETRY).model_copy(update={"disclosures": []})
    with pytest.raises(IntegrityError, match="drops a supersession disclosure"):
        check_trace(trace, decision)
