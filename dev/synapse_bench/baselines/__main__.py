"""``python -m dev.synapse_bench.baselines --root WS``: our search beside numpy and the peer, one process, one run.

It loads the workspace's stores and the embedder once, opens (and syncs) our
index, translates the same memory entries and notes into the peer's ``.mem``
files, checks them with ``memdsl lint``, starts one warm peer process, and then
runs :func:`~dev.synapse_bench.baselines.compare.side_by_side` over the
benchmark's query set (``synthetic.sample_queries``: the same queries the
retrieval benchmark uses). A peer that pip cannot install is reported as
skipped with the reason; the numpy comparison still runs.

Prints one JSON object (``--json``) or a short summary. The peer's venv and
``.mem`` files go under ``--workdir`` (default: next to the workspace).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from dev.synapse_bench.baselines import peer as peer_mod
from dev.synapse_bench.baselines.compare import side_by_side
from dev.synapse_bench.baselines.memfiles import translate
from dev.synapse_bench.synthetic import sample_queries

CLI_QUERIES = 3


def measure(root: Path, workdir: Path, queries: int, peer_spec: str | None) -> dict[str, Any]:
    """Every baseline figure for one workspace; ``peer_spec=None`` leaves the peer out."""
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import Stores, make_embedder

    workspace = load_workspace(root)
    stores = Stores.load(workspace)
    embedder = make_embedder(workspace)
    index = stores.open_index(embedder)
    qs = sample_queries(queries)
    result: dict[str, Any] = {"root": root.name, "nodes": len(stores.nodes)}
    session = None
    translation = None
    try:
        if peer_spec is not None:
            try:
                installed = peer_mod.install(workdir / "peer-venv", peer_spec)
                start = time.perf_counter()
                translation = translate(n for n in stores.nodes.values() if n.family in ("memory", "zk"))
                folder = peer_mod.write_workspace(translation, workdir / f"{root.name}-mem")
                peer_info: dict[str, Any] = {"spec": peer_spec, "version": installed.version}
                peer_info["translate_s"] = time.perf_counter() - start
                peer_info["files"] = len(translation.files)
                peer_info["lint"] = peer_mod.lint(installed, folder)
                if peer_info["lint"]["errors"]:
                    raise peer_mod.PeerUnavailable(f"the translated files do not lint clean: {peer_info['lint']}")
                cli = [peer_mod.cli_query(installed, folder, q) for q in qs[:CLI_QUERIES]]
                peer_info["cli_query_s"] = statistics.median(cli)
                session = peer_mod.PeerSession(installed, folder)
                peer_info["load_s"] = session.info["load_s"]
                peer_info["declarations"] = session.info["declarations"]
                result["peer"] = peer_info
            except peer_mod.PeerUnavailable as error:
                result["peer"] = {"spec": peer_spec, "skipped": str(error)}
                translation = None
        result.update(side_by_side(index, embedder, qs, session, translation))
    finally:
        if session is not None:
            session.close()
        index.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dev.synapse_bench.baselines", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--root", type=Path, required=True, help="a workspace with a built index")
    parser.add_argument("--workdir", type=Path, help="where the peer's venv and .mem files go (default: beside --root)")
    parser.add_argument("--queries", type=int, default=100, help="measured queries (default 100)")
    parser.add_argument("--peer-spec", default=peer_mod.DEFAULT_SPEC, help="pip requirement for the peer")
    parser.add_argument("--no-peer", action="store_true", help="leave the peer out")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    result = measure(
        root, (args.workdir or root.parent).resolve(), args.queries, None if args.no_peer else args.peer_spec
    )
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['root']}: {result['docs']} docs, {result['queries']} queries")
    for name, figures in result["latency"].items():
        print(f"  {name:<14} p50 {figures['p50_ms']:8.2f} ms  p95 {figures['p95_ms']:8.2f} ms")
    for name, value in result["ratios"].items():
        print(f"  {name:<22} p50 x{value['p50']:.2f}  p95 x{value['p95']:.2f}")
    print(f"  agreement {result['agreement']}")
    if "skipped" in result.get("peer", {}):
        print(f"  peer skipped: {result['peer']['skipped']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
