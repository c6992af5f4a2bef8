"""The benchmark's synthetic workspace: real store formats, an exact node count, the same bytes for a seed."""

from __future__ import annotations

from pathlib import Path

from adapters.index import HybridIndex, IndexDoc
from adapters.memory import MemoryAdapter
from adapters.zettelkasten import ZettelkastenAdapter
from dev.synapse_bench.synthetic import generate, parse_size, sample_queries
from tests.support.index_corpus import HashEncoder


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_generated_workspace_loads_cleanly_through_the_real_adapters(tmp_path: Path) -> None:
    summary = generate(tmp_path, 300, seed=3)
    memory = MemoryAdapter(Path(".memory"), tmp_path, "demo").load()
    zk = ZettelkastenAdapter(Path(".zettelkasten"), None, {}, tmp_path).load()
    assert len(memory.nodes) + len(zk.nodes) == summary.nodes == 300
    assert [d.format() for d in memory.diagnostics + zk.diagnostics if d.severity == "error"] == []
    assert {n.type for n in memory.nodes} >= {"root", "plan", "phase", "decision", "experiment"}
    assert {n.type for n in zk.nodes} >= {"claim", "finding", "source"}


def test_the_same_seed_writes_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    generate(tmp_path / "a", 120, seed=5)
    generate(tmp_path / "b", 120, seed=5)
    generate(tmp_path / "c", 120, seed=6)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert _files(tmp_path / "a") != _files(tmp_path / "c")


def test_sizes_parse_with_k_and_m_suffixes() -> None:
    assert [parse_size(s) for s in ("1k", "10K", "100k", "2m", "250")] == [1_000, 10_000, 100_000, 2_000_000, 250]


def test_sample_queries_mostly_find_keyword_hits_in_a_generated_workspace(tmp_path: Path) -> None:
    generate(tmp_path, 400, seed=0)
    nodes = MemoryAdapter(Path(".memory"), tmp_path, "demo").load().nodes
    nodes += ZettelkastenAdapter(Path(".zettelkasten"), None, {}, tmp_path).load().nodes
    with HybridIndex.open(tmp_path / ".angelo", HashEncoder()) as index:
        index.sync(IndexDoc.from_node(n) for n in nodes)
        found = [bool(index.lexical(q, limit=5)) for q in sample_queries(40)]
    assert sum(found) >= 30
