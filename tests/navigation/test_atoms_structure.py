"""Atomic units know where they sit (heading path) and never come from code or comments; big bodies stay correct."""

from __future__ import annotations

import pytest

from synapse_server.language.atoms import atomic_units, restatement_targets, sentence_units
from synapse_server.language.text import markdown_blocks

ADR = """# 3. Use ISO 8601 dates

## Status

Superseded by ADR 7.

## Context

Dates were written as DD/MM/YYYY.

## Decision

We will write dates as YYYY-MM-DD.

### Exceptions

- Log files
  - keep their own stamps because the tools that read them expect it.
- Reports
"""


def _paths(body: str) -> dict[str, tuple[str, ...]]:
    return {unit.text: unit.headings for unit in atomic_units(body)}


def test_each_unit_carries_its_section_headings_outermost_first() -> None:
    paths = _paths(ADR)
    assert paths["Superseded by ADR 7."] == ("3. Use ISO 8601 dates", "Status")
    assert paths["Dates were written as DD/MM/YYYY."] == ("3. Use ISO 8601 dates", "Context")
    assert paths["We will write dates as YYYY-MM-DD."] == ("3. Use ISO 8601 dates", "Decision")


def test_a_heading_unit_holds_only_the_headings_above_it() -> None:
    paths = _paths(ADR)
    assert paths["Use ISO 8601 dates"] == ()
    assert paths["Exceptions"] == ("3. Use ISO 8601 dates", "Decision")


def test_a_nested_list_item_carries_its_parent_item() -> None:
    paths = _paths(ADR)
    section = ("3. Use ISO 8601 dates", "Decision", "Exceptions")
    assert paths["Log files"] == section
    assert paths["keep their own stamps because the tools that read them expect it."] == (*section, "Log files")
    assert paths["Reports"] == section


def test_a_heading_closes_sections_at_its_level_and_deeper() -> None:
    body = "# A\n\n## B\n\n### C\n\nIn C.\n\n## D\n\nIn D.\n\n# E\n\nIn E."
    paths = _paths(body)
    assert (paths["In C."], paths["In D."], paths["In E."]) == (("A", "B", "C"), ("A", "D"), ("E",))


def test_setext_underlines_make_headings() -> None:
    body = "Cost model\n==========\n\nRationale\n---------\n\nSpreads dominate."
    assert _paths(body)["Spreads dominate."] == ("Cost model", "Rationale")
    assert [block.kind for block in markdown_blocks(body)] == ["heading", "heading", "paragraph"]


def test_heading_marks_are_not_part_of_the_path() -> None:
    assert _paths("## **Decision** ##\n\nWe chose spreads.")["We chose spreads."] == ("Decision",)


def test_sentence_units_and_restatement_targets_carry_the_same_path() -> None:
    body = "## Context\n\nCosts rose and the Sharpe ratio fell to 1.1."
    assert {
        unit.headings for unit in (*sentence_units(body), *restatement_targets(body)) if unit.text != "Context"
    } == {("Context",)}


FENCED = """Intro sentence.

```memdsl
@memdsl/1
| The breakeven round-trip cost for momentum is 10 bps.
```

~~~
Tilde fences count too.
~~~

Closing sentence."""


def test_fenced_code_lines_are_not_units_of_any_kind() -> None:
    assert [unit.text for unit in atomic_units(FENCED)] == ["Intro sentence.", "Closing sentence."]
    assert [unit.text for unit in restatement_targets(FENCED)] == ["Intro sentence.", "Closing sentence."]


def test_fenced_code_stays_a_block_of_kind_code() -> None:
    code = [block.text for block in markdown_blocks(FENCED) if block.kind == "code"]
    assert code == ["@memdsl/1", "| The breakeven round-trip cost for momentum is 10 bps.", "Tilde fences count too."]


@pytest.mark.parametrize(
    ("body", "units"),
    [
        pytest.param(
            "Costs rose. <!-- Costs fell to 2 bps. --> Sharpe held.", ["Costs rose.", "Sharpe held."], id="inline"
        ),
        pytest.param(
            "Costs rose.\n\n<!--\nThe breakeven cost is 10 bps.\n-->\n\nSharpe held.",
            ["Costs rose.", "Sharpe held."],
            id="multi-line",
        ),
        pytest.param("Costs rose <!-- to 9 bps\nstill hidden --> to 8 bps.", ["Costs rose to 8 bps."], id="mid-line"),
        pytest.param("Costs rose.\n<!-- never closed\nThe cost is 10 bps.", ["Costs rose."], id="unclosed"),
    ],
)
def test_html_comments_are_not_text(body: str, units: list[str]) -> None:
    assert [unit.text for unit in atomic_units(body)] == units


def test_a_long_run_of_initials_is_one_correct_unit() -> None:
    body = "A. " * 20_000
    (unit,) = atomic_units(body)
    assert (unit.start, unit.end) == (0, len(body) - 1) and unit.text == body.strip()


def test_many_sentences_in_one_block_are_each_a_unit_with_exact_offsets() -> None:
    body = "Costs rose. " * 10_000
    units = atomic_units(body)
    assert len(units) == 10_000
    assert all(body[unit.start : unit.end] == "Costs rose." for unit in units)
    assert units[-1].start == len(body) - len("Costs rose. ")


def test_a_long_sentence_of_uncut_conjunctions_stays_one_unit() -> None:
    body = "x y z and " * 6_000 + "done."
    assert [unit.text for unit in atomic_units(body)] == [body.strip()]


def test_a_long_sentence_of_independent_clauses_is_cut_at_every_conjunction() -> None:
    body = " and ".join(["the costs rose"] * 3_000) + "."
    units = atomic_units(body)
    assert len(units) == 3_000 and {unit.text for unit in units[:-1]} == {"the costs rose"}


def test_a_unit_says_which_kind_of_block_it_came_from() -> None:
    kinds = {unit.text: unit.kind for unit in atomic_units(ADR)}
    assert (kinds["Context"], kinds["Log files"], kinds["Superseded by ADR 7."]) == ("heading", "item", "paragraph")
