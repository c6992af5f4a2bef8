"""The run resolver: a run is reproducible evidence when every input and output it recorded verifies.

The run's hashes come from the runs store (its content-hash tethers, keyed by
run id) and each is checked by the injected content-hash resolver; the run's
finding is the worst component finding. A run id that is not in the store is
``unresolved``; a run that recorded no hashes proves nothing (``unverifiable``), and the check says so in a
sentence a person reads (an abstention citing the run quotes it): what measured needs and, for a run whose
files are not committed to git unchanged, what grounded needs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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
    """Checks :attr:`TetherKind.RUN` tethers (``target`` = run id); ``committed`` names the runs whose files are
    pinned in git (grounded by them), so the check of a run that is not can say what grounded needs."""

    def __init__(
        self, run_hashes: Mapping[str, Sequence[Tether]], content: _Checker, committed: Collection[str] = ()
    ) -> None:
        self.run_hashes = run_hashes
        self.content = content
        self.committed = committed

    def check(self, tether: Tether) -> TetherCheck:
        run = tether.target
        hashes = self.run_hashes.get(run)
        if hashes is None:
            return TetherCheck(tether, "unresolved", f"run {run} is not in the runs store")
        if not hashes:
            grounded = (
                ""
                if run in self.committed
                else ", and its files are not committed to git unchanged, which grounded needs"
            )
            detail = f"run {run} recorded no sha256 of its inputs and outputs that can be verified, which measured needs{grounded}"
            return TetherCheck(tether, "unverifiable", detail)
        checks = [self.content.check(component) for component in hashes]
        bad = worst(checks)
        if bad.state == "ok":
            return TetherCheck(tether, "ok", f"run {run}: all {len(checks)} recorded hashes verify")
        failing = sum(1 for check in checks if check.state != "ok")
        return TetherCheck(tether, bad.state, f"run {run}: {failing} of {len(checks)} hashes fail; {bad.detail}")
