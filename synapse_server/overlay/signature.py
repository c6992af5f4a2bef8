"""The overlay's signature: one sha256 that changes whenever anything a build read has changed.

A committed overlay travels with the repository while both stores keep being
edited, so every reader must be able to tell, cheaply and without a model,
whether the links still describe the stores. The signature covers the overlay
kind, the project scope, the typer identity, the embedding model (similarities
come from it) and, for every memory entry and every in-scope zettelkasten node,
its address plus a hash of exactly the fields a build reads: title, body, type
and the meta that feeds candidates, typing or the embedded text. Fields a build
never reads (a body's line number, a debate record) stay out, so touching them
does not force a rebuild.

Everything here is pure: nodes in, hex digest out. Paths and machine names
never enter the digest, so a clone on another machine reads the same signature.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from adapters.base import Node

__all__ = [
    "SIGNATURE_VERSION",
    "node_digest",
    "overlay_signature",
    "signature_nodes",
]

SIGNATURE_VERSION = "synapse-overlay-signature/1"

MEMORY_FIELDS: tuple[str, ...] = ("kind", "status", "pins", "runs", "tags")
"""Memory meta a build reads: kind (claim filter), status (the LLM prompt), pins (provenance), tags (embedded)."""

ZK_FIELDS: tuple[str, ...] = ("type", "claim_strength", "cross", "files", "tags")
"""Note meta a build reads: type and cross (claim filter), claim_strength (priority), files (provenance), tags."""


def signature_nodes(nodes: Mapping[str, Node], projects: Iterable[str]) -> list[Node]:
    """The nodes a build of this scope reads: every memory entry and every zk node of a scoped project."""
    scope = set(projects)
    return [
        node
        for node in nodes.values()
        if node.family == "memory" or (node.family == "zk" and node.address.split(":", 2)[1] in scope)
    ]


def node_digest(node: Node) -> str:
    """A content hash of the fields of ``node`` that a build reads (see the module docstring)."""
    fields = MEMORY_FIELDS if node.family == "memory" else ZK_FIELDS
    meta = {key: _plain(node.meta.get(key)) for key in fields}
    code_refs = sorted(e.dst for e in node.edges if e.dst.startswith("repo:") and e.rel in ("cites", "files"))
    payload = {"title": node.title, "body": node.body, "type": node.type, "meta": meta, "code": code_refs}
    return _sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")))


def overlay_signature(kind: str, projects: Iterable[str], typer: str, embedding: str, nodes: Iterable[Node]) -> str:
    """sha256 over the build's identity and every read node's (address, content hash), in address order."""
    digest = hashlib.sha256()
    header = {"v": SIGNATURE_VERSION, "kind": kind, "projects": sorted(set(projects)), "typer": typer}
    header["embedding"] = embedding
    digest.update(json.dumps(header, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    for node in sorted(nodes, key=lambda n: n.address):
        digest.update(f"\n{node.address}\t{node_digest(node)}".encode())
    return "sha256:" + digest.hexdigest()


def _plain(value: Any) -> Any:
    """Meta values as JSON-stable data: tuples become lists, mappings get sorted keys, others stay."""
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
