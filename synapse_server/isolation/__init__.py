"""navigate in isolation, and every process Synapse starts: a fresh process per turn (forked from a warm
template), its own process group, a socket; the turn's inputs (``turn``); process scopes and group guards
(``children``, ``group_guard``) for the ``command:`` models and workers.

Public API::

    from synapse_server.isolation.runner import WorkerPool
    pool = WorkerPool(root, env=os.environ, prespawn=True)
    await pool.start()                                   # spawn the warm template
    result = await pool.run_turn(request, timeout_s=120, model=ModelInfo(...))   # NavigateResult, never raises
    await pool.aclose()                                  # kill the template and any running turn

Timeouts, native crashes and internal errors come back as ``failure`` results
(``halted_reason`` timeout | native-crash | internal-error); a typed error the
worker raised (an invalid config or model spec) is re-raised as a SynapseError
with the same public ``kind``.

Nothing is re-exported here: ``models.command`` needs ``children`` without the runner, so importing this
package must not import the engine.
"""
