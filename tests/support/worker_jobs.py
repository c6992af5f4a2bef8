"""Test-only jobs a worker runs instead of a turn when ``SYNAPSE_TEST_WORKER_JOB`` is set in its environment.

They let tests make a *real* worker segfault, get SIGKILLed, hang with a
grandchild past the timeout, exit silently, raise (unexpectedly, or a typed
error), or answer instantly with a labelled abstention (``echo``, for leak
tests that need hundreds of turns without loading the model each time;
``tally``, whose detail counts the turns this process has run, so a test can see
that no state survives from one turn to the next). No tool parameter reaches this module:
only the environment of whoever starts the server does.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time

from synapse_server.errors import InvalidInput
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult, Telemetry, TraceAbstention, TraceSurface

JOBS = ("echo", "tally", "sigsegv", "sigkill", "hang", "exit", "raise", "invalid")
_TALLY: list[int] = []
"""Test-only mutable state: turns run by this process (``tally``); a fresh turn process must see it empty."""


def run_job(job: str, request: NavigateRequest) -> NavigateResult:
    if job == "echo":
        return echo_result(request)
    if job == "tally":
        _TALLY.append(os.getpid())
        return echo_result(request).model_copy(update={"detail": f"turn {len(_TALLY)} of process {os.getpid()}"})
    if job == "sigsegv":
        ctypes.string_at(0)  # a genuine invalid read in native code
    if job == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if job == "hang":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], stdin=subprocess.DEVNULL)
        time.sleep(3600)
    if job == "exit":
        os._exit(3)
    if job == "raise":
        raise RuntimeError("test job raised")
    if job == "invalid":
        raise InvalidInput("test job: unknown project 'nope'", parameter="projects")
    raise ValueError(f"unknown test job {job!r}; expected one of {', '.join(JOBS)}")


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
