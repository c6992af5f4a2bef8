"""Translate a workspace's nodes into the peer's ``.mem`` source, so both systems search the same content.

The peer (the PyPI ``memdsl`` 0.4 package, a different project that shares our
import name) reads typed declarations such as::

    module synth.p0001

    decision mem.tree.deci-1a2b3c4d {
      claim: "Net costs reduce the sharpe ratio. ..."
      status: active
      tags: [cost, sharpe]
      derived_from: [zk.research.20260105-0900-claim]
      evidence { source: "models/cost.py@1a2b3c4" quote: "Net costs reduce the sharpe ratio." }
    }

Each node becomes one declaration whose ``claim`` is the exact text our index
ranks (``IndexDoc.embed_text``: title, body and tags), flattened to one line,
so a latency difference cannot come from one side reading more text. Choices,
each so the peer's linter stays quiet and its query sees every doc ours sees:

- memory decisions become ``decision``, everything else ``fact`` (both core kinds that need evidence);
- every declaration is ``status: active``: our index searches every doc whatever its status, and the
  peer hides superseded ones from queries;
- ``evidence`` names the node's first tether (its quote when a citation has one, else the body's first
  sentence), or the store when the node has no tether;
- edges between translated nodes become the peer's relations (``contradicts`` -> ``conflicts_with``);
- files hold at most 50 declarations, the peer's ``module_too_large`` budget.

This module is pure (nodes in, file texts out) so the test suite checks it without the peer installed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from adapters.base import Node
from adapters.index import IndexDoc

MODULE_BUDGET = 50
"""The peer's linter warns past 50 declarations in one module."""
RELATIONS: Mapping[str, str] = {
    "supports": "supports",
    "contradicts": "conflicts_with",
    "refines": "refines",
    "related": "related_to",
    "cites": "derived_from",
    "parent": "part_of",
}
"""Our edge kinds -> the peer's relation fields; edges to code, runs or children have no counterpart."""

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]")
_SENTENCE = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True, slots=True)
class Translation:
    """The ``.mem`` files (relative name -> text) and the address each declaration name stands for."""

    files: dict[str, str]
    addresses: dict[str, str]

    def address_of(self, declaration_id: str) -> str | None:
        """Our canonical address for a peer id (``kind:name`` or a bare name)."""
        return self.addresses.get(declaration_id.split(":", 1)[-1])


def declaration_name(address: str) -> str:
    """A peer atom for an address: ``mem:tree:deci-1a2b`` -> ``mem.tree.deci-1a2b`` (odd characters -> ``_``)."""
    return _NAME_CHARS.sub("_", address.replace(":", "."))


def quote(text: str) -> str:
    """A peer string literal: one line, backslash and double quote escaped."""
    flat = " ".join(text.split())
    return '"' + flat.replace("\\", "\\\\").replace('"', '\\"') + '"'


def kind_of(node: Node) -> str:
    return "decision" if node.family == "memory" and node.type == "decision" else "fact"


def declaration(node: Node, name: str, names: Mapping[str, str]) -> str:
    """One declaration for ``node``; ``names`` maps every translated address to its declaration name."""
    doc = IndexDoc.from_node(node)
    body = " ".join(node.body.split())
    first = _SENTENCE.split(body, maxsplit=1)[0] if body else node.title
    source: str = node.family
    said = first
    if node.tethers:
        tether = node.tethers[0]
        source = f"{tether.kind.value}:{tether.target}" + (f"@{tether.ref}" if tether.ref else "")
        said = tether.quote or first
    lines = [f"{kind_of(node)} {name} {{", f"  claim: {quote(doc.embed_text())}", "  status: active"]
    tags = [declaration_name(str(t)) for t in (node.meta.get("tags") or ())] if node.meta else []
    if tags:
        lines.append(f"  tags: [{', '.join(tags)}]")
    related: dict[str, list[str]] = {}
    for edge in node.edges:
        field = RELATIONS.get(edge.rel)
        target = names.get(edge.dst)
        if field and target and target != name and target not in related.get(field, []):
            related.setdefault(field, []).append(target)
    lines += [f"  {field}: [{', '.join(targets)}]" for field, targets in related.items()]
    lines.append(f"  evidence {{ source: {quote(str(source))} quote: {quote(said or node.title)} }}")
    lines.append("}")
    return "\n".join(lines)


def translate(nodes: Iterable[Node], module_prefix: str = "synth") -> Translation:
    """Every node as one declaration, ``MODULE_BUDGET`` per file, in address order (deterministic)."""
    ordered = sorted(nodes, key=lambda n: n.address)
    names: dict[str, str] = {}
    taken: set[str] = set()
    for node in ordered:
        name = base = declaration_name(node.address)
        suffix = 2
        while name in taken:  # two addresses that differ only in odd characters
            name, suffix = f"{base}_{suffix}", suffix + 1
        taken.add(name)
        names[node.address] = name
    files: dict[str, str] = {}
    for start in range(0, len(ordered), MODULE_BUDGET):
        part = start // MODULE_BUDGET + 1
        module = f"{module_prefix}.p{part:05d}"
        decls = [declaration(n, names[n.address], names) for n in ordered[start : start + MODULE_BUDGET]]
        files[f"{module}.mem"] = f"module {module}\n\n" + "\n\n".join(decls) + "\n"
    return Translation(files, {name: address for address, name in names.items()})
