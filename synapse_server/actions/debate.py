"""debate: each scoped project's debate map with practice contradictions folded in as counter-evidence.

Calls :func:`synapse_server.overlay.debate_view.run_debate`, as
``synapse debate`` does: a memory entry the claim overlay types as
contradicting a canon claim joins that claim's counter-evidence with origin
``practice``, beside the literature's. Read-only.
"""

from __future__ import annotations

from pydantic import Field

from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.actions.overlay_params import Kind, ScopedParams, check_known_projects, locked
from synapse_server.overlay.debate_view import DebateParams, DebateResult, run_debate
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores


class DebateActionParams(ScopedParams):
    kind: Kind = Field("claim", description="the overlay whose contradicts edges are folded in (default claim)")


def debate(workspace: Workspace, stores: Stores, params: DebateActionParams) -> DebateResult:
    check_known_projects(workspace, stores, params.projects)
    return run_debate(workspace, stores, None, DebateParams(kind=params.kind, projects=params.projects))


async def handle(params: DebateActionParams, deps: Deps) -> DebateResult:
    return await locked(deps, lambda workspace, stores: debate(workspace, stores, params))


SPEC = ActionSpec(
    params=DebateActionParams,
    handler=handle,
    does="Show each project's debate map (claims the literature contests, with their counter-evidence) with the "
    "claim overlay's practice -> canon contradictions folded in as counter-evidence of origin practice, so a claim "
    "practice contradicts shows as contested.",
    say=("does practice contradict the literature", "debate map with practice"),
)
