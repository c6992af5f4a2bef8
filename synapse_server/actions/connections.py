"""connections: the typed cross-store edges touching one memory entry or note, strongest first.

A thin wrapper over :func:`synapse_server.overlay.connections.connections`,
which ``synapse connections`` calls too: it resolves a bare id or a full
address (refusing an ambiguous one) and reads the overlay file as it is on disk
now, so the edges of a build made a moment ago are seen at once. No overlay
yet is an empty answer with drift ``missing``, not an error.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from synapse_server.actions.base import ActionSpec, StrictParams, check_text
from synapse_server.actions.deps import Deps
from synapse_server.actions.overlay_params import Kind, locked
from synapse_server.overlay.connections import ConnectionsResult, connections
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

MAX_ID_CHARS = 1000


class ConnectionsParams(StrictParams):
    id: str = Field(
        ...,
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="a memory id (deci-e17103e8), a note id, or a mem:/zk: address",
    )
    kind: Kind = Field("generic", description="which overlay: generic, or claim for the claim-aligned overlay")
    limit: int | None = Field(None, ge=1, le=100, description="most edges to return, strongest first (1-100)")

    @field_validator("id")
    @classmethod
    def _id_is_text(cls, value: str) -> str:
        return check_text(value, "id")


class ConnectionsOutput(ConnectionsResult):
    """The library's result plus the tool's ``summary`` and how many edges ``limit`` left out."""

    summary: str
    hidden: int = Field(0, description="edges left out by limit")


def find_connections(workspace: Workspace, stores: Stores, params: ConnectionsParams) -> ConnectionsOutput:
    result = connections(workspace, params.id, params.kind, stores=stores)
    shown = result.edges[: params.limit] if params.limit is not None else result.edges
    return ConnectionsOutput(
        **{**result.model_dump(), "edges": shown},
        summary=_summary(result, len(shown)),
        hidden=len(result.edges) - len(shown),
    )


async def handle(params: ConnectionsParams, deps: Deps) -> ConnectionsOutput:
    return await locked(deps, lambda workspace, stores: find_connections(workspace, stores, params))


def _summary(result: ConnectionsResult, shown: int) -> str:
    drift = "" if result.drift == "fresh" else f" (overlay {result.drift}: {result.detail})"
    if not result.edges:
        return f"no {result.kind} edges touch {result.node} ({result.role}){drift}"
    top = result.edges[0]
    other = top.canon if result.role == "practice" else top.practice
    more = "" if shown == len(result.edges) else f", {shown} shown"
    return (
        f"{len(result.edges)} {result.kind} edge(s) touch {result.node} ({result.role}{more}); "
        f"strongest: {top.relation} {other} ({top.confidence:.2f}){drift}"
    )


SPEC = ActionSpec(
    params=ConnectionsParams,
    handler=handle,
    does="List the typed cross-store edges (applies, corroborates, contradicts, motivated-by, instantiates, "
    "related) touching one memory entry or note, with confidence and rationale, and whether the overlay has "
    'drifted. kind="claim" reads the claim overlay.',
    say=("what connects to this", "show the cross-store links"),
)
