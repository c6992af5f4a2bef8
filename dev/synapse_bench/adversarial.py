"""``python -m dev.synapse_bench adversarial``: the adversarial category of the canonical corpus on its own.

Hostile replies that share their source's words and figures but misread it
(calculations that evaluate but mean something else, paraphrases that drop a
cap, a condition or a ``non-``, headings that lose their negation, joins across
two nodes), each of which must abstain, and the honest twins that read the same
sources faithfully and must be answered at their status
(``canonical/data/adversarial.yaml``, on the demo and the ``policy`` recipe).
The same flags as ``canonical``; ``--check`` guards the locked baseline, which
CI runs with the rest of the corpus.
"""

from __future__ import annotations

from dev.synapse_bench.canonical.cli import main as canonical_main


def main(argv: list[str] | None = None) -> int:
    return canonical_main(["--category", "adversarial", *(argv or [])])


if __name__ == "__main__":
    raise SystemExit(main())
