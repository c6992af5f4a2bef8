"""What licensing by alignment costs per claim: milliseconds by claim size, beside a same-process baseline.

Each row licenses one claim against 12 candidate clauses of the same size,
as the router does for a claim citing a long note: an honest verbatim
restatement (licensed at once), an honest reordering (a phrase moved, so the
moves are tried), and a hostile claim of foreign words (refused after one
alignment per clause). The baseline is the tokenising the old bag-of-words
check needed anyway: ``normalise_words`` over the same claim and clauses.
Figures only: no test asserts a timing.

Run: ``python -m dev.synapse_bench licensing [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from memdsl import Claim
from synapse_server.language.text import normalise_words
from synapse_server.language.words import tokens
from synapse_server.navigation.licence import Clause, license_words

SIZES = (10, 20, 40, 80, 160)
CANDIDATES = 12


def clause_text(size: int, seed: int) -> str:
    """A clause of about ``size`` tokens: labelled figures joined by commas."""
    parts = [f"the fee{seed}x{i} is {i + 1} bps" for i in range(max(1, size // 5))]
    return ", ".join(parts) + "."


def claims(size: int) -> dict[str, str]:
    text = clause_text(size, 0)
    segments = text.rstrip(".").split(", ")
    moved = ", ".join([*segments[1:], segments[0]]) + "."
    foreign = " ".join(f"zz{i} word" for i in range(size // 2)) + "."
    return {"verbatim": text, "phrase moved": moved, "hostile foreign": foreign}


def timed(action: Callable[[], object], repeat: int) -> float:
    """Median milliseconds of ``repeat`` runs; caches are cleared first so every run pays tokenising."""
    samples = []
    for _ in range(repeat):
        tokens.cache_clear()
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def row(name: str, size: int, text: str, candidates: list[Clause], repeat: int) -> str:
    """One claim licensed against the candidates, timed beside the baseline of tokenising the same texts."""
    claim = Claim(id="c1", form="restatement", text=text, cites=("n1",), premises=(), derive=None)
    licensed = license_words(claim, candidates).licensed
    spent = timed(lambda: license_words(claim, candidates), repeat)
    base = timed(lambda: [normalise_words(c.text) for c in candidates] + [normalise_words(text)], repeat)
    ratio = spent / base if base else float("nan")
    return f"{name:<16} {size:>6} {licensed!s:>8} {spent:>11.2f} {base:>12.2f} {ratio:>7.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench licensing", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is shown (default 5)")
    parser.add_argument("--max-tokens", type=int, default=160, help="largest claim size in tokens (default 160)")
    args = parser.parse_args(argv)
    print(f"{'claim':<16} {'tokens':>6} {'licensed':>8} {'license ms':>11} {'baseline ms':>12} {'ratio':>7}")
    for size in (s for s in SIZES if s <= args.max_tokens):
        candidates = [Clause(clause_text(size, seed), ("Fees",), "n1") for seed in range(CANDIDATES)]
        for name, text in claims(size).items():
            print(row(name, size, text, candidates, args.repeat))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
