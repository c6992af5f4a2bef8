"""One document under two addresses: the grouping search and navigate's seeding both fold by.

A note and the one source record it cites (its own source), or the same title and text under two addresses,
are one document. Search shows it once, where it first ranks, with the other address in ``also``; navigate's
seeding spends one seed on it, not two. Pure: addresses and nodes in, groups out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adapters.base import Node

__all__ = ["fold_twins"]


def fold_twins(addresses: Sequence[str], nodes: Mapping[str, Node]) -> list[list[str]]:
    """``addresses`` in order, each later twin folded into the group of its first twin; a group's first leads.

    Twins are one document under two addresses: the same title and text (whitespace and title case aside), or a
    note and the one source record it cites (its own source). Sharing words, a topic or one of two citations
    never makes a twin. A twin joins only a group whose first address it is a twin of, so a twin of a twin is
    not pulled in, and a group takes at most one note-and-source pair: two notes citing one source stay two.
    """
    keys = {a: _normalised(nodes[a]) for a in addresses if a in nodes}
    own = {a: source for a in keys if (source := _own_source(nodes[a], nodes)) is not None}
    groups: list[list[str]] = []
    by_text: dict[tuple[str, str], int] = {}  # a first address's title and text -> its group
    by_first: dict[str, int] = {}
    owners: dict[str, list[int]] = {}  # a source -> the groups led by a note that cites only it
    paired: set[int] = set()  # groups that already took their note-and-source pair
    for address in addresses:
        home = _home(address, keys, own, by_text, by_first, owners, paired)
        if home is None:
            by_first[address] = len(groups)
            if address in keys and keys[address][1]:
                by_text.setdefault(keys[address], len(groups))
            if address in own:
                owners.setdefault(own[address], []).append(len(groups))
            groups.append([address])
        else:
            groups[home].append(address)
            if keys[address] != keys[groups[home][0]]:
                paired.add(home)
    return groups


def _home(
    address: str,
    keys: Mapping[str, tuple[str, str]],
    own: Mapping[str, str],
    by_text: Mapping[tuple[str, str], int],
    by_first: Mapping[str, int],
    owners: Mapping[str, list[int]],
    paired: set[int],
) -> int | None:
    """The first group ``address`` folds into: one led by the same text, or a note-and-source pair not yet taken."""
    if address not in keys:
        return None
    pairs = [by_first[own[address]]] if own.get(address) in by_first else []
    pairs += owners.get(address, [])
    found = [g for g in pairs if g not in paired]
    if keys[address] in by_text:
        found.append(by_text[keys[address]])
    return min(found, default=None)


def _own_source(note: Node, nodes: Mapping[str, Node]) -> str | None:
    """The address of the one source record a note cites, if it cites exactly one."""
    cited = {e.dst for e in note.edges if e.rel == "cites"}
    if note.type == "source" or len(cited) != 1:
        return None
    (address,) = cited
    source = nodes.get(address)
    return address if source is not None and source.type == "source" else None


def _normalised(node: Node) -> tuple[str, str]:
    return " ".join(node.title.split()).casefold(), " ".join(node.body.split())
