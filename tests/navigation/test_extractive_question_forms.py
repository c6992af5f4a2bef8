"""Each question form needs a unit of that form: a definition, a purpose, a way, an agent; an echo never answers.

Every case pairs the misreading the offline navigator once published (taken
from adopted public repositories) with the unit that does answer, so each
rule is pinned from both sides: it refuses the echo and still finds the answer.
"""

from __future__ import annotations

from memdsl import Abstention
from synapse_server.language.question import analyse, stem
from synapse_server.navigation.view import View
from tests.support.engine_builders import node, world
from tests.support.offline_navigator import answered, ask

COST = """Whenever I buy things I try to prioritize *cost per use*.

## Cost per use

They cost about four times as much as cheap socks, but they last.

*Cost per use* is a heuristic that helps me make decisions about most purchases.
"""

HANDS = """There is a feeling I search for: *being in good hands*.

I know I am in good hands when I sense a cohesive point of view expressed with attention to detail.
"""

MYSQL = """## Decision

We discussed three options:

 1. have one admin instance per MySQL database
 2. manage the users and databases in terraform itself
 3. centralise the MySQL databases and have one admin machine manage them all

The one we've chosen is a single instance with a dedicated "db admin" puppet role that manages the databases and their users.
"""


def abstains(question: str, view: View) -> bool:
    terminal = ask(question, view)
    return isinstance(terminal, Abstention) and terminal.label == "low-coverage"


def test_a_definition_question_skips_sentences_that_only_mention_the_term_for_the_one_that_defines_it() -> None:
    view = world(node("zk:vault:buy-wisely", COST, title="Buy wisely"))
    assert answered("What is cost per use?", view) == (
        "Cost per use is a heuristic that helps me make decisions about most purchases."
    )


def test_a_definition_question_with_only_mentions_and_a_stray_figure_abstains() -> None:
    body = "Whenever I buy things I try to prioritize *cost per use*.\n\nThey cost about four times as much."
    assert abstains("What is cost per use?", world(node("zk:vault:buy-wisely", body, title="Buy wisely")))


def test_a_figure_answers_what_is_the_x_only_beside_every_word_of_x() -> None:
    view = world(node("data:runs:r1", "The MAE of the run is 0.666.\n\nThe run took 4 minutes.", title="Run r1"))
    assert answered("What is the MAE of the run?", view) == "The MAE of the run is 0.666."
    assert abstains("What is the MAE of the run?", world(node("data:runs:r1", "The run took 4 minutes.")))


def test_a_how_question_outside_a_decision_needs_a_way_not_a_sentence_naming_the_topic() -> None:
    view = world(node("zk:vault:in-good-hands", HANDS, title="In good hands", type="note"))
    assert answered("How do you know you are in good hands?", view).startswith("I know I am in good hands when")
    echo = "There is a feeling I search for: *being in good hands*."
    assert abstains(
        "How do you know you are in good hands?", world(node("zk:vault:hands", echo, title="Hands", type="note"))
    )


def test_a_what_for_question_needs_a_purpose() -> None:
    body = "## Decision\n\nWe've bought a DNS domain for the stack.\n\nThe internal DNS domain will be used by our internal services."
    view = world(node("mem:adr:0016", body, title="Internal DNS zones"))
    assert answered("What is the internal DNS domain used for?", view) == (
        "The internal DNS domain will be used by our internal services."
    )
    echo = "## Context\n\nEach stack has an internal and external DNS domain."
    assert abstains("What is the internal DNS domain used for?", world(node("mem:adr:0015", echo, title="DNS")))


def test_a_who_question_needs_an_agent_not_a_sentence_naming_the_work() -> None:
    meeting = "Discussed the book [[Out of Control]] on the topic of [[Emergence]]."
    assert abstains("Who wrote the book Out of Control?", world(node("zk:vault:meeting", meeting, title="Meeting")))
    book = "Out of Control is a book written by Kevin Kelly in 1994."
    view = world(node("zk:vault:book", book, title="Out of Control"))
    assert answered("Who wrote the book Out of Control?", view) == book


def test_a_lead_in_ending_in_a_colon_is_never_the_answer() -> None:
    body = "## Development\n\nIf not already done, install Log4brains:\n\n```bash\nnpm install -g log4brains\n```\n"
    assert abstains("How is Log4brains installed?", world(node("repo:l4b:README.md", body, title="README")))


def test_the_items_of_a_list_introduced_as_options_are_options_not_the_decision() -> None:
    view = world(node("mem:adr:0019", MYSQL, title="Centralise MySQL databases"))
    answer = answered("How are the MySQL databases and users managed?", view)
    assert answer.startswith("The one we've chosen is a single instance"), answer
    options_only = MYSQL.rsplit("\n\n", 2)[0]
    assert abstains("How are the MySQL databases and users managed?", world(node("mem:adr:0019", options_only)))


def test_a_record_whose_title_negates_the_premise_of_a_why_question_does_not_answer_it() -> None:
    body = "## Decision\n\nWe do not emphasize line headings, because they are already easy to identify."
    view = world(node("mem:adr:0007", body, title="Do not emphasize line headings"))
    assert abstains("Why do we emphasize line headings?", view)
    assert answered("Why do we not emphasize line headings?", view).startswith("We do not emphasize")


def test_the_question_reader_finds_the_subject_head_the_purpose_and_the_who_verb() -> None:
    cost = analyse("What is cost per use?")
    assert (cost.subject, cost.subject_words) == ((stem("cost"),), (stem("cost"), stem("use")))
    assert analyse("What is the only exception among the layers?").subject == (stem("exception"),)
    assert analyse("What is the internal DNS domain used for?").purpose
    assert analyse("What is the internal DNS domain used for?").subject == ()
    assert analyse("Who wrote the book Out of Control?").verb == "wrote"


MARKER = """## Considered Options

* Use an asterisk
* Use a hyphen

## Decision Outcome

Chosen option: "Use an asterisk", because an asterisk does not read as "bad".
"""


def test_a_quoted_choice_names_the_value_of_a_which_question_in_the_record_about_it() -> None:
    view = world(node("mem:adr:0011", MARKER, title="Use Asterisk as List Marker"))
    assert answered("Which list marker do we use?", view).startswith('Chosen option: "Use an asterisk"')


def test_a_record_that_never_names_the_asked_noun_does_not_answer_which_x_when_another_does() -> None:
    tooling = node(
        "mem:adr:0003", '## Decision Outcome\n\nChosen option: "Write own tooling", because', title="Own tooling"
    )
    licence = '## Decision Outcome\n\nChosen option: "Dual license with MIT and CC0", because users choose.'
    view = world(tooling, node("mem:adr:0001", licence, title="Dual License the Work"))
    assert answered("Which licence do we use?", view).startswith('Chosen option: "Dual license')
    considered = licence.replace("Decision Outcome", "Considered Options").replace("Chosen option: ", "")
    assert abstains("Which licence do we use?", world(tooling, node("mem:adr:0001", considered, title="Licence")))


def test_british_and_american_spellings_of_a_word_are_one_term() -> None:
    assert stem("licence") == stem("license") and stem("organised") == stem("organized")
    assert stem("precise") != stem("precize")


def test_front_matter_lines_left_in_a_body_are_metadata_not_answers() -> None:
    body = "parent: Decisions nav_order: 3 status: on hold\n\n## Context\n\nDevelopers like tooling."
    assert abstains("Which licence does MADR use?", world(node("mem:adr:0003", body, title="Licence of MADR")))


def test_a_digit_inside_an_identifier_is_not_a_figure() -> None:
    body = "conflicts with: aurora.revenue_target_2026"
    assert abstains("What is the revenue target for Aurora?", world(node("mem:alex:aurora", body, type="note")))


POSTGRES = """Migrate Aurora to Postgres for multi-device sync.

- reason: Sync conflicts and concurrent writes outgrew SQLite.
- alternatives: Litestream, Turso
- status: active
"""


def test_a_labelled_reason_field_answers_a_why_question_about_the_records_statement() -> None:
    view = world(node("mem:mem:aurora.db_postgres", POSTGRES, title="decision aurora.db_postgres"))
    assert answered("Why is Aurora migrating to Postgres?", view) == (
        "reason: Sync conflicts and concurrent writes outgrew SQLite."
    )


def test_an_alternatives_field_is_an_option_and_a_status_field_metadata() -> None:
    view = world(node("mem:mem:aurora.db_postgres", POSTGRES, title="decision aurora.db_postgres"))
    assert abstains("Which Litestream replacement did Aurora choose?", view)
    assert abstains("What is active for Aurora?", world(node("mem:mem:x", "- status: active\n- scope: Aurora")))


def test_the_projects_own_name_in_a_question_is_background_not_a_term_each_record_must_repeat() -> None:
    view = world(
        node("mem:adr:0011", MARKER, title="Use Asterisk as List Marker"),
        node("repo:madr:README.md", "MADR is a template for decision records.", type="file", title="README"),
    )
    assert answered("Which list marker does MADR use?", view).startswith('Chosen option: "Use an asterisk"')
    lone = world(node("mem:adr:0011", MARKER, title="Use Asterisk as List Marker"))
    assert abstains("Which list marker does MADR use?", lone), "MADR names no rendered source here"


def test_a_what_question_prefers_the_sentence_that_states_the_choice_within_its_section() -> None:
    body = MARKER + "\nAn asterisk as list marker is more readable, says the style guide.\n"
    view = world(node("mem:adr:0011", body, title="Use Asterisk as List Marker"))
    assert answered("Which list marker do we use?", view).startswith('Chosen option: "Use an asterisk"')


def test_a_non_prefix_negates_its_noun_not_the_definition_but_a_clause_negation_still_refuses() -> None:
    body = "*Cost per use* is a heuristic for most non-perishable purchases."
    view = world(node("zk:vault:buy-wisely", body, title="Buy wisely", type="note"))
    assert answered("What is cost per use?", view).startswith("Cost per use is a heuristic")
    negated = "*Cost per use* is not a heuristic for perishable purchases."
    assert abstains("What is cost per use?", world(node("zk:vault:b", negated, title="Buy wisely", type="note")))


def test_an_inflected_frame_verb_is_not_a_term_the_evidence_must_repeat() -> None:
    assert "replac" not in {term.stem for term in analyse("What replaces MongoDB for our apps?").terms}
    assert [term.word for term in analyse("How much sugar goes into the tart filling?").terms] == [
        "sugar",
        "tart",
        "filling",
    ]


def test_an_author_property_answers_who_wrote_the_work_its_note_is_about() -> None:
    book = "## Properties\n- categories: Books\n- year: 1992\n- author: Kevin Kelly\n"
    view = world(node("zk:vault:out-of-control", book, title="Out of Control", type="note"))
    assert answered("Who wrote the book Out of Control?", view) == "author: Kevin Kelly"
    assert abstains(
        "What year is the book Out of Control from, by status?", world(node("zk:vault:x", "- status: 1992"))
    )


def test_an_author_line_answers_only_a_who_question() -> None:
    book = "## Properties\n- categories: Books\n- author: Kevin Kelly\n"
    view = world(node("zk:vault:out-of-control", book, title="Out of Control", type="note"))
    assert abstains("What is the book Out of Control about?", view)


def test_a_records_file_slug_names_its_topic_like_its_title() -> None:
    body = "## Decision\n\n| Environment | Range |\n|---|---|\n|Production|10.13.0.0/16|\n"
    view = world(node("mem:adr:0033-ip-ranges", body, title="Networking Outline"))
    assert answered("Which IP range does the Production VPC use?", view) == "Production 10.13.0.0/16"
    assert abstains("Which IP range does the Production VPC use?", world(node("mem:adr:0033-outline", body)))


def test_a_reason_field_never_answers_for_a_statement_its_record_does_not_make() -> None:
    sqlite = "Start Aurora with SQLite for local-first storage.\n\n- reason: Zero-ops, single user, easy backups.\n"
    view = world(node("mem:mem:aurora.db_sqlite", sqlite, title="decision aurora.db_sqlite"))
    assert abstains("Why is Aurora migrating to Postgres?", view)
    postgres = sqlite.replace("Start Aurora with SQLite", "Migrate Aurora to Postgres")
    assert answered("Why is Aurora migrating to Postgres?", world(node("mem:mem:aurora.db", postgres))).startswith(
        "reason:"
    )
