"""``python -m dev.synapse_bench seeding``: does navigate's envelope hold what ``synapse search`` ranks first?

For every labelled query of the demo (``synapse_server/eval/demo_queries.yaml``, the documents a good answer
should surface), each relevant document's rank in the fused ranking ``synapse search`` returns, beside whether
the envelope navigate assembles for the same question holds it: with the seeds taken from the top of that
ranking (``SEARCH_SEEDS``, today's assembly) and without them (the per-family, relevance-floor seeds alone,
the assembly before), in one process on one index.

The figure that matters is the first row of the summary: of the documents search ranks 1st to
``SEARCH_SEEDS``-th, how many reach the envelope. It must be all of them.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from adapters.index.fusion import SEARCH_RRF_K

SEARCH_LIMIT = 10


def measure(root: Path) -> dict[str, Any]:
    import yaml

    from synapse_server.isolation.turn import prepare_turn
    from synapse_server.navigation import substrate
    from synapse_server.navigation.request import NavigateRequest
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import Stores, make_embedder

    workspace = load_workspace(root)
    embedder = make_embedder(workspace)
    stores = Stores.load(workspace)
    queries = yaml.safe_load(
        Path(substrate.__file__).parent.parent.joinpath("eval", "demo_queries.yaml").read_text(encoding="utf-8")
    )["queries"]
    index = stores.open_index(embedder)
    try:
        ranks = {
            q["query"]: [
                hit.address
                for hit in index.search(
                    q["query"], SEARCH_LIMIT, families=list(substrate.SEARCH_FAMILIES), fusion_k=SEARCH_RRF_K
                )
            ]
            for q in queries
        }
    finally:
        index.close()
    kept = substrate.SEARCH_SEEDS
    rows: list[dict[str, Any]] = []
    try:
        for seeds in (kept, 0):
            substrate.SEARCH_SEEDS = seeds
            for q in queries:
                view = prepare_turn(
                    root, NavigateRequest(question=q["query"], model="extractive"), embedder=embedder, stores=stores
                ).view
                for address in q["relevant"]:
                    ranking = ranks[q["query"]]
                    rows.append(
                        {
                            "query": q["query"],
                            "address": address,
                            "search_rank": ranking.index(address) + 1 if address in ranking else None,
                            "seeds_from_search": seeds,
                            "in_envelope": address in view.order,
                        }
                    )
    finally:
        substrate.SEARCH_SEEDS = kept
    return {"search_seeds": kept, "rows": rows}


def summary(figures: dict[str, Any]) -> str:
    kept = figures["search_seeds"]
    lines = [
        f"| search rank | documents | in the envelope, seeded from search (top {kept}) | without those seeds |",
        "|---|---:|---:|---:|",
    ]
    bands = [
        (f"1-{kept}", 1, kept),
        (f"{kept + 1}-{SEARCH_LIMIT}", kept + 1, SEARCH_LIMIT),
        ("not in top 10", None, None),
    ]
    for label, low, high in bands:

        def band(row: dict[str, Any], low: int | None = low, high: int | None = high) -> bool:
            rank = row["search_rank"]
            return rank is None if low is None else rank is not None and low <= rank <= (high or low)

        now = [r for r in figures["rows"] if r["seeds_from_search"] == kept and band(r)]
        before = [r for r in figures["rows"] if r["seeds_from_search"] == 0 and band(r)]
        lines.append(
            f"| {label} | {len(now)} | {sum(r['in_envelope'] for r in now)} | {sum(r['in_envelope'] for r in before)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dev.synapse_bench seeding", description=__doc__)
    parser.add_argument("--json", action="store_true", help="print every row as JSON")
    args = parser.parse_args(argv)
    from synapse_server.workspace.init import make_demo

    with tempfile.TemporaryDirectory(prefix="synapse-seeding-") as scratch:
        figures = measure(make_demo(Path(scratch) / "demo"))
    print(json.dumps(figures, indent=2) if args.json else summary(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
