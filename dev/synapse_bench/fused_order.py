"""What a fused search's order of work costs: the channels one after the other, or the query embedded beside the
keyword channel, with the vector scan in one slice or split across the CPUs.

``python -m dev.synapse_bench.fused_order WORKSPACE [--queries N] [--rounds R]`` over a synthetic workspace
whose index is built (``perf --workdir W`` leaves ``W/ws-100k``). Three ways of running the same fused search
(top 10) take turns on every query, in a rotating order, in one process over one warm index, so load hits
them alike:

- **in line, one slice**: embed after the keyword channel, then scan every vector on one core (the order
  before any overlap);
- **in line, split**: the same, the scan split across the CPUs;
- **embed ahead, split** (what search does): the query embedded on a thread of its own while the keyword
  channel runs, the split scan after it.

Scanning on that thread too, beside the keyword channel, was measured the same way and bought nothing at
100k (both channels then fight for the two cores: fused p50 30.7 and 31.4 ms against 30.2 and 29.6 ms) or
at 10k (12.1 against 12.6 ms), so search does not.

It prints each way's p50 and p95 and their ratios to the first. The figures are in docs/retrieval.md.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from adapters.index import Embedder, HybridIndex
from adapters.index import semantic as meaning
from dev.synapse_bench.perf import CACHE, _load_docs
from dev.synapse_bench.synthetic import sample_queries


class _InLine:
    """The loaded encoder seen as not loaded: a fused search then embeds in line, after the keyword channel."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.model_id = inner, inner.model_id

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.encode(texts)


@contextmanager
def _one_slice(on: bool) -> Iterator[None]:
    saved = meaning.SPLIT_ROWS
    meaning.SPLIT_ROWS = 1 << 62 if on else saved
    try:
        yield
    finally:
        meaning.SPLIT_ROWS = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    docs, _ = _load_docs(args.workspace)
    embedder = Embedder()
    embedder.load()
    ahead = HybridIndex.open(args.workspace / CACHE, embedder)
    inline = HybridIndex.open(args.workspace / CACHE, _InLine(embedder))
    try:
        for index in (ahead, inline):
            index.sync(docs)
        ways: dict[str, tuple[HybridIndex, bool]] = {
            "in line, one slice": (inline, True),
            "in line, split": (inline, False),
            "embed ahead, split": (ahead, False),
        }
        times = _timed(ways, sample_queries(args.queries), args.rounds)
    finally:
        for index in (ahead, inline):
            index.close()
    base = next(iter(times))
    p50 = {name: statistics.median(values) for name, values in times.items()}
    p95 = {name: sorted(values)[int(0.95 * len(values))] for name, values in times.items()}
    print(f"{len(docs):,} docs, {args.queries} queries x {args.rounds} rounds, rotating order, one process")
    for name in times:
        print(
            f"{name:20s} p50 {p50[name]:6.2f} ms  p95 {p95[name]:6.2f} ms  p50 / {base}: x{p50[name] / p50[base]:.2f}"
        )
    return 0


def _timed(ways: dict[str, tuple[HybridIndex, bool]], queries: list[str], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in ways}
    names = list(ways)
    for name in names:  # warm every path and cache; not measured
        index, one_slice = ways[name]
        with _one_slice(one_slice):
            for query in queries[:5]:
                index.search(query, 10)
    for round_ in range(rounds):
        for i, query in enumerate(queries):
            shift = (i + round_) % len(names)
            for name in names[shift:] + names[:shift]:
                index, one_slice = ways[name]
                with _one_slice(one_slice):
                    times[name].append(_ms(index.search, query))
    return times


def _ms(search: Callable[[str, int], object], query: str) -> float:
    start = time.perf_counter()
    search(query, 10)
    return (time.perf_counter() - start) * 1000


if __name__ == "__main__":
    raise SystemExit(main())
