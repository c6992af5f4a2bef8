"""The stores of one real workspace, loaded and then checked by the workspace's resolvers."""

from __future__ import annotations

from adapters import CodeAdapter, MemoryAdapter, Node, RunsAdapter, ZettelkastenAdapter
from adapters.resolvers import workspace_resolvers
from tests.support.store_builders import Repo, front_matter, sha256_text, write


def _load_all(repo: Repo) -> list[Node]:
    root = repo.root
    pins = f"[models/fees.py@{repo.c1[:7]}, models/costs.py@{repo.c1[:7]}, models/costs.py@{'0' * 7}]"
    write(root, ".memory/tree/deci-1.md", front_matter(f"id: deci-1\nkind: decision\ntitle: Pins\npins: {pins}"))
    write(root, ".memory/tree/expe-1.md", front_matter("id: expe-1\nkind: experiment\ntitle: Run\nruns: [run-1]"))
    write(root, "data/in.csv", "x\n")
    sha = sha256_text("x\n")
    write(root, "runs/run-1/run.yaml", f"id: run-1\ninputs: [{{path: data/in.csv, sha256: '{sha}'}}]\n")
    write(root, ".zettelkasten/research/sources/paper.yaml", "id: paper\ntitle: P\ntext: paper.txt\n")
    write(root, ".zettelkasten/research/sources/paper.txt", "Costs reduce returns.\n")
    note = "id: n1\ntype: claim\ntitle: C\ncitations: [{source: paper, quote: Costs raise returns.}]"
    write(root, ".zettelkasten/research/notes/n1.md", front_matter(note))
    nodes: list[Node] = []
    for adapter in (
        MemoryAdapter(root / ".memory", root, "demo"),
        RunsAdapter(root / "runs", root),
        ZettelkastenAdapter(root / ".zettelkasten", None, {}, root, "demo"),
        CodeAdapter(root, "demo"),
    ):
        result = adapter.load()
        assert [d.code for d in result.diagnostics if d.path != "broken.py"] == []
        nodes.extend(result.nodes)
    return nodes


def test_memory_pins_resolve_current_outdated_and_stale_against_the_repository(repo: Repo) -> None:
    nodes = _load_all(repo)
    resolvers = workspace_resolvers(repo.root, repo.root, nodes)
    decision = next(node for node in nodes if node.address == "mem:tree:deci-1")
    assert [resolvers.resolve(t).state for t in decision.tethers] == ["ok", "outdated", "stale"]


def test_a_memory_run_tether_verifies_through_the_runs_store(repo: Repo) -> None:
    nodes = _load_all(repo)
    resolvers = workspace_resolvers(repo.root, repo.root, nodes)
    experiment = next(node for node in nodes if node.address == "mem:tree:expe-1")
    assert [resolvers.resolve(t).state for t in experiment.tethers] == ["ok"]
    write(repo.root, "data/in.csv", "changed\n")
    fresh = workspace_resolvers(repo.root, repo.root, nodes)
    assert [fresh.resolve(t).state for t in experiment.tethers] == ["stale"]


def test_a_note_quote_missing_from_the_cached_text_is_refuted(repo: Repo) -> None:
    nodes = _load_all(repo)
    resolvers = workspace_resolvers(repo.root, repo.root, nodes)
    note = next(node for node in nodes if node.address == "zk:research:n1")
    assert [resolvers.resolve(t).state for t in note.tethers] == ["failed"]
    source = next(node for node in nodes if node.address == "zk:research:paper")
    assert [resolvers.resolve(t).state for t in source.tethers] == ["ok"]


def test_every_code_node_pin_is_current_at_head(repo: Repo) -> None:
    nodes = _load_all(repo)
    resolvers = workspace_resolvers(repo.root, repo.root, nodes)
    states = {resolvers.resolve(t).state for node in nodes if node.family == "code" for t in node.tethers}
    assert states == {"ok"}
