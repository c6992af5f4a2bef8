"""The offline navigator answers only on a match of the question's focus, in the form the question asks for."""

from __future__ import annotations

from memdsl import Abstention
from synapse_server.navigation.view import View
from tests.support.engine_builders import node, world
from tests.support.offline_navigator import answered, ask

DATES = """# 6. Write record dates in ISO 8601

## Status

Accepted

## Context

The records used the DD-MM-YYYY date format until now.

Dates written as DD-MM-YYYY do not sort in a directory listing.

## Decision

We will write every record date in ISO 8601 format, YYYY-MM-DD.

## Consequences

Older records keep their original dates until they are next edited.
"""

OLD_DATES = """# 2. Date records as DD-MM-YYYY

## Status

Superseded by ADR 6.

## Decision

We will write the record date format as DD-MM-YYYY.
"""


def abstains(question: str, view: View) -> bool:
    terminal = ask(question, view)
    return isinstance(terminal, Abstention) and terminal.label == "low-coverage"


def test_the_decision_beats_the_context_that_describes_the_old_state() -> None:
    view = world(node("mem:tree:adr-6", DATES, title="Write record dates in ISO 8601"))
    assert answered("What date format do the records use?", view) == (
        "We will write every record date in ISO 8601 format, YYYY-MM-DD."
    )


def test_a_why_question_is_answered_with_a_reason_not_with_the_decision() -> None:
    view = world(node("mem:tree:adr-6", DATES, title="Write record dates in ISO 8601"))
    assert answered("Why do the records use ISO 8601 dates?", view) == (
        "Dates written as DD-MM-YYYY do not sort in a directory listing."
    )


def test_a_why_question_without_any_reason_abstains() -> None:
    body = "## Decision\n\nWe will write every record date in ISO 8601 format, YYYY-MM-DD."
    assert abstains("Why do the records use ISO 8601 dates?", world(node("mem:tree:adr-6", body)))


def test_a_question_term_that_no_rendered_node_mentions_abstains() -> None:
    body = "## Decision\n\nWe will implement the command-line tool in Go.\n\n## Context\n\nThe Bash prototype was slow."
    view = world(node("mem:tree:adr-3", body, title="Use Go for the command-line tool"))
    assert abstains("Why was the command-line tool written in Python?", view)
    assert not abstains("Why was the command-line tool written in Go?", view)


def test_an_active_record_beats_a_superseded_one() -> None:
    view = world(
        node("mem:tree:adr-2", OLD_DATES, title="Date records as DD-MM-YYYY"),
        node("mem:tree:adr-6", DATES, title="Write record dates in ISO 8601"),
    )
    assert answered("What date format do the records use?", view) == (
        "We will write every record date in ISO 8601 format, YYYY-MM-DD."
    )


def test_a_question_about_the_past_prefers_the_superseded_record() -> None:
    view = world(
        node("mem:tree:adr-6", DATES, title="Write record dates in ISO 8601"),
        node("mem:tree:adr-2", OLD_DATES, title="Date records as DD-MM-YYYY"),
    )
    assert answered("What date format did the records use originally?", view) == (
        "We will write the record date format as DD-MM-YYYY."
    )


def test_a_line_inside_a_fenced_block_is_never_answered() -> None:
    body = "Example envelope for the prompt tests:\n\n```memdsl\n| The breakeven round-trip cost for momentum is 12 bps.\n```"
    assert abstains("What is the breakeven round-trip cost for momentum?", world(node("mem:tree:note", body)))


def test_a_line_inside_an_html_comment_is_never_answered() -> None:
    body = "Costs were reviewed.\n\n<!--\nThe breakeven round-trip cost for momentum is 12 bps.\n-->"
    assert abstains("What is the breakeven round-trip cost for momentum?", world(node("mem:tree:note", body)))


def test_a_how_much_question_needs_a_figure() -> None:
    view = world(node("mem:tree:note", "Trading costs rose sharply after the review."))
    assert abstains("How much did trading costs rise?", view)
    view = world(node("mem:tree:note", "Trading costs rose by 3 bps after the review."))
    assert answered("How much did trading costs rise?", view) == "Trading costs rose by 3 bps after the review."


def test_a_negated_question_needs_a_negated_unit_and_a_plain_one_refuses_it() -> None:
    body = "The web layer imports the domain layer.\n\nThe storage layer never imports the web layer."
    view = world(node("mem:tree:note", body, type="note"))
    assert answered("What does the storage layer not import?", view) == (
        "The storage layer never imports the web layer."
    )
    assert abstains("What does the storage layer import?", view)


def test_the_subject_may_come_from_the_title_only_under_a_decision_heading() -> None:
    body = "## Context\n\nWorkers rebuilt everything after each deploy.\n\n## Decision\n\nChosen option: PostgreSQL."
    view = world(node("mem:tree:adr-4", body, title="Store the search index in PostgreSQL"))
    assert answered("Where is the search index stored?", view) == "Chosen option: PostgreSQL."


def test_a_question_quantifier_must_occur_in_the_answer() -> None:
    body = "## Context\n\nHistorically, there was no consensus on layer exceptions.\n\n## Decision\n\n"
    body += "The only exception is the shared kernel, which every layer may import."
    view = world(node("mem:tree:adr-5", body, title="Layers with a shared kernel"))
    assert answered("What is the only exception among the layers?", view) == (
        "The only exception is the shared kernel, which every layer may import."
    )


def test_words_found_in_most_rendered_nodes_are_background() -> None:
    others = [node(f"mem:tree:n{at}", f"Tessera note {at} about topic {at}.", type="note") for at in range(5)]
    target = node("mem:tree:rate", "Index jobs retry 5 times before they give up.", type="note")
    view = world(*others, target)
    assert answered("How many times do Tessera index jobs retry?", view) == (
        "Index jobs retry 5 times before they give up."
    )


def test_an_option_under_consideration_never_answers_why() -> None:
    body = "## Considered Options\n\n### Elasticsearch\n\n* Good, because its relevance tuning is mature."
    view = world(node("mem:tree:adr-4", body, title="Store the search index in PostgreSQL"))
    assert abstains("Why is the search index stored in Elasticsearch?", view)


def test_a_heading_is_never_an_answer() -> None:
    body = "## Retry failed index jobs five times\n\nSee the runbook."
    assert abstains("How many times are failed index jobs retried?", world(node("mem:tree:note", body, type="note")))
