"""navigate under ``model: host``: the MCP host's own model writes the MemDSL, one tool call per step.

A question starts a turn: the worker runs the loop until it needs the model,
and the call returns a :class:`PendingTurnOutput` - the prompt, a signed
token, the budgets left. The host model answers with ``turn`` and ``reply``;
the server checks the token (signature, expiry, record digest), marks the
step used, and the worker replays the loop from the start over every reply
so far plus the new one (:mod:`synapse_server.models.host`). The result is
the standard navigate verdict, or the next pending step (the actions' nodes,
a parse repair, a re-navigation), within the same budgets as any model.

Nothing of the turn is kept in memory between calls (:mod:`synapse_server.host_turns`).
When the evidence changed between two steps (a store was edited), the replay
notices, and the call starts the turn again on the current evidence and says
so (``restarted``); an answer is never built on an envelope the host did not read.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

import anyio
from pydantic import BaseModel, ConfigDict, Field

from synapse_server.actions.base import ActionOutput
from synapse_server.actions.navigate_output import NavigateOutput, shelved
from synapse_server.context.caller import current_client
from synapse_server.context.progress import current_reporter
from synapse_server.errors import InvalidInput
from synapse_server.host_turns.record import TurnRecord, TurnRecords
from synapse_server.host_turns.token import StepClaims, sign, verify
from synapse_server.models.host import HostTranscript
from synapse_server.navigation.pending import PendingStep, StaleStep
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, failure_result

if TYPE_CHECKING:
    from synapse_server.actions.deps import Deps
    from synapse_server.actions.navigate import NavigateParams
    from synapse_server.workspace.config import Workspace

PROVIDER = "host"
RULES_AGAIN = "(The navigator rules are those of step 1 of this turn; they have not changed.)\n"


class PendingBudget(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens_spent: int = Field(..., description="estimated tokens of the prompts and replies so far")
    tokens_left: int = Field(..., description="what the turn may still spend, replies included")
    hops_left: int = Field(..., description="expand/join rounds left")
    expires_in_s: int = Field(..., description="seconds before this step's token expires")


class PendingTurnOutput(ActionOutput):
    """A turn waiting for the host model: read ``prompt`` as the navigator, then reply with ``turn``."""

    verdict: Literal["pending"] = "pending"
    turn: str = Field(..., description="pass back as turn= with your reply")
    step: int = Field(..., description="which reply this is (1 = the first)")
    prompt: str = Field(..., description="what the navigator must read: the rules, the question and the evidence")
    budget: PendingBudget
    model: ModelInfo
    restarted: str | None = Field(None, description="why the turn started again (the evidence changed)")


async def start_turn(
    request: NavigateRequest, deps: Deps, workspace: Workspace, *, restarted: str | None = None
) -> BaseModel:
    """Run the turn to its first model call and hand the prompt to the host."""
    records = _records(workspace)
    await anyio.to_thread.run_sync(records.prune, abandon_on_cancel=True)
    client = current_client()
    step = await _step(deps, workspace, request, HostTranscript(client=client))
    if not isinstance(step, PendingStep):  # a guardrail stop before any model call, or an operational failure
        return _final(step, deps, ModelInfo(provider=PROVIDER, id=client or "unknown client"))
    record = TurnRecord(request=request, client=client, digests=[step.digest])
    turn = await anyio.to_thread.run_sync(records.create, record, abandon_on_cancel=True)
    return _pending(step, turn, record, deps, workspace, restarted=restarted, rules=True)


async def continue_turn(params: NavigateParams, deps: Deps) -> BaseModel:
    """Check the token, spend its step, replay the turn with the host's reply, and return what follows."""
    token, reply = _continuation(params)
    claims = verify(token, deps.turn_secret, time.time())
    workspace = await anyio.to_thread.run_sync(deps.workspace, abandon_on_cancel=True)
    records = _records(workspace)
    # spent first: of two racing calls with one token exactly one gets past here, and a replay of an
    # answered step is told so even after its turn finished
    await anyio.to_thread.run_sync(records.claim, claims.turn, claims.step, abandon_on_cancel=True)
    record = await anyio.to_thread.run_sync(records.load, claims.turn, claims.record, abandon_on_cancel=True)
    step = await _step(deps, workspace, record.request, record.transcript(reply))
    if isinstance(step, StaleStep):
        await anyio.to_thread.run_sync(records.finish, claims.turn, abandon_on_cancel=True)
        why = (
            f"the evidence changed since step {step.step} was shown (a store was edited), so the turn started "
            "again on the current evidence; answer this prompt instead"
        )
        return await start_turn(record.request, deps, workspace, restarted=why)
    if isinstance(step, PendingStep):
        advanced = record.answered(reply, step.digest)
        await anyio.to_thread.run_sync(records.save, claims.turn, advanced, abandon_on_cancel=True)
        return _pending(step, claims.turn, advanced, deps, workspace, restarted=None, rules=False)
    await anyio.to_thread.run_sync(records.finish, claims.turn, abandon_on_cancel=True)
    return _final(step, deps, ModelInfo(provider=PROVIDER, id=record.client or "unknown client"), claims.turn)


def _continuation(params: NavigateParams) -> tuple[str, str]:
    if params.turn is None:
        raise InvalidInput("reply needs turn: the token of the pending turn it answers", parameter="turn")
    if params.reply is None:
        raise InvalidInput("turn needs reply: your @memdsl.out/2 artifact for its prompt", parameter="reply")
    extra = sorted(name for name in params.model_fields_set if name not in {"turn", "reply"})
    if extra:
        raise InvalidInput(
            f"{extra[0]} does not apply when continuing a turn: the question, scope and budgets are the turn's own",
            parameter=extra[0],
        )
    return params.turn, params.reply


async def _step(
    deps: Deps, workspace: Workspace, request: NavigateRequest, host: HostTranscript
) -> NavigateResult | PendingStep | StaleStep:
    settings = workspace.config.navigate
    info = ModelInfo(provider=PROVIDER, id=host.client or "unknown client")
    return await deps.runner.run_host_step(
        request,
        host,
        timeout_s=settings.timeout_s,
        model=info,
        max_concurrent=settings.max_concurrent,
        progress=current_reporter(),
    )


def _pending(
    step: PendingStep,
    turn: str,
    record: TurnRecord,
    deps: Deps,
    workspace: Workspace,
    *,
    restarted: str | None,
    rules: bool,
) -> PendingTurnOutput:
    ttl = workspace.config.navigate.turn_ttl_s
    claims = StepClaims(
        turn=turn,
        step=step.step,
        expires=int(time.time()) + ttl,
        tokens_spent=step.tokens_spent,
        prompt=step.digest,
        record=record.digest(),
    )
    prompt = (step.system if rules else RULES_AGAIN) + step.prompt
    summary = (
        f"pending (step {step.step}): you are the navigator - read prompt, then call "
        'synapse(action="navigate", turn=<this turn>, reply=<your @memdsl.out/2 artifact>); '
        "the engine checks every claim and decides the verdict"
    )
    if restarted:
        summary = f"restarted: {restarted}. " + summary
    return PendingTurnOutput(
        summary=summary,
        turn=sign(claims, deps.turn_secret),
        step=step.step,
        prompt=prompt,
        budget=PendingBudget(
            tokens_spent=step.tokens_spent, tokens_left=step.tokens_left, hops_left=step.hops_left, expires_in_s=ttl
        ),
        model=step.model,
        restarted=restarted,
    )


def _final(
    step: NavigateResult | StaleStep | PendingStep, deps: Deps, model: ModelInfo, turn: str | None = None
) -> NavigateOutput:
    if isinstance(step, NavigateResult):
        return shelved(step, deps, turn)
    return shelved(failure_result("internal-error", "the host turn could not be started", model), deps)


def _records(workspace: Workspace) -> TurnRecords:
    return TurnRecords(workspace.cache_dir, workspace.config.navigate.turn_ttl_s)
