"""Overlays for tests: a typed link between two demo nodes, and an overlay signed over the stores as they are."""

from __future__ import annotations

from pathlib import Path

from synapse_server.overlay.model import Link, Overlay, OverlayKind
from synapse_server.overlay.signature import overlay_signature, signature_nodes
from synapse_server.overlay.store import embedding_identity
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores

DECISION = "mem:tree:deci-e17103e8"
CLAIM = "zk:research:20260407-1030-costs-reduce-returns"
FINDING = "zk:execution:20260502-1015-april-total-cost"


def link(practice: str, canon: str, confidence: float = 0.9) -> Link:
    return Link(
        practice=practice,
        canon=canon,
        relation="applies",
        confidence=confidence,
        rationale="shared path",
        typer="extractive-v1",
        channels=["provenance"],
        shared_paths=["models/costs.py"],
    )


def signed(root: Path, kind: OverlayKind = "generic", links: list[Link] | None = None) -> Overlay:
    """An overlay signed over the stores as they are now (what a build would stamp)."""
    ws = load_workspace(root)
    projects = ws.scoped_projects()
    nodes = signature_nodes(Stores.load(ws, ("memory", "zk")).nodes, projects)
    signature = overlay_signature(kind, projects, "extractive-v1", embedding_identity(ws), nodes)
    return Overlay(
        kind=kind,
        signature=signature,
        typer="extractive-v1",
        projects=sorted(projects),
        embedding=embedding_identity(ws),
        min_confidence=0.5,
        links=links if links is not None else [link(DECISION, FINDING), link(DECISION, CLAIM)],
    )
