"""navigate in isolation: a fresh process per turn (forked from a warm template), its own process group, a pipe.

Public API::

    pool = WorkerPool(root, env=os.environ, prespawn=True)
    await pool.start()                                   # spawn the warm template
    result = await pool.run_turn(request, timeout_s=120, model=ModelInfo(...))   # NavigateResult, never raises
    await pool.aclose()                                  # kill the template and any running turn

Timeouts, native crashes and internal errors come back as ``failure`` results
(``halted_reason`` timeout | native-crash | internal-error); a typed error the
worker raised (an invalid config or model spec) is re-raised as a SynapseError
with the same public ``kind``.
"""

from synapse_server.isolation.outcomes import configured_model, failure_result
from synapse_server.isolation.runner import WorkerPool, WorkerReportedError

__all__ = ["WorkerPool", "WorkerReportedError", "configured_model", "failure_result"]
