"""A note's front matter as ``- key: value`` lines: values as written, one line each, wikilinks collected."""

from __future__ import annotations

from adapters.frontmatter import parse_front_matter
from adapters.note_properties import PropertyLink, properties_section, read_properties

FRONT = """---
title: Ledger rounding
created: 2024-01-08
rating: 07
aliases:
tags: [billing, money]
type: []
reviewers:
  - "[[Ada Lovelace]]"
  - "[[Carlo Rossi|Carlo]]"
cover: "![[ledger.png]]"
summary: |
  Amounts are integer cents;
  rounding is banker's.
source: {book: "[[Accounting 101#Rounding]]", page: 12}
---
Body.
"""


def _props() -> dict[str, str]:
    return {p.key: p.text for p in read_properties(parse_front_matter(FRONT, "n.md").record)}


def test_values_read_as_written_and_empty_properties_are_left_out() -> None:
    props = _props()
    assert props["created"] == "2024-01-08" and props["rating"] == "07"
    assert "aliases" not in props and "type" not in props
    assert list(props) == ["title", "created", "rating", "tags", "reviewers", "cover", "summary", "source"]


def test_lists_join_with_commas_mappings_with_semicolons_and_multi_line_text_stays_one_line() -> None:
    props = _props()
    assert props["tags"] == "billing, money"
    assert props["summary"] == "Amounts are integer cents; rounding is banker's."
    assert props["source"] == "book: Accounting 101#Rounding; page: 12"


def test_a_wikilink_reads_as_obsidian_shows_it_and_is_collected_with_its_propertys_line() -> None:
    found = {p.key: p for p in read_properties(parse_front_matter(FRONT, "n.md").record)}
    assert found["reviewers"].text == "Ada Lovelace, Carlo"
    assert found["reviewers"].links == (
        PropertyLink("links-to", "Ada Lovelace"),
        PropertyLink("links-to", "Carlo Rossi"),
    )
    assert found["reviewers"].line == 8
    assert found["cover"].links == (PropertyLink("embeds", "ledger.png"),) and found["cover"].text == "ledger.png"
    assert found["source"].links == (PropertyLink("links-to", "Accounting 101"),)


def test_the_section_is_a_heading_and_one_list_item_per_property_or_nothing() -> None:
    record = parse_front_matter("---\nyear: 1982\ndirector: '[[Ridley Scott]]'\n---\n", "n.md").record
    assert properties_section(read_properties(record)) == "## Properties\n\n- year: 1982\n- director: Ridley Scott"
    assert properties_section(()) == ""
