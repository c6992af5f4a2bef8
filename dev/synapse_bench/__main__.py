"""``python -m dev.synapse_bench <harness>``: one entry for every validation harness outside the MCP contract.

Each subcommand is a module with its own ``main(argv)``, imported only when
chosen, so ``canonical --help`` never loads torch and ``perf`` never loads the
corpus. Arguments after the subcommand go to that harness unchanged.

    canonical   the deterministic corpus, its safety figures and the locked baseline (canonical/cli.py)
    replay      the corpus's replay category: a capable LLM's real replies and their adversarial twins (replay.py)
    adversarial the corpus's adversarial category: hostile replies licensing must refuse, honest twins it must accept (adversarial.py)
    correctness answer correctness of the offline navigator on decision records (correctness/bench.py)
    live        the same corpus with a real model, repeated (live.py)
    sweep       VOI policy x hops x trace_floor under the canonical safety gate (sweep.py)
    project     a user's own question set against their workspace (project_eval.py)
    perf        the performance report: every figure, baselines as ratios; writes REPORT.md and latency.png (report.py)
    parse       MemDSL parse/serialize throughput (parse_bench.py)
    text        how the engine's text functions scale with hostile input (text_bench.py)
    licensing   what licensing by alignment costs per claim, by claim size, beside a same-process baseline (licensing_bench.py)
    pg          the PostgreSQL + pgvector index beside SQLite; --write-report updates its REPORT.md section (pg_bench.py)
    seeding     whether navigate's envelope holds what search ranks first, by search rank (seeding.py)
    host        what a step of a host-navigated turn costs beside the in-process turn (host_bench.py)
    quality     ranking quality: recall@k and MRR of search beside numpy brute force, on judged sets (quality.py)
"""

from __future__ import annotations

import importlib
import sys

HARNESSES = {
    "canonical": "dev.synapse_bench.canonical.cli",
    "replay": "dev.synapse_bench.replay",
    "adversarial": "dev.synapse_bench.adversarial",
    "correctness": "dev.synapse_bench.correctness.bench",
    "live": "dev.synapse_bench.live",
    "sweep": "dev.synapse_bench.sweep",
    "project": "dev.synapse_bench.project_eval",
    "perf": "dev.synapse_bench.report",
    "parse": "dev.synapse_bench.parse_bench",
    "text": "dev.synapse_bench.text_bench",
    "licensing": "dev.synapse_bench.licensing_bench",
    "pg": "dev.synapse_bench.pg_bench",
    "host": "dev.synapse_bench.host_bench",
    "seeding": "dev.synapse_bench.seeding",
    "quality": "dev.synapse_bench.quality",
}


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in HARNESSES:
        print(f"unknown harness {name!r}; expected one of: {', '.join(HARNESSES)}", file=sys.stderr)
        return 2
    module = importlib.import_module(HARNESSES[name])
    result = module.main(rest)
    return int(result or 0)


if __name__ == "__main__":
    raise SystemExit(main())
