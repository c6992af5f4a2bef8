"""The measuring half of the perf report: each step a harness in its own process, its figures or its error.

``gather`` runs every step the arguments ask for (``--skip`` may name a step, or one size's step such as
``overlay/100k``) and returns the raw figures ``report.py`` renders; the load average after each step goes with
them, so a reader can tell how far a shared machine disturbed the run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from dev.synapse_bench.synthetic import parse_size

REPO = Path(__file__).resolve().parents[2]
STEPS = ("parse", "perf", "baselines", "mcp", "nav", "servernav", "pg", "overlay", "server")


class StepFailed(RuntimeError):
    """A harness exited non-zero or printed no JSON; its figures are reported as not measured."""


def harness(module: str, *args: str, timeout_s: float | None = None) -> Any:
    """Run ``python -m module *args`` from the repository root and parse the JSON it prints."""
    out = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, check=False,
                         cwd=REPO, timeout=timeout_s)  # fmt: skip
    if out.returncode != 0:
        raise StepFailed(f"{module} exited {out.returncode}: {out.stderr.strip()[-600:]}")
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError as error:
        raise StepFailed(f"{module} printed no JSON: {out.stdout.strip()[-300:]}") from error


def failure_line(error: str) -> str:
    """What a report says of a failed step: the harness and the error it ended on, one line, with no folder of
    the machine it ran on (the whole traceback goes to the console as it happens)."""
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    if not lines:
        return "failed without a message"
    said = lines[0] if len(lines) == 1 else f"{lines[0].split(': ', 1)[0]}: {lines[-1]}"
    said = said.replace(f"{REPO}/", "")
    for prefix in {sys.prefix, sys.base_prefix}:
        said = said.replace(prefix, "<python>")
    return re.sub(r"(?<![\w.<>])/(?:[^\s/()'\"]+/)+", "", said)  # any other folder: the file's name alone


def build_overlay(root: Path, kind: str) -> dict[str, Any]:
    """``synapse build --kind KIND --json`` as a user runs it: wall time with the build report."""
    synapse = Path(sys.executable).parent / "synapse"
    start = time.perf_counter()
    out = subprocess.run([str(synapse), "build", "--root", str(root), "--kind", kind, "--json"],
                         capture_output=True, text=True, check=False, cwd=REPO)  # fmt: skip
    seconds = time.perf_counter() - start
    if out.returncode != 0:
        raise StepFailed(f"synapse build --kind {kind} exited {out.returncode}: {out.stderr.strip()[-600:]}")
    built: dict[str, Any] = json.loads(out.stdout)
    keep = ("candidates", "kept", "skipped", "relations", "typer")
    return {"kind": kind, "seconds": seconds, **{k: built.get(k) for k in keep}}


def postgres(workdir: Path, size: str, queries: int) -> dict[str, Any]:
    """``pg_bench`` on this size's workspace, with the vectors of the index the perf step built there (no copies:
    the migrate and second-clone steps each rewrite every row)."""
    args = ["--sizes", size, "--workdir", str(workdir), "--queries", str(queries), "--no-copies", "--json"]
    results = harness("dev.synapse_bench.pg_bench", *args)
    found: dict[str, Any] = next((r for r in results if r["nodes"] == parse_size(size)), {})
    if not found:
        raise StepFailed(f"pg_bench printed no figures for {size}")
    return found


def build_overlays(root: Path) -> list[dict[str, Any]]:
    return [build_overlay(root, kind) for kind in ("generic", "claim")]


class Recorder:
    """Runs steps, keeping each one's figures or its error, its duration and the load average after it."""

    def __init__(self, figures: dict[str, Any]) -> None:
        self.figures = figures
        figures.setdefault("errors", {})
        figures.setdefault("load", [])

    def step(self, key: str, run: Callable[[], Any]) -> None:
        print(f"[perf report] {key} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            value = run()
        except (StepFailed, subprocess.TimeoutExpired, OSError, ValueError) as error:
            print(f"[perf report] {key} failed: {error}", file=sys.stderr, flush=True)
            self.figures["errors"][key] = str(error)  # whole in the figures; the report shows failure_line
            value = None
        seconds = time.perf_counter() - start
        if value is not None:
            self.figures[key] = value
        self.figures["load"].append({"step": key, "seconds": round(seconds, 1), "load1": os.getloadavg()[0]})


def seed(workdir: Path, source: Path, sizes: list[str]) -> list[str]:
    """Copy prepared ``ws-<size>`` workspaces (with their index) that ``workdir`` lacks; returns the sizes copied."""
    copied = []
    for size in sizes:
        target, prepared = workdir / f"ws-{size}", source / f"ws-{size}"
        if not target.exists() and (prepared / ".angelo").is_dir():
            shutil.copytree(prepared, target, ignore=shutil.ignore_patterns("*.sqlite3-shm"))
            copied.append(size)
    return copied


def gather(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    skip = set(args.skip.split(",")) if args.skip else set()
    figures: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "sizes": {s: parse_size(s) for s in sizes},
        "queries": args.queries,
        "nav_repeat": args.nav_repeat,
        "reuse": args.reuse,
        "skip": args.skip,
        "edits": args.edits,
        "load_start": os.getloadavg(),
    }
    figures["seeded"] = seed(workdir, args.seed_from, sizes) if args.seed_from else []
    rec = Recorder(figures)
    if "parse" not in skip:
        rec.step("parse", lambda: harness("dev.synapse_bench.parse_bench", "--json", "--seconds", str(args.seconds)))
    if "perf" not in skip:
        perf_args = ["--sizes", ",".join(sizes), "--workdir", str(workdir), "--queries", str(args.queries), "--json"]
        rec.step(
            "perf",
            lambda: harness("dev.synapse_bench.perf", *perf_args, *(["--reuse", args.reuse] if args.reuse else [])),
        )

    def wanted(step: str, size: str) -> bool:  # ``--skip overlay/100k`` leaves out one size's step, and says so
        if f"{step}/{size}" in skip:
            figures["errors"][f"{step}/{size}"] = "left out of this run (--skip)"
        return step not in skip and f"{step}/{size}" not in skip

    for size in sizes:
        root = workdir / f"ws-{size}"
        if not (root / ".angelo").is_dir():
            figures["errors"][f"ws-{size}"] = "no indexed workspace (run without --skip perf, or --seed-from)"
            continue
        if wanted("baselines", size):
            base = ["--root", str(root), "--workdir", str(workdir), "--queries", str(args.queries), "--json"]
            peer = ["--no-peer"] if args.no_peer else ["--peer-spec", args.peer_spec]
            rec.step(f"baselines/{size}", partial(harness, "dev.synapse_bench.baselines", *base, *peer))
        if wanted("mcp", size):
            mcp = ["--root", str(root), "--repeat", "30", "--stdio", "--json"]
            rec.step(f"mcp/{size}", partial(harness, "dev.synapse_bench.search_profile", *mcp))
        if wanted("nav", size):
            nav = ["--root", str(root), "--repeat", str(args.nav_repeat), "--json"]
            rec.step(f"nav/{size}", partial(harness, "dev.synapse_bench.nav_bench", *nav))
        if wanted("servernav", size):
            served = ["--navigate", "8", "--navigate-root", str(root), "--edits", str(args.edits)]
            rec.step(f"servernav/{size}", partial(harness, "dev.synapse_bench.server_bench", *served))
        if wanted("pg", size):
            rec.step(f"pg/{size}", partial(postgres, workdir, size, args.queries))
        if wanted("overlay", size):
            rec.step(f"overlay/{size}", partial(build_overlays, root))
    if "nav" not in skip:
        rec.step("nav/demo", lambda: harness("dev.synapse_bench.nav_bench", "--repeat", str(args.nav_repeat), "--json"))
    if "server" not in skip:
        rec.step("server", lambda: harness("dev.synapse_bench.server_bench", "--json", "--warm-cache"))
    figures["load_end"] = os.getloadavg()
    return figures
