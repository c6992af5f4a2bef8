"""The run resolver: a run is reproducible evidence when every input and output it recorded verifies.

The run's hashes come from the runs store (its content-hash tethers, keyed by
run id) and each is checked by the injected content-hash resolver; the run's
finding is the worst component finding. A run id that is not in the store is
``unresolved``; a run that recorded no hashes proves nothing (``unverifiable``), and the check says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from adapters.base import ResolverState, Tether, TetherCheck

SEVERITY: tuple[ResolverState, ...] = ("ok", "outdated", "unverifiable", "unresolved", "stale", "failed")
"""Resolver states from best to worst; a compound tether takes its worst component."""


class _Checker(Protocol):
    def check(self, tether: Tether) -> TetherCheck: ...


def worst(checks: Sequence[TetherCheck]) -> TetherCheck:
    """The component check with the worst state (the first of equals, for stable details)."""
    return max(checks, key=lambda check: SEVERITY.index(check.state))


class RunResolver:
    """Checks :attr:`TetherKind.RUN` tethers (``target`` = run id)."""

    def __init__(self, run_hashes: Mapping[str, Sequence[Tether]], content: _Checker) -> None:
        self.run_hashes = run_hashes
        self.content = content

    def check(self, tether: Tether) -> TetherCheck:
        run = tether.target
        hashes = self.run_hashes.get(run)
        if hashes is None:
            return TetherCheck(tether, "unresolved", f"run {run} is not in the runs store")
        if not hashes:
            return TetherCheck(
                tether,
                "unverifiable",
                f"run {run} recorded no hash that can be verified, so it stays inferred "
                "(measured needs a recorded sha256 of every input and output that matches the bytes)",
            )
        checks = [self.content.check(component) for component in hashes]
        bad = worst(checks)
        if bad.state == "ok":
            return TetherCheck(tether, "ok", f"run {run}: all {len(checks)} recorded hashes verify")
        failing = sum(1 for check in checks if check.state != "ok")
        return TetherCheck(tether, bad.state, f"run {run}: {failing} of {len(checks)} hashes fail; {bad.detail}")
