"""``python -m dev.synapse_bench canonical``: run the deterministic corpus, print the figures, guard the baseline."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from dev.synapse_bench.canonical.baseline import BASELINE_PATH, Baseline, check, updated
from dev.synapse_bench.canonical.cases import CATEGORIES, Case, Corpus, load_corpus
from dev.synapse_bench.canonical.suite import Summary, run_suite
from dev.synapse_bench.canonical.workspaces import Workbench


@contextlib.contextmanager
def workbench(corpus: Corpus, workdir: Path | None) -> Iterator[Workbench]:
    """One embedder and one workbench for a run; a temporary folder unless ``workdir`` keeps them for reuse."""
    from adapters.index.embedder import Embedder

    embedder = Embedder()
    embedder.load()
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        yield Workbench(workdir.resolve(), corpus.recipes, embedder)
        return
    with tempfile.TemporaryDirectory(prefix="synapse-bench-") as folder:
        yield Workbench(Path(folder), corpus.recipes, embedder)


def select(corpus: Corpus, categories: list[str] | None, ids: list[str] | None) -> list[Case]:
    chosen = [c for c in corpus.cases if not categories or c.category in categories]
    if ids:
        chosen = [c for c in chosen if any(c.id == i or c.id.startswith(i) for i in ids)]
    return chosen


def quiet_logs() -> None:
    """Adapter failures are cases here, not incidents: keep their tracebacks off the report."""
    logging.getLogger().addHandler(logging.NullHandler())


def report(summary: Summary, known: dict[str, str], out: TextIO | None = None) -> None:
    stream = out or sys.stdout

    def say(line: str) -> None:
        print(line, file=stream)

    say(f"canonical corpus: {len(summary.judgements)} cases")
    for category, row in summary.categories().items():
        skipped = f"  ({row['skipped']} skipped)" if row["skipped"] else ""
        say(f"  {category:<12} {row['passed']:>3}/{row['total']:<3} passed{skipped}")
    unsafe = summary.unsafe
    in_known = [c for c in unsafe if c in known]
    say(
        f"UNSAFE ANSWERS: {len(unsafe)} ({len(in_known)} in known engine failures, {len(unsafe) - len(in_known)} guarded)"
    )
    say(f"FALSE ABSTENTIONS: {len(summary.false_abstentions)}")
    for j in summary.judgements:
        if j.passed:
            continue
        tags = " ".join(t for t, on in (("UNSAFE", j.unsafe), ("FALSE-ABSTENTION", j.false_abstention)) if on)
        state = "SKIP" if j.skipped else "KNOWN" if j.case_id in known else "FAIL"
        say(f"  {state} {j.case_id} {tags}".rstrip())
        for mismatch in j.mismatches:
            say(f"      {mismatch}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench canonical", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print the JSON summary instead of the table")
    parser.add_argument("--check", action="store_true", help="exit 1 on any regression against baseline.json")
    parser.add_argument(
        "--update-baseline", action="store_true", help="rewrite baseline.json from this run (a deliberate act)"
    )
    parser.add_argument("--category", action="append", choices=CATEGORIES, help="only these categories")
    parser.add_argument("--case", action="append", help="only cases with this id or id prefix")
    parser.add_argument("--workdir", type=Path, help="build workspaces here and reuse them on the next run")
    parser.add_argument("--baseline", type=Path, default=BASELINE_PATH, help=argparse.SUPPRESS)
    parser.add_argument("--verbose", action="store_true", help="keep adapter and worker logs")
    args = parser.parse_args(argv)
    partial = bool(args.category or args.case)
    if args.update_baseline and partial:
        parser.error("--update-baseline needs the whole corpus (no --category or --case)")
    if not args.verbose:
        quiet_logs()
    corpus = load_corpus()
    cases = select(corpus, args.category, args.case)
    baseline = Baseline.load(args.baseline) if args.baseline.exists() else None
    with workbench(corpus, args.workdir) as bench:
        summary = run_suite(cases, bench, quiet=not args.verbose)
    known = baseline.known_failures if baseline is not None else {}
    if args.json:
        print(json.dumps({**summary.as_json(), "known_failures": sorted(known)}, indent=2))
    else:
        report(summary, known)
    if args.update_baseline:
        try:
            fresh = updated(summary, baseline)
        except ValueError as error:
            print(f"baseline not updated: {error}", file=sys.stderr)
            return 1
        fresh.save(args.baseline)
        print(f"baseline written: {len(fresh.outcomes)} cases, {len(fresh.known_failures)} known failure(s)")
    if args.check:
        if baseline is None:
            print("no baseline to check against", file=sys.stderr)
            return 1
        result = check(summary, baseline, partial=partial)
        for notice in result.notices:
            print(f"note: {notice}")
        for regression in result.regressions:
            print(f"REGRESSION: {regression}")
        print("baseline check: " + ("ok" if result.ok else f"{len(result.regressions)} regression(s)"))
        return 0 if result.ok else 1
    return 0
