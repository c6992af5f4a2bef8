"""matrix: the overlay as practice rows x canon columns, optionally rolled up into a synthesis.

Calls :func:`synapse_server.overlay.matrix.run_matrix`, as ``synapse matrix``
does, with the server's loaded stores. Roll-ups use the server's model (its
``--model``, else ``SYNAPSE_MODEL``, else the config); under ``extractive``
they are assembled from the overlay and say so. Read-only.
"""

from __future__ import annotations

from pydantic import Field

from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.actions.overlay_params import Kind, ScopedParams, check_known_projects, locked
from synapse_server.overlay.matrix import MatrixParams, MatrixResult, run_matrix
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores


class MatrixActionParams(ScopedParams):
    kind: Kind = Field("generic", description="which overlay: generic, or claim for the claim-aligned overlay")
    synthesize: bool = Field(False, description="add a roll-up per row and column and an apex synthesis")
    limit: int | None = Field(
        None, ge=1, le=100, description="heaviest rows shown, and columns those rows link to, each (1-100; omit: all)"
    )


def project(workspace: Workspace, stores: Stores, params: MatrixActionParams, model: str | None) -> MatrixResult:
    check_known_projects(workspace, stores, params.projects)
    wanted = MatrixParams(
        kind=params.kind, projects=params.projects, synthesize=params.synthesize, limit=params.limit, model=model
    )
    return run_matrix(workspace, stores, None, wanted)


async def handle(params: MatrixActionParams, deps: Deps) -> MatrixResult:
    return await locked(deps, lambda workspace, stores: project(workspace, stores, params, deps.settings.model))


SPEC = ActionSpec(
    params=MatrixActionParams,
    handler=handle,
    does="Project the overlay as a practice x canon matrix: memory entries as rows, zettelkasten notes as columns, "
    "typed edges as cells, heaviest first; contradicts cells show where practice and the literature disagree. "
    'synthesize=true adds row, column and apex roll-ups; kind="claim" uses the claim overlay.',
    say=("show the matrix", "practice vs canon", "where do we disagree with the literature"),
)
