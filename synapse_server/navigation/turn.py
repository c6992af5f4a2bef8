"""One navigate turn over values: the loop, the router and the public JSON.

The engine floor is pure: it never reads a config, a store or an index. The
I/O edge (:mod:`synapse_server.isolation.turn`) loads the workspace, assembles
the substrate and the seeded view, resolves the model, and hands them here.
The result is always a :class:`NavigateResult`: an answer, a labelled
abstention, or a guardrail abstention with ``reasons: []``. Operational
failures (timeout, crash) are produced by the parent, not here.
"""

from __future__ import annotations

from synapse_server.models.base import Model
from synapse_server.models.errors import ModelError
from synapse_server.models.host import StaleTurn
from synapse_server.navigation.budgets import Budgets
from synapse_server.navigation.loop import LoopOutcome, run_loop
from synapse_server.navigation.pending import PendingStep, StaleStep
from synapse_server.navigation.projector import IntegrityError, answer_surface, trace_surface
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, Telemetry, failure_result
from synapse_server.navigation.timing import Timings, maybe
from synapse_server.navigation.view import View

__all__ = ["guardrail_result", "project", "run_host_turn", "run_turn"]

HOST_ELSEWHERE = (
    "the host model answers only through an MCP host's navigate calls (synapse serve); "
    "here use --model extractive or another provider"
)


def run_turn(
    question: str,
    view: View,
    substrate: Substrate,
    model: Model,
    budgets: Budgets,
    *,
    voi: str = "minimal",
    timings: Timings | None = None,
) -> NavigateResult:
    """The loop over an assembled view, projected; ``voi`` picks the advisory focus policy."""
    result = run_host_turn(question, view, substrate, model, budgets, voi=voi, timings=timings)
    if isinstance(result, NavigateResult):
        return result
    info = ModelInfo(provider=model.identity.provider, id=model.identity.id)
    return failure_result("internal-error", HOST_ELSEWHERE, info)


def run_host_turn(
    question: str,
    view: View,
    substrate: Substrate,
    model: Model,
    budgets: Budgets,
    *,
    voi: str = "minimal",
    timings: Timings | None = None,
) -> NavigateResult | PendingStep | StaleStep:
    """:func:`run_turn` for a model that may suspend the turn (``host``): a verdict, or where it stopped."""
    info = ModelInfo(provider=model.identity.provider, id=model.identity.id)
    try:
        outcome = run_loop(question, view, substrate, model, budgets, voi=voi)
    except ModelError as error:
        return failure_result("internal-error", f"the model provider failed: {error.kind}", info)
    except StaleTurn as stale:
        return StaleStep(step=stale.step)
    if outcome.pending is not None:
        return _pending(outcome, budgets, info)
    with maybe(timings, "project"):
        return project(outcome, info)


def _pending(outcome: LoopOutcome, budgets: Budgets, info: ModelInfo) -> PendingStep:
    pending = outcome.pending
    assert pending is not None
    return PendingStep(
        step=pending.step,
        system=pending.prompt.system or "",
        prompt=pending.prompt.text,
        digest=pending.digest,
        tokens_spent=outcome.tokens_spent,
        tokens_left=max(0, budgets.token_budget - outcome.tokens_spent),
        hops_left=outcome.hops_left,
        envelope=outcome.envelopes[-1] if outcome.envelopes else "",
        model=info,
    )


def project(outcome: LoopOutcome, model: ModelInfo) -> NavigateResult:
    """The public JSON of a finished loop; any integrity disagreement becomes an abstention."""
    telemetry = Telemetry(
        hops=outcome.hops,
        renavigations=outcome.renavigations,
        parse_repairs=outcome.parse_repairs,
        tokens_spent=outcome.tokens_spent,
        loop_break=outcome.loop_break,
    )
    envelope = outcome.envelopes[-1] if outcome.envelopes else ""
    common = {
        "envelope": envelope,
        "hops": outcome.hops,
        "renavigations": outcome.renavigations,
        "tokens_spent": outcome.tokens_spent,
        "loop_break": outcome.loop_break,
        "model": model,
    }
    decision = outcome.decision
    if decision is None:
        return guardrail_result(outcome.halted_reason, outcome.detail, **common)
    try:
        trace = trace_surface(decision, outcome.view, telemetry)
    except IntegrityError:
        trace = None
    if decision.verdict == "abstain":
        return NavigateResult(
            verdict="abstain",
            status=None,
            reasons=list(decision.reasons),
            halted_reason="abstain",
            conclusion=decision.conclusion,
            outdated=False,
            detail=decision.detail,
            answer_surface=None,
            trace_surface=trace,
            **common,
        )
    assert outcome.output is not None and decision.conclusion is not None
    closure = outcome.output.terminal.closure(decision.conclusion)  # type: ignore[union-attr]
    try:
        surface = answer_surface(decision, outcome.view, closure)
    except IntegrityError as error:
        return guardrail_result("answer-surface-invalid", f"the answer failed its integrity check: {error}", **common)
    return NavigateResult(
        verdict="answer",
        status=decision.status,
        reasons=[],
        halted_reason="answer",
        conclusion=decision.conclusion,
        outdated=decision.outdated,
        superseded=surface.superseded,
        detail=decision.detail,
        answer_surface=surface,
        trace_surface=trace,
        **common,
    )


def guardrail_result(halted_reason: str, detail: str, **common: object) -> NavigateResult:
    """An abstention with no canonical reason: a guardrail, not the evidence, stopped the turn."""
    return NavigateResult.model_validate(
        {
            "verdict": "abstain",
            "status": None,
            "reasons": [],
            "halted_reason": halted_reason,
            "conclusion": None,
            "outdated": False,
            "detail": detail,
            "answer_surface": None,
            "trace_surface": None,
            **common,
        }
    )
