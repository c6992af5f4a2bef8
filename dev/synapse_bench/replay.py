"""``python -m dev.synapse_bench replay``: the replay category of the canonical corpus on its own.

Replies a capable LLM wrote as the navigator on the demo, replayed as the first
turn, plus adversarial twins of the conjunction, calculation and paraphrase
paths (``canonical/data/replay.yaml``). The same flags as ``canonical``;
``--check`` guards the locked baseline, which CI runs with the rest of the corpus.
"""

from __future__ import annotations

from dev.synapse_bench.canonical.cli import main as canonical_main


def main(argv: list[str] | None = None) -> int:
    return canonical_main(["--category", "replay", *(argv or [])])


if __name__ == "__main__":
    raise SystemExit(main())
