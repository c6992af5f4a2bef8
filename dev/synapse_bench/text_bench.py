"""How the engine's text functions scale with hostile input: seconds per size, and the ratio per doubling.

The router tokenises every cited body and every claim, so a body written to
make a tokenizer quadratic ("123,123,…,1234", "A. A. A. …") would freeze a
turn. Each row doubles the input size; a linear function keeps the ratio near
2, a quadratic one near 4. Figures only: no test asserts a timing.

Run: ``python -m dev.synapse_bench text [--max-kb N]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from itertools import pairwise

from synapse_server.language.atoms import atomic_units
from synapse_server.language.numbers import all_numbers
from synapse_server.language.text import normalise_words

INPUTS: dict[str, Callable[[int], str]] = {
    "grouped digits 123,123,…,1234": lambda size: "123," * (size // 4) + "1234",
    "sentences A. A. A.": lambda size: "A. " * (size // 3),
    "prose words": lambda size: "costs rose to 8 bps after the review; " * (size // 38),
}
FUNCTIONS: dict[str, Callable[[str], object]] = {
    "all_numbers": all_numbers,
    "normalise_words": normalise_words,
    "atomic_units": atomic_units,
}


def measure(function: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    function(text)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench text", description=__doc__.splitlines()[0])
    parser.add_argument("--max-kb", type=int, default=64, help="largest input size in KB (default 64)")
    args = parser.parse_args(argv)
    sizes = [kb * 1024 for kb in (8, 16, 32, 64, 128, 256) if kb <= args.max_kb]
    print(f"{'function':<16} {'input':<32} " + " ".join(f"{s // 1024:>6}KB" for s in sizes) + "  ratio/doubling")
    for fname, function in FUNCTIONS.items():
        for iname, make in INPUTS.items():
            seconds = [measure(function, make(size)) for size in sizes]
            ratios = [b / a for a, b in pairwise(seconds) if a > 0]
            ratio = f"{max(ratios):.1f}" if ratios else "-"
            print(f"{fname:<16} {iname:<32} " + " ".join(f"{s:>7.3f}s" for s in seconds) + f"  {ratio:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
