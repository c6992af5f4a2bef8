"""Run one canonical case the way the product runs a turn, and record what came back.

Ordinary cases call :func:`navigate_turn` in process with the case's scripted
navigator and the workbench's shared stores and embedder. Isolation cases go
through the real worker pool (a fresh process per turn, its own process
group) with one of the test suite's fault-injection jobs (tests/support/worker_jobs.py), the
only way to produce a genuine timeout or native crash on demand. A request the
public validator refuses is recorded as ``rejected``; a case whose script
cannot be filled (retrieval moved under it) is recorded as ``error``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from dev.synapse_bench.canonical.cases import Case
from dev.synapse_bench.canonical.scripted import ScriptedNavigator, TemplateError
from dev.synapse_bench.canonical.workspaces import Workbench
from synapse_server.isolation.turn import navigate_turn
from synapse_server.models.base import Model
from synapse_server.navigation.prompt import sections
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult

log = logging.getLogger(__name__)
_REPAIR_CODE = re.compile(r"\[([a-z0-9_]+\.[a-z0-9_]+)\]")
Turn = Callable[..., NavigateResult]
"""``navigate_turn``'s signature: (root, request, *, embedder, stores, model) -> NavigateResult."""


@dataclass
class Outcome:
    """What one case produced, in the oracle's vocabulary (``error``/``skipped`` are bench states)."""

    case_id: str
    verdict: str
    status: str | None = None
    reasons: tuple[str, ...] = ()
    halted_reason: str | None = None
    outdated: bool = False
    disclosure: str | None = None
    citations: tuple[str, ...] = ()
    model_calls: int = 0
    parse_repairs: int | None = None
    parse_error: str | None = None
    renavigations: int = 0
    envelope: str = ""
    detail: str = ""
    answer_text: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def request_for(case: Case, overrides: dict[str, Any] | None = None) -> NavigateRequest:
    return NavigateRequest(question=case.question, **{**case.budgets.as_request(), **(overrides or {})})


def run_case(
    case: Case,
    bench: Workbench,
    *,
    overrides: dict[str, Any] | None = None,
    turn: Turn = navigate_turn,
    model: Model | None = None,
    quiet: bool = False,
) -> Outcome:
    """One case end to end; ``model`` replaces the scripted navigator (the live harness passes a real one).

    ``quiet`` sends the worker processes' stderr (fault dumps of the crash cases) to the void.
    """
    try:
        request = request_for(case, overrides)
    except ValidationError as error:
        return Outcome(case.id, "rejected", halted_reason="validation", detail=_first_error(error))
    if case.isolation is not None:
        with _stderr_silenced(quiet):
            return _isolated(case, bench.path(case.workspace), request)
    navigator = model or ScriptedNavigator(case.replies, case.id)
    try:
        result = turn(
            bench.path(case.workspace),
            request,
            embedder=bench.embedder,
            stores=bench.stores(case.workspace),
            model=navigator,
        )
    except TemplateError as error:
        return Outcome(case.id, "error", detail=f"broken script: {error}", model_calls=_calls(navigator))
    except Exception as error:  # an engine crash is this case's failure, not the end of the benchmark run
        log.exception("case %s raised", case.id)
        return Outcome(case.id, "error", detail=f"the turn raised {type(error).__name__}: {error}")
    outcome = from_result(case.id, result, _calls(navigator))
    outcome.parse_error = first_parse_error(navigator)
    return outcome


def first_parse_error(model: Model) -> str | None:
    """The error code the engine's first repair prompt quoted back to the model, if it sent one."""
    for prompt in getattr(model, "history", []):
        found = _REPAIR_CODE.search(sections(prompt.text).get("PARSE ERROR", ""))
        if found:
            return found.group(1)
    return None


def from_result(case_id: str, result: NavigateResult, model_calls: int) -> Outcome:
    surface = result.answer_surface
    trace = result.trace_surface
    return Outcome(
        case_id=case_id,
        verdict=result.verdict,
        status=result.status,
        reasons=tuple(result.reasons),
        halted_reason=result.halted_reason,
        outdated=result.outdated,
        disclosure=surface.disclosure if surface is not None else None,
        citations=tuple(sorted(c.address for c in surface.citations)) if surface is not None else (),
        model_calls=model_calls,
        parse_repairs=trace.telemetry.parse_repairs if trace is not None else None,
        renavigations=result.renavigations,
        envelope=result.envelope,
        detail=result.detail,
        answer_text=surface.text if surface is not None else None,
    )


def _isolated(case: Case, root: Path, request: NavigateRequest) -> Outcome:
    """A turn through the worker pool with a fault-injection job; skipped when the server layer is absent."""
    try:
        import anyio

        from synapse_server.isolation.runner import WorkerPool
        from tests.support.worker_jobs import job_env  # the fault jobs live with the tests, in this checkout
    except ImportError as error:  # absent, or broken mid-edit: either way this case cannot run here
        return Outcome(case.id, "skipped", detail=f"requires the server isolation layer and its test jobs ({error})")
    assert case.isolation is not None
    env = job_env(case.isolation.job, os.environ)
    info = ModelInfo(provider="script", id=f"canonical:{case.id}")

    async def once() -> NavigateResult:
        pool = WorkerPool(root, env=env, prespawn=False)
        try:
            return await pool.run_turn(request, timeout_s=case.isolation.timeout_s, model=info)  # type: ignore[union-attr]
        finally:
            await pool.aclose()

    return from_result(case.id, anyio.run(once), 0)


@contextlib.contextmanager
def _stderr_silenced(active: bool) -> Iterator[None]:
    """Point file descriptor 2 at /dev/null while workers run: they inherit it, and a crash case prints a dump."""
    if not active:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w", encoding="utf-8") as void:
            os.dup2(void.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _calls(model: Model) -> int:
    history = getattr(model, "history", None)
    return len(history) if isinstance(history, list) else 0


def _first_error(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid')}"
