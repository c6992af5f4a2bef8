"""Test-only jobs a worker runs instead of a turn, named by ``SYNAPSE_TEST_WORKER_JOB=tests.support.worker_jobs:<function>``.

They let tests make a *real* worker segfault, get SIGKILLed, hang with a
grandchild past the timeout, exit silently, raise (unexpectedly, or a typed
error), or answer instantly with a labelled abstention (``echo``, for leak
tests that need hundreds of turns without loading the model each time;
``tally``, whose detail counts the turns this process has run, so a test can see
that no state survives from one turn to the next). They live with the tests, not
in the shipped package: the worker imports this module only when the variable
names it, and only the environment of whoever starts the server sets it (no tool
parameter reaches it). :func:`job_env` is that environment for one job.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping

from synapse_server.errors import InvalidInput
from synapse_server.isolation.protocol import TEST_JOB_ENV
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, Telemetry, TraceAbstention, TraceSurface
from tests.support import REPOSITORY

_TALLY: list[int] = []
"""Test-only mutable state: turns run by this process (``tally``); a fresh turn process must see it empty."""


def job_env(job: str, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables that make a worker run ``job``: its ``module:function`` and this checkout on ``PYTHONPATH``.

    ``base`` (e.g. ``os.environ``) is extended, not replaced; its own ``PYTHONPATH`` is kept after ours.
    """
    if job not in JOBS:
        raise ValueError(f"unknown test job {job!r}; expected one of {', '.join(JOBS)}")
    env = dict(base or {})
    inherited = env.get("PYTHONPATH") or (os.environ.get("PYTHONPATH", "") if base is None else "")
    env["PYTHONPATH"] = os.pathsep.join(part for part in (str(REPOSITORY), inherited) if part)
    env[TEST_JOB_ENV] = f"{__name__}:{JOBS[job].__name__}"
    return env


def echo(request: NavigateRequest) -> NavigateResult:
    return echo_result(request)


def tally(request: NavigateRequest) -> NavigateResult:
    _TALLY.append(os.getpid())
    return echo_result(request).model_copy(update={"detail": f"turn {len(_TALLY)} of process {os.getpid()}"})


def sigsegv(request: NavigateRequest) -> NavigateResult:
    ctypes.string_at(0)  # a genuine invalid read in native code
    raise AssertionError("unreachable: the read above kills the process")


def sigkill(request: NavigateRequest) -> NavigateResult:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable: SIGKILL cannot be caught")


def hang(request: NavigateRequest) -> NavigateResult:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], stdin=subprocess.DEVNULL)
    time.sleep(3600)
    raise AssertionError("the server should have killed this turn long ago")


def exit_(request: NavigateRequest) -> NavigateResult:
    os._exit(3)


def raise_(request: NavigateRequest) -> NavigateResult:
    raise RuntimeError("test job raised")


def invalid(request: NavigateRequest) -> NavigateResult:
    raise InvalidInput("test job: unknown project 'nope'", parameter="projects")


JOBS: dict[str, Callable[[NavigateRequest], NavigateResult]] = {
    "echo": echo,
    "tally": tally,
    "sigsegv": sigsegv,
    "sigkill": sigkill,
    "hang": hang,
    "exit": exit_,
    "raise": raise_,
    "invalid": invalid,
}
"""Each job by the name tests and the benchmark's failure cases use."""


def echo_result(request: NavigateRequest) -> NavigateResult:
    """A labelled abstention that depends only on the request, so a test can predict it byte for byte."""
    detail = f"test job: no evidence consulted for {len(request.question)} characters"
    trace = TraceSurface(
        verdict="abstain",
        status=None,
        conclusion_claim_id=None,
        claims=[],
        citations=[],
        assertions=[],
        disclosures=[],
        abstention=TraceAbstention(reasons=["low-coverage"], detail=detail),
        telemetry=Telemetry(hops=0, renavigations=0, parse_repairs=0, tokens_spent=0, loop_break="abstain"),
    )
    return NavigateResult(
        verdict="abstain",
        status=None,
        reasons=["low-coverage"],
        halted_reason="abstain",
        conclusion=None,
        outdated=False,
        detail=detail,
        answer_surface=None,
        trace_surface=trace,
        envelope="",
        hops=0,
        renavigations=0,
        tokens_spent=0,
        loop_break="abstain",
        model=ModelInfo(provider="test", id="echo"),
    )
