"""``python -m dev.synapse_bench host``: what a step of a host-navigated turn costs beside an in-process turn.

Under ``model: host`` the server keeps nothing between the host model's calls, so every step pays for
statelessness: the token is verified, the step spent and the turn's record read (the protocol), and the
loop replayed from the start over the replies so far (re-assembly). This harness measures both on the
demo, in one process, with the workspace preloaded as the navigate template holds it, beside the
baseline it must be compared with: the same turn with the same reply through ``script:`` in process.

Rows (median and p90 of ``--repeat`` runs, ms):

- ``in-process turn``: ``navigate_turn`` with the reply as a one-reply script (the baseline);
- ``host step 1``: the loop up to the pending prompt, the record written, the token signed;
- ``host step 2``: the token verified, the step spent, the record read, the loop replayed with the reply;
- ``protocol only``: sign, verify, spend, read and write the record, with no loop (the fixed cost).

Model time is excluded on both sides (the reply is recorded), and the worker fork of the server path
(about the same for every turn) is not in either figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dev.synapse_bench.report_sections import write_section

BEGIN = "<!-- host-bench -->"
END = "<!-- /host-bench -->"
QUESTION = "What annualised volatility target do the momentum positions use?"
REPLY = """@memdsl.out/2
@answer
claim c1 [restatement] cites mem:tree:deci-c3d4e5f6 :: The momentum signal scales positions to a 10% annualised volatility target.
prose :: The momentum signal scales positions to a 10% annualised volatility target.
cite c1 :: The momentum signal scales positions to a 10% annualised volatility target.
conclude c1
"""


def measure(root: Path, repeat: int) -> dict[str, Any]:
    from synapse_server.host_turns.record import TurnRecord, TurnRecords
    from synapse_server.host_turns.token import StepClaims, server_secret, sign, verify
    from synapse_server.isolation.turn import host_turn, navigate_turn, preload
    from synapse_server.models.host import HostTranscript
    from synapse_server.models.script import ScriptModel
    from synapse_server.navigation.pending import PendingStep
    from synapse_server.navigation.request import NavigateRequest
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import make_embedder

    workspace = load_workspace(root)
    embedder = make_embedder(workspace)
    preloaded = preload(workspace, embedder)
    request = NavigateRequest(question=QUESTION)
    script = root / "reply.json"
    script.write_text(json.dumps([REPLY]), encoding="utf-8")
    records = TurnRecords(workspace.cache_dir, workspace.config.navigate.turn_ttl_s)
    secret = server_secret({})

    def in_process() -> str:
        model = ScriptModel(script)
        return navigate_turn(root, request, embedder=embedder, preloaded=preloaded, model=model).verdict

    def step_one() -> tuple[str, str, PendingStep]:
        step = host_turn(root, request, HostTranscript(client="bench"), embedder=embedder, preloaded=preloaded)
        assert isinstance(step, PendingStep)
        record = TurnRecord(request=request, client="bench", digests=[step.digest])
        turn = records.create(record)
        claims = StepClaims(turn, step.step, int(time.time()) + 600, step.tokens_spent, step.digest, record.digest())
        return sign(claims, secret), turn, step

    def step_two(token: str) -> str:
        claims = verify(token, secret, time.time())
        records.claim(claims.turn, claims.step)
        record = records.load(claims.turn, claims.record)
        result = host_turn(root, record.request, record.transcript(REPLY), embedder=embedder, preloaded=preloaded)
        records.finish(claims.turn)
        return getattr(result, "verdict", "pending")

    def protocol_only() -> None:
        record = TurnRecord(request=request, client="bench", digests=["0" * 16])
        turn = records.create(record)
        token = sign(StepClaims(turn, 1, int(time.time()) + 600, 0, "0" * 16, record.digest()), secret)
        claims = verify(token, secret, time.time())
        records.claim(claims.turn, claims.step)
        loaded = records.load(claims.turn, claims.record)
        records.save(turn, loaded.answered(REPLY, "1" * 16))
        records.finish(turn)

    assert in_process() == "answer", "the baseline turn must answer"
    token, _, _ = step_one()
    assert step_two(token) == "answer", "the host turn must reach the same verdict"
    rows: dict[str, list[float]] = {"in-process turn": [], "host step 1": [], "host step 2": [], "protocol only": []}
    for _ in range(repeat):
        rows["in-process turn"].append(_ms(in_process))
        started = time.perf_counter()
        token, _, _ = step_one()
        rows["host step 1"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        step_two(token)
        rows["host step 2"].append((time.perf_counter() - started) * 1000)
        rows["protocol only"].append(_ms(protocol_only))
    return {name: _summary(values) for name, values in rows.items()}


def _ms(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50": statistics.median(ordered), "p90": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]}


def report(figures: dict[str, Any]) -> str:
    base = figures["in-process turn"]["p50"]
    lines = ["| step | p50 ms | p90 ms | p50 vs the in-process turn |", "|---|---|---|---|"]
    for name, row in figures.items():
        lines.append(f"| {name} | {row['p50']:.1f} | {row['p90']:.1f} | ×{row['p50'] / base:.2f} |")
    both = figures["host step 1"]["p50"] + figures["host step 2"]["p50"]
    lines.append(
        f"\nA one-reply turn the host navigates costs {both:.1f} ms of engine time over its two calls, "
        f"×{both / base:.2f} the in-process turn ({base:.1f} ms); the protocol itself (token, spend, record) is "
        f"{figures['protocol only']['p50']:.2f} ms of it."
    )
    return "\n".join(lines)


def section(figures: dict[str, Any]) -> str:
    """The REPORT.md section, between markers so the perf report keeps it (:mod:`report_sections`)."""
    return "\n".join(
        [
            BEGIN,
            "## Host navigation: what a step costs (host_bench.py, demo, in process, workspace preloaded)",
            "",
            report(figures),
            "",
            "`python -m dev.synapse_bench host --write-report` measures it again and rewrites this section.",
            END,
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench host", description=__doc__)
    parser.add_argument("--repeat", type=int, default=20, help="runs per row (default 20)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--write-report", action="store_true", help="update this harness's section of REPORT.md")
    args = parser.parse_args(argv)
    from synapse_server.workspace.init import make_demo

    with tempfile.TemporaryDirectory(prefix="synapse-host-bench-") as scratch:
        figures = measure(make_demo(Path(scratch) / "demo"), max(1, args.repeat))
    print(json.dumps(figures, indent=2) if args.json else report(figures))
    if args.write_report:
        write_section(Path(__file__).resolve().parent / "REPORT.md", section(figures), BEGIN, END)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
