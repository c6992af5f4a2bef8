"""Parse and serialize throughput of the MemDSL wire protocol.

Prints MB/s and artifacts/s for RENDER envelopes of 10, 100 and 1,000 nodes
and for OUTPUT v2 artifacts of 1, 10 and 50 claims. The content is generated
deterministically (a fixed seed) and looks like real traffic: nodes from every
store with 3-8 body lines, claims that cite them, prose bound by exact quotes.
``serialize_output`` re-parses its own text as a round-trip backstop, so its
figure includes one parse.

A second table times ``atomic_units`` on pathological bodies (a run of
initials, thousands of short sentences in one paragraph, a sentence of
conjunctions that never cut) at 8 to 64 KB; the ratio per doubling of the
size stays near 2 when the splitter is linear (it was about 4 before).

Run: ``python -m dev.synapse_bench.parse_bench [--seconds S] [--json]``.
Figures are measurements to compare across changes and machines; no test
asserts a timing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from memdsl.address import Address
from memdsl.output import ActionCall, Answer, Binding, Claim, Output, parse_output, serialize_output
from memdsl.render import STATUSES, Affordance, Gap, Render, RenderNode, parse_render, serialize_render
from synapse_server.language.atoms import atomic_units

_VOCABULARY = """
transaction costs increased from basis points after the backtest sharpe ratio decreased net returns
model pinned commit cost decision experiment run equity curve slippage turnover rebalanced weekly
annualised volatility drawdown spread liquidity estimate assumption verified source paper finding
"""
WORDS = tuple(_VOCABULARY.split())
STORES = (
    ("mem", "tree", "deci-{:08x}", "decision"),
    ("zk", "research", "20260706-{:04d}-claim", "claim"),
    ("repo", "demo", "models.costs.f{:d}", "function"),
    ("data", "runs", "run-{:03d}", "dataset"),
)


def sentence(rng: random.Random, low: int = 6, high: int = 16) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.4:
        words.insert(rng.randrange(len(words)), f"{rng.randint(1, 99)}.{rng.randint(0, 9)}%")
    return " ".join(words).capitalize() + "."


def render_envelope(nodes: int, seed: int = 7) -> Render:
    """An envelope of ``nodes`` realistic nodes (3-8 body lines each) and a gap for every tenth."""
    rng = random.Random(seed)
    built: list[RenderNode] = []
    gaps: list[Gap] = []
    for index in range(1, nodes + 1):
        store, source, pattern, node_type = STORES[index % len(STORES)]
        address = Address(store, source, pattern.format(index * 2654435761 % 2**32 if "x" in pattern else index))
        ref = f"n{index}"
        body = "\n".join(sentence(rng) for _ in range(rng.randint(3, 8)))
        built.append(
            RenderNode(
                ref=ref,
                address=address,
                type=node_type,
                status=rng.choice(STATUSES),
                elided=rng.random() < 0.1,
                title=sentence(rng, 3, 7).rstrip("."),
                prov=(f"file:models/costs.py@{rng.getrandbits(28):07x}",),
                aff=(Affordance("expand", ref), Affordance("ground", ref)),
                body=body,
            )
        )
        if index % 10 == 0:
            gaps.append(Gap("elided", address, "body truncated; ground to fetch the full record"))
    return Render(("n1",), tuple(built), tuple(gaps))


def output_artifact(claims: int, seed: int = 11) -> Output:
    """A v2 answer: ``claims - 1`` cited restatements and one deduction over all of them (or one claim)."""
    rng = random.Random(seed)
    texts = [f"Finding {k}: {sentence(rng)}" for k in range(1, claims + 1)]
    cited = [Claim(f"c{k}", "restatement", (f"n{k}",), (), None, texts[k - 1]) for k in range(1, claims)]
    premises = tuple(claim.id for claim in cited)
    last = Claim(f"c{claims}", "deduction" if premises else "restatement", () if premises else ("n1",), premises, None,
                 texts[-1])  # fmt: skip
    prose, bindings = "", []
    for claim in (*cited, last):
        if prose:
            prose += " "
        bindings.append(Binding(claim.id, claim.text, len(prose), len(prose) + len(claim.text)))
        prose += claim.text
    actions = (ActionCall("expand", ("n1",)), ActionCall("ground", ("n1",), (("verifier", "quote"),)))
    return Output(2, actions, Answer((*cited, last), prose, tuple(bindings), last.id))


def rate(operation: Callable[[], object], seconds: float) -> float:
    """Operations per second: the best of three timed batches sized to take about ``seconds / 3`` each."""
    start = time.perf_counter()
    operation()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(seconds / 3 / once))
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(batch):
            operation()
        best = min(best, (time.perf_counter() - start) / batch)
    return 1.0 / best


def measure(kind: str, size: str, text: str, parse: Callable[[str], Any], write: Callable[[Any], str],
            seconds: float) -> dict[str, Any]:  # fmt: skip
    value = parse(text)
    assert write(value) == text, f"{kind} {size} does not round-trip"
    megabytes = len(text.encode("utf-8")) / 1e6
    parse_rate = rate(lambda: parse(text), seconds)
    write_rate = rate(lambda: write(value), seconds)
    return {
        "kind": kind,
        "size": size,
        "bytes": len(text.encode("utf-8")),
        "parse_per_s": parse_rate,
        "parse_mb_s": parse_rate * megabytes,
        "serialize_per_s": write_rate,
        "serialize_mb_s": write_rate * megabytes,
    }


def run(seconds: float) -> list[dict[str, Any]]:
    rows = []
    for nodes in (10, 100, 1000):
        text = serialize_render(render_envelope(nodes))
        rows.append(measure("RENDER", f"{nodes} nodes", text, parse_render, serialize_render, seconds))
    for claims in (1, 10, 50):
        text = serialize_output(output_artifact(claims))
        rows.append(measure("OUTPUT", f"{claims} claims", text, parse_output, serialize_output, seconds))
    return rows


SCALING_BODIES = {"initials": "A. ", "sentences": "Costs rose. ", "uncut-and": "x y z and "}
SCALING_SIZES = (8_000, 16_000, 32_000, 64_000)


def scaling(seconds: float) -> list[dict[str, Any]]:
    """Milliseconds per ``atomic_units`` call for each pathological body and size, with the ratio per doubling."""
    rows: list[dict[str, Any]] = []
    for name, piece in SCALING_BODIES.items():
        previous = None
        for size in SCALING_SIZES:
            body = piece * (size // len(piece))
            ms = 1000.0 / rate(lambda body=body: atomic_units(body), seconds)  # type: ignore[misc]
            rows.append({"kind": "atomic_units", "body": name, "chars": len(body), "ms": ms,
                         "ratio": None if previous is None else ms / previous})  # fmt: skip
            previous = ms
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=1.0, help="time budget per measurement (default 1.0)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    rows = run(args.seconds)
    units = scaling(args.seconds)
    if args.json:
        print(json.dumps(rows + units, indent=2))
        return 0
    print(f"python {sys.version.split()[0]}; best of 3 batches, ~{args.seconds:g}s per measurement")
    print(f"{'artifact':<20}{'bytes':>10}{'parse MB/s':>12}{'parse /s':>12}{'write MB/s':>12}{'write /s':>12}")
    for row in rows:
        print(
            f"{row['kind'] + ' ' + row['size']:<20}{row['bytes']:>10}{row['parse_mb_s']:>12.2f}"
            f"{row['parse_per_s']:>12.0f}{row['serialize_mb_s']:>12.2f}{row['serialize_per_s']:>12.0f}"
        )
    print(f"\n{'atomic_units body':<20}{'chars':>10}{'ms/call':>12}{'x per 2x':>12}")
    for row in units:
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}"
        print(f"{row['body']:<20}{row['chars']:>10}{row['ms']:>12.1f}{ratio:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
