"""frame: a research question split into facets, each established, contested or thin across both stores.

Calls :func:`synapse_server.overlay.frame.run_frame`, as ``synapse frame``
does, with the server's open index (the embedding model loads on first use,
as for search). Facets come from the server's model, or a deterministic split
under ``extractive``. Read-only apart from the derived index cache.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from synapse_server.actions.base import ActionSpec, check_text
from synapse_server.actions.deps import Deps
from synapse_server.actions.overlay_params import ScopedParams, check_known_projects, locked
from synapse_server.overlay.frame import DEFAULT_HITS, FrameParams, FrameResult, run_frame
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

MAX_QUESTION_CHARS = 2000


class FrameActionParams(ScopedParams):
    question: str = Field(
        ..., min_length=1, max_length=MAX_QUESTION_CHARS, description="the research question to frame"
    )
    limit: int | None = Field(
        None, ge=1, le=50, description=f"search hits examined per facet (1-50; default {DEFAULT_HITS})"
    )

    @field_validator("question")
    @classmethod
    def _question_is_text(cls, value: str) -> str:
        return check_text(value, "question")


def frame(deps: Deps, workspace: Workspace, stores: Stores, params: FrameActionParams) -> FrameResult:
    check_known_projects(workspace, stores, params.projects)
    wanted = FrameParams(
        question=params.question, projects=params.projects, limit=params.limit, model=deps.settings.model
    )
    return run_frame(workspace, stores, deps.embedder, wanted, index=deps.index())


async def handle(params: FrameActionParams, deps: Deps) -> FrameResult:
    return await locked(deps, lambda workspace, stores: frame(deps, workspace, stores, params), index=True)


SPEC = ActionSpec(
    params=FrameActionParams,
    handler=handle,
    does="Frame a research question into facets and characterise each across memory and the zettelkasten as "
    "established, contested or thin, with the hits that make it so.",
    say=("frame this across both", "map the landscape (practice + canon)"),
)
