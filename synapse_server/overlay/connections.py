"""``connections``: the typed cross-store edges touching one node, read from an overlay.

A caller may name the node the way people do (a memory id ``deci-e17103e8``,
a note id ``20260407-1030-costs-reduce-returns``) or by its full address; a
bare id that exists in two zettelkasten projects is refused as ambiguous
rather than silently picking one. The overlay's drift status always comes
along, so an answer from a stale overlay says so; when no overlay was built
the answer is an empty list with drift ``missing``, not an error.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from adapters.ids import BadAddress, check_address, check_id, make_address
from synapse_server.errors import InvalidInput, NotFound
from synapse_server.overlay.model import KINDS, Drift, Link, OverlayKind
from synapse_server.overlay.store import read_overlay
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

__all__ = ["ConnectionsResult", "connections", "resolve_node"]

_STORES = ("mem", "zk")


class ConnectionsResult(BaseModel):
    """The edges touching ``node`` (as practice or as canon), strongest first, with the overlay's drift."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node: str = Field(description="the resolved canonical address")
    kind: OverlayKind
    role: str = Field(description="practice (a memory entry) or canon (a zettelkasten note)")
    drift: Drift
    detail: str = Field(description="why the overlay is fresh, drifted, missing or invalid")
    path: str = Field(description="the overlay file, relative to the workspace")
    edges: list[Link]


def connections(
    workspace: Workspace, node: str, kind: OverlayKind = "generic", *, stores: Stores | None = None
) -> ConnectionsResult:
    """Every link of the ``kind`` overlay with ``node`` at either end; raises for an unknown or ambiguous node."""
    if kind not in KINDS:
        raise InvalidInput(f"kind: {kind!r} is not one of {', '.join(KINDS)}", parameter="kind")
    loaded = stores if stores is not None else Stores.load(workspace, ("memory", "zk"))
    state = read_overlay(workspace, kind, stores=loaded)
    links = state.overlay.links if state.overlay is not None else []
    endpoints = {a for link in links for a in link.key()}
    address = resolve_node(node, set(loaded.nodes) | endpoints)
    # Every edge says what it rests on, also one read from a file written before ``basis`` existed.
    touching = [link.model_copy(update={"basis": link.evidence()}) for link in links if address in link.key()]
    touching.sort(key=lambda link: (-(link.priority or link.confidence), -link.confidence, link.key()))
    role = "practice" if address.startswith("mem:") else "canon"
    return ConnectionsResult(
        node=address, kind=kind, role=role, drift=state.drift, detail=state.detail, path=state.path, edges=touching
    )


def resolve_node(text: str, known: Iterable[str]) -> str:
    """The canonical ``mem:``/``zk:`` address ``text`` names: a full address or a bare, unambiguous id."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("id: give a memory id, a note id or a mem:/zk: address", parameter="id")
    text = text.strip()
    addresses = set(known)
    if ":" in text:
        try:
            parsed = check_address(text)
        except BadAddress as exc:
            raise InvalidInput(f"id: {text!r} is not a valid address: {exc}", parameter="id") from None
        if parsed.store not in _STORES:
            raise InvalidInput(f"id: {text!r} is neither a memory entry nor a zettelkasten note", parameter="id")
        address = make_address(parsed.store, parsed.source, parsed.id)
        if address not in addresses:
            raise NotFound(f"id: {address} is not in memory, the zettelkasten or the overlay", parameter="id")
        return address
    try:
        ident = check_id(text)
    except BadAddress as exc:
        raise InvalidInput(f"id: {text!r} is not a valid id: {exc}", parameter="id") from None
    matches = sorted(a for a in addresses if a.split(":", 1)[0] in _STORES and a.rsplit(":", 1)[-1] == ident)
    if not matches:
        raise NotFound(f"id: no memory entry or note has the id {ident!r}", parameter="id")
    if len(matches) > 1:
        raise InvalidInput(f"id: {ident!r} is ambiguous ({', '.join(matches)}); pass a full address", parameter="id")
    return matches[0]
