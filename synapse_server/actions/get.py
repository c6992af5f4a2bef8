"""get: the full body and metadata of one node, by memory id or any canonical address.

Agents are told to ground before quoting: search finds, get reads. Nodes come
from the loaded stores, never from a path the caller names, so get cannot read
an arbitrary file; an id that *looks* like a way out (``..``, an absolute path,
a backslash, a store file that is a symlink leaving the workspace) is refused
as ``path_outside_workspace`` rather than reported as merely missing, so the
refusal is visible.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import anyio
from pydantic import BaseModel, ConfigDict, Field, field_validator

from adapters.base import Node
from adapters.ids import BadAddress, check_address, check_id, encode_id
from adapters.paths import PathEscape, resolve_inside
from synapse_server.actions.base import ActionOutput, ActionSpec, StrictParams, check_text
from synapse_server.actions.deps import Deps
from synapse_server.errors import InvalidInput, NotFound, PathOutsideWorkspace
from synapse_server.overlay.lens import tier_of
from synapse_server.workspace.config import Workspace

MAX_ID_CHARS = 1000
MAX_BODY_CHARS = 200_000
"""A body past this is cut (``truncated: true``): a multi-megabyte data file helps no agent."""


class GetParams(StrictParams):
    id: str = Field(
        ...,
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="a memory id (deci-e17103e8), a canonical address (zk:<project>:<id>, repo:<name>:<path or "
        "dotted.symbol>, data:runs:<run-id>) or a workspace-relative file name (doc/adr/0006-use-postgres.md)",
    )

    @field_validator("id")
    @classmethod
    def _id_is_text(cls, value: str) -> str:
        return check_text(value, "id")


class TetherOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    target: str
    ref: str | None
    quote: str | None
    project: str | None


class EdgeOut(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    src: str
    dst: str
    rel: str


class GetOutput(ActionOutput):
    address: str
    store: str = Field(..., description="mem | zk | repo | data")
    family: str = Field(..., description="memory | zk | code | data")
    tier: str | None = Field(..., description="practice (memory) | canon (zk) | null")
    type: str
    title: str
    body: str
    truncated: bool
    provenance: list[str]
    tethers: list[TetherOut]
    edges: list[EdgeOut]
    meta: dict[str, Any]
    path: str | None = Field(..., description="the source file, relative to the workspace")
    line: int | None


def canonical_address(raw: str) -> str:
    """The canonical address an id names; refuses traversal-shaped ids before any lookup."""
    if "\\" in raw or any(part == ".." for part in PurePosixPath(raw.replace(":", "/")).parts):
        raise PathOutsideWorkspace("id climbs out of its store ('..' or a backslash)", parameter="id")
    if ":" not in raw:
        if "/" in raw:
            return _file_key(raw)
        try:
            return f"mem:tree:{check_id(raw)}"
        except BadAddress as exc:
            if "." in raw:  # a file at the workspace root whose name holds a space: ``Über Notizen.md``
                return _file_key(raw)
            raise InvalidInput(f"id: {exc}", parameter="id") from None
    try:
        address = check_address(raw)
    except BadAddress as exc:
        try:  # a path typed as written (``repo:demo:My Notes/a b.md``): its id encoded as the store lists it
            address = check_address(_as_listed(raw))
        except BadAddress:
            raise InvalidInput(f"id is neither a memory id nor a canonical address: {exc}", parameter="id") from None
    if address.id.startswith("/"):
        raise PathOutsideWorkspace(
            "an address names a path relative to its store, never an absolute one", parameter="id"
        )
    return f"{address.store}:{address.source}:{address.id}"


def get_node(deps: Deps, params: GetParams) -> GetOutput:
    """The function both the tool and ``synapse get`` call."""
    address = canonical_address(params.id)
    with deps.lock:
        workspace = deps.workspace()
        nodes = deps.stores().nodes
        node = nodes.get(address)
        if node is None and not address.startswith(_FILE):
            node = nodes.get(_as_listed(address))
        if node is None and ":" not in params.id:
            node = node_for_file(nodes, address.removeprefix(_FILE) if address.startswith(_FILE) else params.id)
    if node is None and address.startswith(_FILE):
        raise NotFound(f"no node is read from the file {address.removeprefix(_FILE)}", parameter="id")
    if node is None:
        _refuse_escape(workspace, address)
        raise NotFound(f"no node has the address {address}", parameter="id")
    return _output(node)


async def handle(params: GetParams, deps: Deps) -> GetOutput:
    return await anyio.to_thread.run_sync(get_node, deps, params, abandon_on_cancel=True)


_FILE = "file:"


def _as_listed(address: str) -> str:
    """``store:source:id`` with the id percent-encoded as adapters encode ids made from file names."""
    if address.count(":") < 2:
        return address
    store, source, ident = address.split(":", 2)
    return f"{store}:{source}:{encode_id(ident)}"


def _file_key(raw: str) -> str:
    """A workspace-relative file name as a lookup key; absolute paths and ``..`` were refused before."""
    if raw.startswith("/"):
        raise PathOutsideWorkspace("a file name is relative to the workspace, never absolute", parameter="id")
    return _FILE + PurePosixPath(raw).as_posix()


def node_for_file(nodes: Mapping[str, Node], path: str) -> Node | None:
    """The node read from ``path``: an adopted or store file first, else the code store's file node.

    A ``.mem`` file holds several declarations; its first one (by line) stands for the file, and
    each declaration's own address is listed in that node's edges and by search.
    """
    path = PurePosixPath(path).as_posix()
    from_stores = sorted(
        (n for n in nodes.values() if n.path == path and n.family != "code"), key=lambda n: (n.line or 0, n.address)
    )
    if from_stores:
        return from_stores[0]
    code = [n for n in nodes.values() if n.family == "code" and n.type == "file" and n.path == path]
    return code[0] if code else None


def _refuse_escape(workspace: Workspace, address: str) -> None:
    """A node the adapters refused because its file leaves the workspace is named as such, not as missing."""
    if address.startswith(_FILE):
        return
    store, source, ident = address.split(":", 2)
    candidates: list[Path] = []
    if store == "mem":
        candidates.append(workspace.memory_dir / "tree" / f"{ident}.md")
    elif store == "zk":
        candidates.append(workspace.zettelkasten_dir / source / "notes" / f"{ident}.md")
    elif store == "data":
        candidates.append(workspace.runs_dir / ident / "run.yaml")
    elif store == "repo":
        candidates.append(workspace.code_dir / ident)
    for candidate in candidates:
        if os.path.lexists(candidate):
            try:
                resolve_inside(workspace.root, candidate)
            except PathEscape:
                raise PathOutsideWorkspace(
                    f"{address} is a file that resolves outside the workspace", parameter="id"
                ) from None


def _output(node: Node) -> GetOutput:
    body = node.body if len(node.body) <= MAX_BODY_CHARS else node.body[:MAX_BODY_CHARS]
    tier = tier_of(node.family)
    where = f"{node.family}/{tier}" if tier else node.family
    return GetOutput(
        summary=f"{node.address}: {node.title} ({node.type}, {where}, {len(node.body)} characters)",
        address=node.address,
        store=node.address.split(":", 1)[0],
        family=node.family,
        tier=tier,
        type=node.type,
        title=node.title,
        body=body,
        truncated=len(body) < len(node.body),
        provenance=list(node.provenance),
        tethers=[
            TetherOut(kind=str(t.kind), target=t.target, ref=t.ref, quote=t.quote, project=t.project)
            for t in node.tethers
        ],
        edges=[EdgeOut(src=e.src, dst=e.dst, rel=e.rel) for e in node.edges],
        meta={str(k): _jsonable(v) for k, v in (node.meta or {}).items()},
        path=node.path,
        line=node.line,
    )


def _jsonable(value: Any) -> Any:
    """Front matter is YAML: dates and odd scalars become strings, containers stay containers."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return str(value)


SPEC = ActionSpec(
    params=GetParams,
    handler=handle,
    does="Read the full body and metadata of one node: a memory entry by id, or any canonical address "
    "(zk note, code file or symbol, run). Ground before quoting.",
    say=("show me deci-e17103e8", "read that note in full", "what exactly does that entry say"),
)
