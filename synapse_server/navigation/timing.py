"""Per-stage wall-clock accounting for one turn, for the benchmark only (never asserted by tests).

Stages nest: time spent in an inner stage (``epistemics`` inside assembly) is
subtracted from the outer one, so the figures add up to the turn's total.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

STAGES = ("assembly", "epistemics", "render", "model", "parse", "route", "project")


class Timings:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(STAGES, 0.0)
        self._stack: list[list[float]] = []

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        self._stack.append([0.0])
        try:
            yield
        finally:
            inner = self._stack.pop()[0]
            elapsed = time.perf_counter() - start
            self.seconds[name] = self.seconds.get(name, 0.0) + elapsed - inner
            if self._stack:
                self._stack[-1][0] += elapsed


@contextmanager
def maybe(timings: Timings | None, name: str) -> Iterator[None]:
    """Time ``name`` when a collector was given; otherwise a no-op."""
    if timings is None:
        yield
    else:
        with timings.stage(name):
            yield
