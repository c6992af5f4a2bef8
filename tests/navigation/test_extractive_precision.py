"""Precision first: the offline navigator answers only with a unit that answers the question's form.

Each rule has its hostile twin: a considered option, a Context sentence, a
sentence that only names the topic, a figure with another label. The
record sets are real git repositories adopted as ADR folders, so the
envelope is the one a user gets after ``synapse init --adopt``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.index import Embedder
from memdsl import Abstention
from synapse_server.isolation.turn import navigate_turn
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.view import View
from synapse_server.workspace.adopt import adopt
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.engine_builders import node, world
from tests.support.offline_navigator import answered, ask
from tests.support.source_fixtures import commit_all, make_repo, write_files

SEARCH_CHOSEN = 'Chosen option: "Lunr", because it runs in the browser without a server.'

MADR_SEARCH = f"""\
---
status: accepted
date: 2024-05-02
---
# Add full-text search to the handbook

## Context and Problem Statement

We have to provide a search bar for the Handbook, because readers cannot find pages by their titles.

## Considered Options

* A hosted search library: Algolia
* A search library in the browser: Lunr

## Decision Outcome

{SEARCH_CHOSEN}
"""

MADR_SEARCH_UNDECIDED = """\
---
status: proposed
date: 2024-05-02
---
# Add full-text search to the handbook

## Context and Problem Statement

We have to provide a search bar for the Handbook, because readers cannot find pages by their titles.

## Considered Options

* A hosted search library: Algolia
* A search library in the browser: Lunr
"""

NYGARD_DECISION = "We will format every Python module with Ruff."

NYGARD_FORMAT = f"""\
# 2. Format the code with Ruff

Date: 2024-02-10

## Status

Accepted

## Context

The billing service formats its Python modules with Black and sorts imports with isort.

## Decision

{NYGARD_DECISION}
"""

NYGARD_FORMAT_CONTEXT_ONLY = """\
# 2. Format the code

Date: 2024-02-10

## Status

Proposed

## Context

The billing service formats its Python modules with Black and sorts imports with isort.
"""


def adopted_repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository holding ``docs/adr/`` and nothing else, committed and adopted."""
    make_repo(root)
    write_files(root / "docs" / "adr", files)
    commit_all(root, "Record the decisions")
    assert [finding.source.kind for finding in adopt(root).findings] == ["adr"]
    return root


def turn(root: Path, question: str, embedder: Embedder) -> tuple[str, str | None, str | None]:
    """(verdict, answer text, first cited address) of one real navigate turn."""
    result = navigate_turn(root, NavigateRequest(question=question), embedder=embedder, env={})
    surface = result.answer_surface
    if surface is None:
        return result.verdict, None, None
    return result.verdict, surface.text, surface.citations[0].address


def abstention(question: str, view: View) -> Abstention:
    terminal = ask(question, view)
    assert isinstance(terminal, Abstention), terminal
    assert terminal.label == "low-coverage"
    return terminal


@pytest.mark.both_backends
def test_a_which_did_we_choose_question_is_answered_by_the_madr_chosen_option(
    tmp_path: Path, embedder: Embedder
) -> None:
    root = adopted_repo(tmp_path / "repo", {"0001-add-full-text-search.md": MADR_SEARCH})
    verdict, text, _ = turn(root, "Which search library did we choose?", embedder)
    assert (verdict, text) == ("answer", SEARCH_CHOSEN)


@pytest.mark.both_backends
def test_a_considered_option_or_the_problem_statement_never_answers_which_did_we_choose(
    tmp_path: Path, embedder: Embedder
) -> None:
    root = adopted_repo(tmp_path / "repo", {"0001-add-full-text-search.md": MADR_SEARCH_UNDECIDED})
    verdict, text, _ = turn(root, "Which search library did we choose?", embedder)
    assert (verdict, text) == ("abstain", None)


@pytest.mark.both_backends
def test_a_nygard_decision_answers_which_tool_the_service_uses(tmp_path: Path, embedder: Embedder) -> None:
    root = adopted_repo(tmp_path / "repo", {"0002-format-the-code-with-ruff.md": NYGARD_FORMAT})
    verdict, text, _ = turn(root, "Which tool formats the Python modules?", embedder)
    assert (verdict, text) == ("answer", NYGARD_DECISION)


@pytest.mark.both_backends
def test_the_context_of_an_adr_never_answers_which_tool_the_service_uses(tmp_path: Path, embedder: Embedder) -> None:
    root = adopted_repo(tmp_path / "repo", {"0002-format-the-code.md": NYGARD_FORMAT_CONTEXT_ONLY})
    verdict, text, _ = turn(root, "Which tool formats the Python modules?", embedder)
    assert (verdict, text) == ("abstain", None)


def test_a_considered_option_answers_a_question_about_the_options() -> None:
    body = "## Considered Options\n\n* The hosted Algolia search service\n\n## Decision Outcome\n\nChosen option: Lunr."
    view = world(node("mem:tree:adr-1", body, title="Add full-text search"))
    assert answered("Which hosted search service was considered?", view) == "The hosted Algolia search service"
    assert abstention("Which hosted search service did we choose?", view)


def test_a_we_will_sentence_outside_a_decision_section_answers_a_choice_question() -> None:
    view = world(node("mem:tree:note", "After the trial we will keep Lunr for the handbook search.", type="note"))
    assert answered("Which search library did we choose?", view) == (
        "After the trial we will keep Lunr for the handbook search."
    )


def test_a_sentence_naming_only_the_topic_never_answers() -> None:
    title = "Cost per use of the handbook licence"
    view = world(node("mem:tree:pricing", f"{title}\n\nSee the pricing sheet.", title=title, type="note"))
    assert abstention("What is cost per use?", view)
    answer = "Cost per use is the monthly price divided by the number of sessions."
    view = world(node("mem:tree:pricing", f"{title}\n\n{answer}", title=title, type="note"))
    assert answered("What is cost per use?", view) == answer


def test_a_figure_with_another_label_never_answers_a_value_question() -> None:
    view = world(node("mem:tree:run", "The run took 42 seconds on one worker.", title="Run notes: MAE", type="note"))
    assert abstention("What is the MAE of the run?", view)
    view = world(node("mem:tree:run", "The MAE of the run is 0.666 on the test split.", title="Run notes", type="note"))
    assert answered("What is the MAE of the run?", view) == "The MAE of the run is 0.666 on the test split."


def test_a_how_much_question_needs_the_asked_quantity_beside_its_figure() -> None:
    body = "The broker charged fees on 120 fills in April."
    view = world(node("mem:tree:fees", body, title="Broker commission and fees", type="note"))
    assert abstention("How much commission does the broker charge?", view)
    view = world(node("mem:tree:fees", f"{body}\n\nCommission is 3 bps per side.", title="Broker fees", type="note"))
    assert answered("How much commission does the broker charge?", view) == "Commission is 3 bps per side."


def test_a_yes_no_question_needs_a_clause_that_states_its_proposition() -> None:
    body = "## Decision\n\nWe will store the ledger in SQLite.\n\n## Consequences\n\nBackups copy one file."
    view = world(node("mem:tree:adr-3", body, title="Store the ledger in SQLite"))
    assert abstention("Do backups of the ledger use SQLite?", view)
    assert answered("Is the ledger stored in SQLite?", view) == "We will store the ledger in SQLite."


def test_an_abstention_names_what_it_looked_for_and_how_many_records_it_read() -> None:
    body = "## Context and Problem Statement\n\nWe have to provide a search bar for the handbook."
    view = world(
        node("mem:tree:adr-1", body, title="Add full-text search"),
        node("mem:tree:note", "Readers asked for search in the handbook survey.", type="note"),
    )
    assert abstention("Which search library did we choose?", view).detail == (
        "no decision line about 'search library' in the 2 records read"
    )


def test_a_choice_question_prefers_the_current_record_over_the_superseded_one() -> None:
    old = world(
        node("mem:tree:adr-2", "## Decision\n\nChosen option: RabbitMQ.", title="Choose a message queue"),
        node("mem:tree:adr-3", "## Decision\n\nChosen option: Amazon SQS.", title="Move to a managed message queue"),
    )
    assert answered("Which message queue did we choose?", old) == "Chosen option: RabbitMQ."
    status = "## Status\n\nSuperseded by ADR 3.\n\n## Decision\n\nChosen option: RabbitMQ."
    current = world(
        node("mem:tree:adr-2", status, title="Choose a message queue"),
        node("mem:tree:adr-3", "## Decision\n\nChosen option: Amazon SQS.", title="Move to a managed message queue"),
    )
    assert answered("Which message queue did we choose?", current) == "Chosen option: Amazon SQS."


@pytest.mark.both_backends
def test_the_demo_broker_commission_is_answered_with_its_fee_sentence(
    indexed_copy: Callable[[str], Path], embedder: Embedder
) -> None:
    root = indexed_copy("precision")
    request = NavigateRequest(question="What commission does the broker charge?")
    result = navigate_turn(root, request, embedder=embedder, stores=Stores.load(load_workspace(root)), env={})
    surface = result.answer_surface
    assert surface is not None
    assert (surface.text, surface.citations[0].address) == (
        "Commission is 3 bps per side.",
        "zk:execution:20260430-0900-commission",
    )


def test_a_metadata_line_of_a_decision_record_is_never_its_decision() -> None:
    body = "Date: 2020-11-03\n\n## Context\n\nThe handbook needs a search library in the browser."
    view = world(node("mem:adr:20201103-search", body, title="Search in the handbook"))
    assert abstention("Which search library did we choose?", view)


def test_a_chosen_option_whose_reasons_follow_as_a_list_is_not_itself_a_reason() -> None:
    whole = 'Chosen option: "Lunr", because it runs in the browser alone.'
    view = world(node("mem:tree:adr-1", f"## Decision Outcome\n\n{whole}", title="Use Lunr for the handbook search"))
    assert answered("Why did we choose Lunr for the handbook search?", view) == whole
    cut = '## Decision Outcome\n\nChosen option: "Lunr", because\n\n* runs in the browser alone'
    view = world(node("mem:tree:adr-1", cut, title="Use Lunr for the handbook search"))
    assert abstention("Why did we choose Lunr for the handbook search?", view)


def test_a_why_question_is_not_answered_by_a_decision_to_do_the_opposite() -> None:
    body = '## Decision Outcome\n\nChosen option: "Do not emphasize line headings", because readers skim them.'
    view = world(node("mem:tree:adr-7", body, title="Line headings"))
    assert abstention("Why do we emphasize line headings?", view)


def test_a_sentence_opening_with_because_answers_only_a_why_question() -> None:
    body = "Because the Core package holds the business logic, it is tested first."
    view = world(node("mem:tree:note", body, title="Core package", type="note"))
    assert abstention("What test coverage does the core package require?", view)
    assert answered("Why is the core package tested first?", view) == body


def test_a_decision_driver_never_answers_how_something_is_done() -> None:
    body = "## Decision Drivers\n\n* Easy to find groups of records among hundreds of records"
    body += "\n\n## Decision Outcome\n\nChosen option: subfolders with local IDs."
    view = world(node("mem:tree:adr-10", body, title="Group records into categories"))
    assert answered("How are records grouped into categories?", view) == "Chosen option: subfolders with local IDs."
    view = world(
        node("mem:tree:adr-10", body.split("\n\n## Decision Outcome")[0], title="Group records into categories")
    )
    assert abstention("How are records grouped into categories?", view)
