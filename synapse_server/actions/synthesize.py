"""synthesize: grounded, verified briefs for the claim overlay's high-value practice-claim cells.

Calls :func:`synapse_server.overlay.briefs.run_synthesize`, as
``synapse synthesize`` does. Each brief cites the memory id, quotes only
retrieved quotes and carries the traceability verifier's verdict; a brief that
fails is flagged, never rewritten. Only the claim overlay is briefed, so
``kind`` accepts ``claim`` alone: a caller asking for the generic overlay gets
an error naming the parameter rather than briefs of another kind. Read-only.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.actions.overlay_params import ScopedParams, check_known_projects, locked
from synapse_server.overlay.briefs import HIGH_CONFIDENCE, SynthesizeParams, SynthesizeResult, run_synthesize
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores


class SynthesizeActionParams(ScopedParams):
    kind: Literal["claim"] = Field("claim", description="briefs read the claim-aligned overlay only")
    min_confidence: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description=f"typer confidence at which a strong claim's cell is high-value (0-1; default {HIGH_CONFIDENCE})",
    )
    limit: int | None = Field(None, ge=1, le=100, description="most briefs to write (1-100; default 10)")


def synthesize(
    workspace: Workspace, stores: Stores, params: SynthesizeActionParams, model: str | None
) -> SynthesizeResult:
    check_known_projects(workspace, stores, params.projects)
    wanted = SynthesizeParams(
        projects=params.projects, min_confidence=params.min_confidence, limit=params.limit, model=model
    )
    return run_synthesize(workspace, stores, None, wanted)


async def handle(params: SynthesizeActionParams, deps: Deps) -> SynthesizeResult:
    return await locked(deps, lambda workspace, stores: synthesize(workspace, stores, params, deps.settings.model))


SPEC = ActionSpec(
    params=SynthesizeActionParams,
    handler=handle,
    does="Write grounded one-to-three-sentence briefs for the claim overlay's high-value cells (a strong claim met "
    "by a confident relation, or any contradiction): each cites the memory id, quotes only retrieved verbatim "
    "quotes, and says verified true/false from a traceability check (not a meaning check). Needs the claim overlay "
    '(build kind="claim").',
    say=("synthesize the cells", "ground the practice–claim briefs"),
)
