"""A navigate turn suspended for the host model's reply: what the engine hands its MCP edge.

Under ``model: host`` the loop stops wherever it needs a reply
(:class:`~synapse_server.models.host.ReplyPending`) and the turn ends with a
:class:`PendingStep` instead of a verdict: the prompt to show the host, the
step it is at, what it has spent, and the digest the next call's replay must
meet again. A replay that met different evidence ends with a
:class:`StaleStep` instead. Neither carries a verdict, so neither can ever be
mistaken for an answer; the edge turns them into a pending turn with a
signed token (:mod:`synapse_server.host_turns`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from synapse_server.navigation.surfaces import ModelInfo


class PendingStep(BaseModel):
    """The prompt the host model must answer for step ``step`` (1 = the first reply) to go on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int = Field(..., ge=1)
    system: str = Field(..., description="the fixed navigator instructions (the same at every step)")
    prompt: str = Field(..., description="this step's own part: the question, the envelope, any feedback")
    digest: str = Field(..., description="what the replay of the next call must meet again (see models.host)")
    tokens_spent: int = Field(..., ge=0)
    tokens_left: int = Field(..., ge=0)
    hops_left: int = Field(..., ge=0)
    envelope: str = Field(..., description="the rendered envelope in this prompt (for the resource link)")
    model: ModelInfo


class StaleStep(BaseModel):
    """Step ``step``'s recorded reply answered a prompt this workspace no longer produces."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int = Field(..., ge=1)
