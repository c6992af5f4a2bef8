"""Where a navigate turn spends its time: p50/p95 of the total and of each stage, end to end in-process.

It runs the very turn the tool runs (``navigate_turn``) with the offline
``extractive`` model and one loaded embedder, from what the server's warm
template prepares once (``preload``: the stores, the index sync, the loaded
vectors and the node graph), and collects ``Timings`` per turn: assembly (index
open, seed search, neighbourhood), epistemics (tether checks), render, model,
parse, route, project. ``unstaged`` is what no stage claims (the turn's own
glue). Figures cover only the turns after one unmeasured warm-up turn; that
first turn is reported apart, and so is the preload. The baseline, timed in the
same run over one pass of the questions, is a turn given only the loaded
``Stores``, as every turn ran before the template kept its load: it diffs the
index against every doc, loads the vectors and builds the node graph itself.

Question sets:

- ``demo``: the 20 questions of ``synapse_server/demo/questions.yaml`` on a
  freshly built demo workspace (answers, abstentions and absent questions);
- ``synthetic``: ~20 questions drawn from a synthetic workspace's own titles
  (``dev/synapse_bench/synthetic.py``). The extractive model answers few of
  them (synthetic notes carry few verifiable tethers); the verdicts are listed
  so a reader knows what kind of turns were timed.

On the demo it also reports what each turn sends the model
(``prompt_size.py``): prompt bytes per model call (median, p90, min, max),
envelope bytes and node count, for the lean envelope and for the earlier one
in the same run; ``--prompt-size`` reports only that (a few seconds).

Run: ``python -m dev.synapse_bench.nav_bench [--root DIR] [--repeat 3] [--prompt-size] [--json]``
(no ``--root``: the demo). Measurements only; no test asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from dev.synapse_bench.baselines.compare import percentiles
from synapse_server.navigation.timing import STAGES, Timings

if TYPE_CHECKING:
    from adapters.index import TextEncoder
    from synapse_server.workspace.stores import Stores

QUESTIONS_FILE = Path(__file__).resolve().parents[2] / "synapse_server" / "demo" / "questions.yaml"
MODEL = "extractive"


def demo_questions() -> list[str]:
    """The demo's question set, in file order."""
    with QUESTIONS_FILE.open(encoding="utf-8") as handle:
        return [case["question"] for case in yaml.safe_load(handle)["questions"]]


def synthetic_questions(stores: Stores, count: int = 20, seed: int = 3) -> list[str]:
    """``count`` questions about the workspace's own memory entries and notes, from their titles (deterministic)."""
    candidates = [n for a, n in stores.nodes.items() if a.startswith(("mem:", "zk:")) and n.type != "source"]
    picked = random.Random(seed).sample(candidates, min(count, len(candidates)))
    return [f"What do we know about {' '.join(n.title.split()).rstrip('.?').lower()}?" for n in picked]


def run(
    root: Path,
    questions: Sequence[str],
    embedder: TextEncoder,
    stores: Stores | None = None,
    repeat: int = 3,
) -> dict[str, Any]:
    """Every question ``repeat`` times after one warm-up turn; per-stage and total p50/p95 in ms."""
    from synapse_server.isolation.turn import Preloaded, navigate_turn, preload
    from synapse_server.navigation.request import NavigateRequest
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import Stores

    workspace = load_workspace(root)
    start = time.perf_counter()
    stores = stores or Stores.load(workspace)
    stores_s = time.perf_counter() - start

    def turn(question: str, preloaded: Preloaded | None) -> tuple[float, Timings, str]:
        timings = Timings()
        start = time.perf_counter()
        result = navigate_turn(
            root,
            NavigateRequest(question=question, model=MODEL),
            embedder=embedder,
            stores=stores,
            preloaded=preloaded,
            timings=timings,
        )
        return (time.perf_counter() - start) * 1000, timings, result.verdict

    baseline_first_ms, _, _ = turn(questions[0], None)  # pays the model load and any index build
    baseline = [turn(question, None)[0] for question in questions]
    start = time.perf_counter()
    preloaded = preload(workspace, embedder)
    preload_s = time.perf_counter() - start
    first_ms, _, _ = turn(questions[0], preloaded)
    totals: list[float] = []
    stages: dict[str, list[float]] = {name: [] for name in (*STAGES, "unstaged")}
    verdicts: Counter[str] = Counter()
    for _ in range(repeat):
        for question in questions:
            total, timings, verdict = turn(question, preloaded)
            totals.append(total)
            verdicts[verdict] += 1
            for name in STAGES:
                stages[name].append(timings.seconds.get(name, 0.0) * 1000)
            stages["unstaged"].append(max(0.0, total - sum(timings.seconds.values()) * 1000))
    return {
        "nodes": len(stores.nodes),
        "questions": len(questions),
        "turns": len(totals),
        "stores_load_s": stores_s,
        "preload_s": preload_s,
        "first_turn_ms": first_ms,
        "total": percentiles(totals),
        "baseline_first_turn_ms": baseline_first_ms,
        "baseline_total": percentiles(baseline),
        "stages": {name: percentiles(samples) for name, samples in stages.items()},
        "verdicts": dict(sorted(verdicts.items())),
    }


def format_table(result: dict[str, Any], label: str) -> str:
    """A Markdown table: one row per stage, then the total."""
    rows = [f"| {label} | p50 ms | p95 ms |", "|---|---:|---:|"]
    for name, figures in result["stages"].items():
        rows.append(f"| {name} | {figures['p50_ms']:.1f} | {figures['p95_ms']:.1f} |")
    total = result["total"]
    rows.append(f"| **total** | **{total['p50_ms']:.1f}** | **{total['p95_ms']:.1f}** |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, help="a workspace (synthetic questions); default: a fresh demo")
    parser.add_argument("--questions", type=int, default=20, help="questions drawn from --root (default 20)")
    parser.add_argument("--repeat", type=int, default=3, help="passes over the question set (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--prompt-size", action="store_true", help="only the prompt size per turn, lean versus earlier envelope"
    )
    args = parser.parse_args(argv)
    from adapters.index import Embedder
    from dev.synapse_bench import prompt_size
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import Stores

    embedder = Embedder()
    with tempfile.TemporaryDirectory(prefix="synapse-nav-bench-") as scratch:
        if args.root is None:
            from synapse_server.workspace.init import make_demo

            root, label = make_demo(Path(scratch) / "demo"), "demo"
            stores = Stores.load(load_workspace(root))
            sizes = prompt_size.compare(root, demo_questions(), embedder, stores)
            if args.prompt_size:
                print(json.dumps(sizes, indent=2) if args.json else prompt_size.format_table(sizes))
                return 0
            result = run(root, demo_questions(), embedder, stores, repeat=args.repeat)
            result["prompt_size"] = sizes
        else:
            root, label = args.root.resolve(), args.root.name
            stores = Stores.load(load_workspace(root))
            result = run(root, synthetic_questions(stores, args.questions), embedder, stores, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{label}: {result['nodes']} nodes, {result['turns']} turns, verdicts {result['verdicts']}")
        print(f"preload {result['preload_s']:.2f} s, first turn after it {result['first_turn_ms']:.0f} ms")
        base = result["baseline_total"]["p50_ms"]
        print(f"baseline (a turn given only the stores) p50 {base:.1f} ms")
        print(format_table(result, "stage"))
        if "prompt_size" in result:
            print()
            print(prompt_size.format_table(result["prompt_size"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
