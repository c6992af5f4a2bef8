"""One navigate turn, end to end: workspace -> substrate -> loop -> router -> public JSON.

This is the function the isolated worker calls. It validates the scope before
any model work, composes the stores, the index and the model, and always
returns a :class:`NavigateResult`: an answer, a labelled abstention, or a
guardrail abstention with ``reasons: []``. Operational failures (timeout,
crash) are produced by the parent, not here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from synapse_server.config import Workspace, load_workspace
from synapse_server.models import ModelError, ModelOptions, model_spec_from, resolve_model
from synapse_server.models.base import Model
from synapse_server.names import refuse_unknown_projects
from synapse_server.navigation.budgets import resolve_budgets
from synapse_server.navigation.loop import LoopOutcome, run_loop
from synapse_server.navigation.projector import IntegrityError, answer_surface, trace_surface
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.substrate import SeedHit, Substrate, assemble
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, Telemetry, failure_result
from synapse_server.navigation.timing import Timings, maybe
from synapse_server.navigation.view import MissingGap
from synapse_server.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder


def navigate_turn(
    workspace_root: Path,
    request: NavigateRequest,
    *,
    embedder: TextEncoder,
    stores: Stores | None = None,
    model: Model | None = None,
    env: Mapping[str, str] | None = None,
    timings: Timings | None = None,
    voi: str = "minimal",
    lean: bool = True,
) -> NavigateResult:
    """One turn; ``voi`` picks the advisory focus policy (``minimal`` in production, others for sweeps).

    ``lean=False`` assembles and renders the envelope the earlier way (every seed, round-robin by
    rank, duplicate bodies repeated); only the benchmark uses it, to measure both in one run.
    """
    workspace = load_workspace(workspace_root)
    projects = _projects(workspace, request.projects)
    stores = stores or Stores.load(workspace)
    if model is None:
        spec = model_spec_from(workspace.config.model, env if env is not None else os.environ, request.model)
        limit = workspace.config.navigate.timeout_s
        # Every call of the turn (repair, re-navigation, HTTP retries) shares the turn's own time budget.
        options = ModelOptions(timeout_s=limit, deadline=time.monotonic() + limit)
        model = resolve_model(spec, cwd=workspace.root, options=options)
    budgets = resolve_budgets(request.budgets(), workspace.config.navigate)
    scoped = stores.scoped(projects)
    substrate = Substrate.build(scoped, stores.resolvers, timings)
    with maybe(timings, "assembly"):
        index = stores.open_index(embedder)
        try:

            def search(question: str, limit: int, family: str) -> list[SeedHit]:
                hits = index.search(question, limit, families=[family], projects=projects if family == "zk" else None)
                return [SeedHit(h.address, h.score) for h in hits if h.address in scoped]

            failures = [MissingGap(f.address, f.detail) for f in stores.failures]
            view = assemble(request.question, substrate, search, budgets, failures, lean=lean)
        finally:
            index.close()
    info = ModelInfo(provider=model.identity.provider, id=model.identity.id)
    try:
        outcome = run_loop(request.question, view, substrate, model, budgets, voi=voi)
    except ModelError as error:
        return failure_result("internal-error", f"the model provider failed: {error.kind}", info)
    with maybe(timings, "project"):
        return project(outcome, info)


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


def _projects(workspace: Workspace, requested: list[str] | None) -> list[str]:
    projects = workspace.scoped_projects(requested)
    known = set(workspace.local_projects()) | {
        f"{alias}.{p.name}"
        for alias, root in workspace.federation_dirs.items()
        if root.is_dir()
        for p in root.iterdir()
        if p.is_dir()
    }
    refuse_unknown_projects(projects, known)
    return projects
