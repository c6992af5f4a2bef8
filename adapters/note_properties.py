"""A note's front-matter properties as lines a reader can cite, and the wikilinks they hold.

A properties-heavy vault keeps most of what it knows in front matter
(``director: ["[[Ridley Scott]]"]``, ``rating: 7``, ``last: 2023-09-14``);
many of its notes have no prose at all. Each property therefore becomes one
list item of a ``## Properties`` section at the end of the note's body, with
the value as written: dates stay the text that was typed, a list reads as its
items joined by commas, a nested mapping as ``key: value`` pairs joined by
semicolons, and a wikilink as the text Obsidian shows for it (its alias, else
its target). The section goes after the note's own text, so the body's lines
still match the file's and a section heading of the note never frames a
property. ``[[links]]`` inside values are returned with the property's line,
so they become edges like links in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from adapters.frontmatter import Record
from adapters.links import WIKILINK

__all__ = ["PROPERTIES_HEADING", "Property", "PropertyLink", "properties_section", "read_properties"]

PROPERTIES_HEADING = "Properties"

_NULL = "tag:yaml.org,2002:null"


@dataclass(frozen=True, slots=True)
class PropertyLink:
    """A ``[[wikilink]]`` written in a property value: ``embeds`` for ``![[…]]``, else ``links-to``."""

    rel: str
    target: str


@dataclass(frozen=True, slots=True)
class Property:
    """One front-matter property: its name, its value on one readable line, its file line, its links."""

    key: str
    text: str
    line: int
    links: tuple[PropertyLink, ...]


def read_properties(record: Record) -> tuple[Property, ...]:
    """Every property with a value, in file order; an empty one (``aliases:``, ``type: []``) is left out."""
    out: list[Property] = []
    for key in record.fields():
        node = record.raw(key)
        if node is None:
            continue
        links: list[PropertyLink] = []
        text = _render(node, links)
        if text:
            out.append(Property(_one_line(key), text, record.line_of(key), tuple(links)))
    return tuple(out)


def properties_section(props: tuple[Property, ...]) -> str:
    """``## Properties`` and one ``- key: value`` item per property; empty when there are none."""
    if not props:
        return ""
    items = "\n".join(f"- {prop.key}: {prop.text}" for prop in props)
    return f"## {PROPERTIES_HEADING}\n\n{items}"


def _render(node: yaml.Node, links: list[PropertyLink]) -> str:
    """A value on one line, collecting the wikilinks of every scalar it holds."""
    if isinstance(node, yaml.ScalarNode):
        return "" if node.tag == _NULL else _shown(str(node.value), links)
    if isinstance(node, yaml.SequenceNode):
        return ", ".join(text for text in (_render(item, links) for item in node.value) if text)
    if isinstance(node, yaml.MappingNode):
        pairs = ((_render(key, []), _render(value, links)) for key, value in node.value)
        return "; ".join(f"{key}: {value}" for key, value in pairs if key and value)
    return ""


def _shown(text: str, links: list[PropertyLink]) -> str:
    """``text`` with each wikilink as Obsidian shows it (alias, else target#heading), its links collected."""

    def shown(match: re.Match[str]) -> str:
        embed, target, heading, alias = match.groups()
        target = target.strip()
        if target:
            links.append(PropertyLink("embeds" if embed else "links-to", target))
        if alias and alias.strip():
            return alias.strip()
        return target + (f"#{heading.strip()}" if heading and heading.strip() else "")

    return _one_line(WIKILINK.sub(shown, text))


def _one_line(text: str) -> str:
    """A multi-line value must not break out of its list item."""
    return " ".join(text.split())
