"""The matrix lens: the overlay projected as practice rows x canon columns, optionally rolled up.

The overlay is a bipartite edge set, so a matrix is its natural reading
surface: memory entries (practice) as rows, zettelkasten notes (canon) as
columns, each typed edge as a cell with its relation, confidence and priority.
Rows and columns are ordered by weight (the sum of their cells' priorities,
confidence where an edge has no priority), heaviest first, then by address.

``synthesize`` adds a roll-up for every shown row and column and an apex
synthesis. With an LLM configured each is the model's text; under
``extractive`` they are assembled only from the overlay itself (counts per
relation and the titles involved) and say so, never imitating a model.
Read-only: nothing is written anywhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from adapters.base import Node
from synapse_server.models import Model, ModelBadResponse
from synapse_server.overlay.lens import (
    EXTRACTIVE,
    MAX_PROJECTS,
    LensResult,
    ModelInfo,
    OverlayInfo,
    ProjectScope,
    first_sentence,
    lens_model,
    negative_is_default,
    open_overlay,
    scope_of,
    store_of,
    tier_of,
)
from synapse_server.overlay.model import RELATIONS, Basis, Link, Overlay, OverlayKind, Relation
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

__all__ = [
    "Matrix",
    "MatrixAxis",
    "MatrixCell",
    "MatrixParams",
    "MatrixResult",
    "MatrixSynthesis",
    "RollUp",
    "project_matrix",
]

ROLLUP_MAX_TOKENS = 220
ROLLUP_LINKS = 8
"""Links named in an extractive roll-up before "and N more"."""
APEX_MAX_TOKENS = 400
_SYSTEM = (
    "You summarise how a software project's practice (its memory of decisions and experiments) relates to the "
    "research literature (canon notes). Use only the material given. Never introduce a figure that is not in it."
)


class MatrixParams(BaseModel):
    """What ``matrix`` takes; ``model`` is a server/CLI setting, never a public tool parameter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: OverlayKind = Field("generic", description="generic overlay or the claim-aligned overlay")
    projects: ProjectScope = Field(
        None, max_length=MAX_PROJECTS, description="zk projects in scope; None = config scope, [] = memory only"
    )
    synthesize: bool = Field(False, description="add row, column and apex roll-ups")
    limit: int | None = Field(None, ge=1, le=1000, description="rows and columns shown, each; negative = all")
    model: str | None = Field(None, description="model spec for roll-ups (hidden from the tool)")

    _limit = field_validator("limit", mode="before")(negative_is_default)


class MatrixCell(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    practice: str
    canon: str
    relation: Relation
    confidence: float
    priority: float = Field(description="the claim overlay's blended priority; the confidence for a generic edge")
    claim_strength: Literal["strong", "moderate", "weak"] | None = None
    rationale: str
    channels: list[str]
    basis: Basis = Field(description="judged (read by a model), cosine, or shared-file (tied to the same file only)")


class MatrixAxis(BaseModel):
    """One row (practice) or column (canon) with what its cells add up to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str
    title: str | None = Field(description="None when the node is gone from the store (the overlay has drifted)")
    type: str | None
    store: Literal["memory", "zk"]
    tier: Literal["practice", "canon"]
    cells: int
    relations: dict[str, int]
    weight: float


class RollUp(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str
    text: str


class MatrixSynthesis(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["model", "extractive"]
    model: ModelInfo
    rows: list[RollUp]
    columns: list[RollUp]
    apex: str
    note: str


class MatrixResult(LensResult):
    kind: OverlayKind
    overlay: OverlayInfo
    projects: list[str]
    rows: list[MatrixAxis]
    columns: list[MatrixAxis]
    cells: list[MatrixCell]
    hidden_rows: int = Field(0, description="rows left out by limit")
    hidden_columns: int = Field(0, description="columns left out by limit")
    synthesis: MatrixSynthesis | None = None


def run_matrix(
    workspace: Workspace,
    stores: Stores,
    embedder: TextEncoder | None,
    params: MatrixParams,
    *,
    model: Model | None = None,
) -> MatrixResult:
    """Project the overlay of ``params.kind`` as a matrix; roll it up when ``params.synthesize``.

    ``embedder`` is unused (the matrix reads only the overlay); it keeps every lens's signature alike.
    """
    projects = scope_of(workspace, params.projects)
    state, info = open_overlay(workspace, stores, params.kind)
    if state.overlay is None:
        return MatrixResult(
            summary=f"no {params.kind} matrix: {info.detail}",
            kind=params.kind,
            overlay=info,
            projects=projects,
            rows=[],
            columns=[],
            cells=[],
        )
    matrix = project_matrix(state.overlay, stores.nodes, projects)
    shown_rows, shown_columns, cells = matrix.window(params.limit)
    synthesis = None
    if params.synthesize:
        chosen = lens_model(workspace, params.model, model)
        synthesis = (
            extractive_synthesis(matrix, shown_rows, shown_columns)
            if chosen is None
            else model_synthesis(matrix, shown_rows, shown_columns, stores.nodes, chosen)
        )
    drift = "" if info.drift == "fresh" else f" (overlay {info.drift})"
    summary = (
        f"{params.kind} matrix: {len(shown_rows)} practice rows x {len(shown_columns)} canon columns, "
        f"{len(cells)} cells{drift}"
    )
    return MatrixResult(
        summary=summary,
        kind=params.kind,
        overlay=info,
        projects=projects,
        rows=shown_rows,
        columns=shown_columns,
        cells=cells,
        hidden_rows=len(matrix.rows) - len(shown_rows),
        hidden_columns=len(matrix.columns) - len(shown_columns),
        synthesis=synthesis,
    )


@dataclass(frozen=True)
class Matrix:
    """The whole projection in scope, before any limit: rows and columns heaviest first, cells by priority."""

    rows: list[MatrixAxis]
    columns: list[MatrixAxis]
    cells: list[MatrixCell]

    def window(self, limit: int | None) -> tuple[list[MatrixAxis], list[MatrixAxis], list[MatrixCell]]:
        """The heaviest ``limit`` rows, the heaviest ``limit`` columns they link to, and the cells between them.

        Columns follow the shown rows so a limited matrix is never an empty cross of unrelated axes.
        """
        if limit is None:
            return self.rows, self.columns, self.cells
        rows = self.rows[:limit]
        shown = {axis.address for axis in rows}
        linked = {cell.canon for cell in self.cells if cell.practice in shown}
        columns = [axis for axis in self.columns if axis.address in linked][:limit]
        kept = {axis.address for axis in columns}
        return rows, columns, [c for c in self.cells if c.practice in shown and c.canon in kept]


def project_matrix(overlay: Overlay, nodes: Mapping[str, Node], projects: Sequence[str] | None = None) -> Matrix:
    """Rows, columns and cells of ``overlay``, limited to canon in ``projects`` (None = every project)."""
    links = [link for link in overlay.links if projects is None or link.canon.split(":", 2)[1] in projects]
    cells = sorted((_cell(link) for link in links), key=lambda c: (-c.priority, c.practice, c.canon))
    return Matrix(_axes(cells, "practice", nodes), _axes(cells, "canon", nodes), cells)


def _cell(link: Link) -> MatrixCell:
    return MatrixCell(
        practice=link.practice,
        canon=link.canon,
        relation=link.relation,
        confidence=link.confidence,
        priority=link.priority if link.priority is not None else link.confidence,
        claim_strength=link.claim_strength,
        rationale=link.rationale,
        channels=list(link.channels),
        basis=link.evidence(),
    )


def _axes(
    cells: Sequence[MatrixCell], end: Literal["practice", "canon"], nodes: Mapping[str, Node]
) -> list[MatrixAxis]:
    grouped: dict[str, list[MatrixCell]] = {}
    for cell in cells:
        grouped.setdefault(getattr(cell, end), []).append(cell)
    axes = []
    for address, group in grouped.items():
        node = nodes.get(address)
        counts = Counter(cell.relation for cell in group)
        axes.append(
            MatrixAxis(
                address=address,
                title=node.title if node else None,
                type=node.type if node else None,
                store=store_of(address),
                tier=tier_of(store_of(address)),
                cells=len(group),
                relations={relation: counts[relation] for relation in RELATIONS if counts[relation]},
                weight=round(sum(cell.priority for cell in group), 6),
            )
        )
    return sorted(axes, key=lambda axis: (-axis.weight, axis.address))


# --- roll-ups --------------------------------------------------------------------------------------------------------


def _counts(relations: Mapping[str, int]) -> str:
    return ", ".join(f"{count} {relation}" for relation, count in relations.items())


def extractive_synthesis(matrix: Matrix, rows: Sequence[MatrixAxis], columns: Sequence[MatrixAxis]) -> MatrixSynthesis:
    """Roll-ups assembled only from the overlay: counts per relation and the titles involved, no model.

    A roll-up covers every link of its row or column in scope, shown or not; the apex covers the whole matrix.
    """
    names = {axis.address: axis.title or axis.address for axis in (*matrix.rows, *matrix.columns)}

    def rollup(axis: MatrixAxis) -> RollUp:
        other = "canon" if axis.tier == "practice" else "practice"
        own = [c for c in matrix.cells if getattr(c, axis.tier) == axis.address]
        linked = "; ".join(f"{names[getattr(c, other)]} ({c.relation})" for c in own[:ROLLUP_LINKS])
        if len(own) > ROLLUP_LINKS:
            linked += f"; and {len(own) - ROLLUP_LINKS} more"
        where = "canon notes" if other == "canon" else "practice entries"
        text = f"{names[axis.address]}: {axis.cells} link(s) to {where} ({_counts(axis.relations)}). Linked: {linked}."
        return RollUp(address=axis.address, text=text)

    cells = matrix.cells
    totals = Counter(cell.relation for cell in cells)
    apex = f"{len(matrix.rows)} practice entries x {len(matrix.columns)} canon notes, {len(cells)} typed edges"
    apex += f" ({_counts({r: totals[r] for r in RELATIONS if totals[r]})})." if cells else "."
    tensions = [c for c in cells if c.relation == "contradicts"]
    if tensions:
        apex += " Tensions: " + "; ".join(f"{names[c.practice]} contradicts {names[c.canon]}" for c in tensions) + "."
    agreeing = [c for c in cells if c.relation in ("corroborates", "applies", "instantiates")]
    if agreeing:
        top = agreeing[0]
        apex += f" Strongest agreement: {names[top.practice]} {top.relation} {names[top.canon]}."
    return MatrixSynthesis(
        mode="extractive",
        model=EXTRACTIVE,
        rows=[rollup(axis) for axis in rows],
        columns=[rollup(axis) for axis in columns],
        apex=apex,
        note="extractive roll-ups: assembled from the overlay's edges and titles; no model wrote them",
    )


def model_synthesis(
    matrix: Matrix,
    rows: Sequence[MatrixAxis],
    columns: Sequence[MatrixAxis],
    nodes: Mapping[str, Node],
    model: Model,
) -> MatrixSynthesis:
    """One model call per shown row and column (over all its links), then one apex call over those roll-ups."""
    rollups = [
        RollUp(address=a.address, text=_ask(model, _axis_prompt(a, matrix.cells, nodes), ROLLUP_MAX_TOKENS))
        for a in (*rows, *columns)
    ]
    row_rollups, column_rollups = rollups[: len(rows)], rollups[len(rows) :]
    lines = ["Row roll-ups (practice):", *(f"- {r.text}" for r in row_rollups), "Column roll-ups (canon):"]
    lines += [f"- {c.text}" for c in column_rollups]
    lines.append("Write an apex synthesis of three to five sentences: where practice and canon agree and disagree.")
    apex = _ask(model, "\n".join(lines), APEX_MAX_TOKENS)
    return MatrixSynthesis(
        mode="model",
        model=ModelInfo(provider=model.identity.provider, id=model.identity.id),
        rows=row_rollups,
        columns=column_rollups,
        apex=apex,
        note="model roll-ups: written by the model from the overlay's cells; not verified",
    )


def _axis_prompt(axis: MatrixAxis, cells: Sequence[MatrixCell], nodes: Mapping[str, Node]) -> str:
    own = [c for c in cells if getattr(c, axis.tier) == axis.address]
    lines = [f"{axis.tier.upper()} {axis.address}: {_describe(axis.address, nodes)}", "LINKS:"]
    for cell in own:
        other = cell.canon if axis.tier == "practice" else cell.practice
        lines.append(f"- {cell.relation} ({cell.confidence:.2f}) {other}: {_describe(other, nodes)} | {cell.rationale}")
    lines.append("Summarise in one or two sentences how this entry relates across the links above.")
    return "\n".join(lines)


def _describe(address: str, nodes: Mapping[str, Node]) -> str:
    node = nodes.get(address)
    return "(no longer in the store)" if node is None else f"{node.title} - {first_sentence(node.body)}"


def _ask(model: Model, prompt: str, max_tokens: int) -> str:
    text = model.complete(prompt, system=_SYSTEM, max_tokens=max_tokens).text.strip()
    if not text:
        raise ModelBadResponse("the model returned an empty roll-up", provider=model.identity.provider)
    return text
