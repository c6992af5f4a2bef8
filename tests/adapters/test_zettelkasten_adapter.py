"""The zettelkasten adapter: notes, sources, citations, links, federation and the debate map."""

from __future__ import annotations

import os
from pathlib import Path

from adapters import Edge, Node, Tether, TetherKind, ZettelkastenAdapter, load_debate
from tests.support.store_builders import front_matter, sha256_text, write

CLAIM = """
id: 20260706-1832-claim
type: claim
title: Higher costs reduce net returns
claim_strength: strong
cross: true
citations:
  - {source: paper-17, locator: p8, quote: "Higher transaction costs reduce net returns."}
links: [{to: 20260701-0900-finding, rel: supports}]
files: [models/costs.py]
tags: [costs]
"""

FINDING = """
id: 20260701-0900-finding
type: finding
title: Costs ate the edge
claim_strength: moderate
"""

COUNTER = """
id: 20260801-1000-counter
type: finding
title: No cost effect after 2015
"""

PAPER_TEXT = "Abstract.\nHigher transaction costs\n   reduce net returns. We show this.\n"

SOURCE = f"""
id: paper-17
title: Costs and returns
year: 2019
authors: [A. Author, B. Author]
url: https://example.org/paper-17
text: texts/paper-17.txt
sha256: {sha256_text(PAPER_TEXT)}
"""

DEBATE = """
version: 1
contested:
  - claim: 20260706-1832-claim
    rationale: Replications after 2015 find no effect net of costs.
    notes: [20260801-1000-counter]
    sources: [paper-17]
"""


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    project = ".zettelkasten/research"
    write(root, f"{project}/notes/20260706-1832-claim.md", front_matter(CLAIM, "Higher costs reduce net returns.\n"))
    write(root, f"{project}/notes/20260701-0900-finding.md", front_matter(FINDING, "Net of costs the edge vanished.\n"))
    write(root, f"{project}/notes/20260801-1000-counter.md", front_matter(COUNTER, "No effect after 2015.\n"))
    write(root, f"{project}/sources/paper-17.yaml", SOURCE)
    write(root, f"{project}/sources/texts/paper-17.txt", PAPER_TEXT)
    return root


def _lab(tmp_path: Path) -> Path:
    lab = tmp_path / "lab" / ".zettelkasten"
    write(
        lab,
        "research/notes/lab-note.md",
        front_matter(
            "id: lab-note\ntype: claim\ntitle: Lab claim\ncitations: [{source: lab-paper, quote: Exact words.}]"
        ),
    )
    write(lab, "research/sources/lab-paper.yaml", "id: lab-paper\ntitle: Lab paper\n")
    return lab


def _adapter(
    root: Path, projects: list[str] | None = None, federation: dict[str, Path] | None = None
) -> ZettelkastenAdapter:
    return ZettelkastenAdapter(root / ".zettelkasten", projects, federation or {}, root, "demo")


def _nodes(adapter: ZettelkastenAdapter) -> dict[str, Node]:
    return {node.address: node for node in adapter.load().nodes}


def test_a_note_becomes_a_zk_node_with_its_type_title_body_and_meta(tmp_path: Path) -> None:
    node = _nodes(_adapter(_workspace(tmp_path)))["zk:research:20260706-1832-claim"]
    assert (node.type, node.title, node.family) == ("claim", "Higher costs reduce net returns", "zk")
    assert node.body == "Higher costs reduce net returns."
    assert node.path == ".zettelkasten/research/notes/20260706-1832-claim.md"
    assert node.meta["claim_strength"] == "strong"
    assert node.meta["cross"] is True
    assert node.meta["project"] == "research"
    assert node.meta["files"] == ("models/costs.py",)
    assert node.meta["type"] == "claim"


def test_citations_become_citation_tethers_cites_edges_and_provenance(tmp_path: Path) -> None:
    node = _nodes(_adapter(_workspace(tmp_path)))["zk:research:20260706-1832-claim"]
    quote = "Higher transaction costs reduce net returns."
    assert node.tethers == (Tether(TetherKind.CITATION, "paper-17", "p8", quote, "research"),)
    assert Edge(node.address, "zk:research:paper-17", "cites") in node.edges
    assert node.provenance == ("cite:paper-17@p8",)


def test_links_and_files_become_typed_edges(tmp_path: Path) -> None:
    node = _nodes(_adapter(_workspace(tmp_path)))["zk:research:20260706-1832-claim"]
    assert Edge(node.address, "zk:research:20260701-0900-finding", "supports") in node.edges
    assert Edge(node.address, "repo:demo:models/costs.py", "files") in node.edges


def test_without_a_code_name_files_stay_in_meta_only(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    adapter = ZettelkastenAdapter(root / ".zettelkasten", None, {}, root)
    node = _nodes(adapter)["zk:research:20260706-1832-claim"]
    assert not [edge for edge in node.edges if edge.rel == "files"]
    assert node.meta["files"] == ("models/costs.py",)


def test_a_link_with_an_unknown_rel_is_skipped_with_a_warning(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(
        root,
        ".zettelkasten/research/notes/odd.md",
        front_matter("id: odd\ntype: claim\ntitle: Odd\nlinks: [{to: 20260701-0900-finding, rel: loves}]"),
    )
    result = _adapter(root).load()
    odd = {node.address: node for node in result.nodes}["zk:research:odd"]
    assert odd.edges == ()
    assert [(d.code, d.field, d.line) for d in result.diagnostics] == [("bad-field", "rel", 5)]


def test_a_source_record_becomes_a_source_node_in_the_project_address_space(tmp_path: Path) -> None:
    source = _nodes(_adapter(_workspace(tmp_path)))["zk:research:paper-17"]
    assert (source.type, source.title) == ("source", "Costs and returns")
    assert source.tethers == (Tether(TetherKind.CITATION, "paper-17", project="research"),)
    assert "- authors: A. Author, B. Author" in source.body
    assert source.meta["year"] == "2019"
    assert source.meta["text_file"] == ".zettelkasten/research/sources/texts/paper-17.txt"
    assert source.meta["sha256"] == sha256_text(PAPER_TEXT)


def test_a_source_id_that_repeats_a_note_id_is_a_duplicate_and_the_note_is_kept(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/sources/20260701-0900-finding.yaml", "id: 20260701-0900-finding\ntitle: X\n")
    result = _adapter(root).load()
    node = {node.address: node for node in result.nodes}["zk:research:20260701-0900-finding"]
    assert node.type == "finding"
    path = ".zettelkasten/research/sources/20260701-0900-finding.yaml"
    assert [(d.path, d.code) for d in result.diagnostics] == [(path, "duplicate-id")]


def test_a_source_text_path_leaving_the_sources_folder_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/sources/bad.yaml", "id: bad\ntitle: Bad\ntext: ../../../secret.txt\n")
    result = _adapter(root).load()
    assert "zk:research:bad" not in {node.address for node in result.nodes}
    assert [(d.code, d.field, d.line) for d in result.diagnostics] == [("bad-field", "text", 3)]


def test_federated_projects_are_addressed_with_the_alias_in_the_source_segment(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    nodes = _nodes(_adapter(root, federation={"lab": _lab(tmp_path)}))
    note = nodes["zk:lab.research:lab-note"]
    assert note.tethers == (Tether(TetherKind.CITATION, "lab-paper", None, "Exact words.", "lab.research"),)
    assert Edge(note.address, "zk:lab.research:lab-paper", "cites") in note.edges
    assert note.path == "../lab/.zettelkasten/research/notes/lab-note.md"
    assert "zk:lab.research:lab-paper" in nodes
    assert "zk:research:20260706-1832-claim" in nodes


def test_a_project_list_selects_exactly_the_named_local_and_federated_projects(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    lab = _lab(tmp_path)
    only_lab = _nodes(_adapter(root, ["lab.research"], {"lab": lab}))
    assert {address.split(":")[1] for address in only_lab} == {"lab.research"}
    only_local = _nodes(_adapter(root, ["research"], {"lab": lab}))
    assert {address.split(":")[1] for address in only_local} == {"research"}


def test_unknown_projects_and_aliases_are_reported_not_raised(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    result = _adapter(root, ["research", "nothere", "ghost.research"]).load()
    assert {d.code for d in result.diagnostics} == {"missing-store"}
    assert len(result.diagnostics) == 2
    assert len(result.nodes) == 4


def test_a_local_project_name_with_a_dot_is_skipped(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/v1.2/notes/n.md", front_matter("id: n\ntype: claim\ntitle: N"))
    result = _adapter(root).load()
    assert not any(":v1.2:" in node.address for node in result.nodes)
    assert [d.code for d in result.diagnostics] == ["bad-id"]


def test_a_project_symlinked_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    os.symlink(_lab(tmp_path) / "research", root / ".zettelkasten" / "borrowed")
    result = _adapter(root).load()
    assert not any(":borrowed:" in node.address for node in result.nodes)
    assert [(d.path, d.code) for d in result.diagnostics] == [(".zettelkasten/borrowed", "path-escape")]


def test_one_malformed_note_is_one_diagnostic_and_the_others_load(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/notes/broken.md", "---\nid: broken\ncitations: [{source: }\n---\n")
    result = _adapter(root).load()
    assert len(result.nodes) == 4
    [diagnostic] = result.diagnostics
    assert (diagnostic.path, diagnostic.code) == (".zettelkasten/research/notes/broken.md", "front-matter")
    assert diagnostic.line >= 3


def test_citing_a_source_the_project_does_not_have_is_a_dangling_ref_warning(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(
        root,
        ".zettelkasten/research/notes/lost.md",
        front_matter("id: lost\ntype: claim\ntitle: Lost\ncitations:\n  - source: nowhere"),
    )
    result = _adapter(root).load()
    assert [(d.code, d.severity, d.line) for d in result.diagnostics] == [("dangling-ref", "warning", 6)]
    assert "zk:research:lost" in {node.address for node in result.nodes}


def test_the_debate_map_is_parsed_into_contested_claims(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/debate.yaml", DEBATE)
    debate = load_debate(root / ".zettelkasten/research", "research", root)
    [entry] = debate.contested
    assert entry.claim == "zk:research:20260706-1832-claim"
    assert entry.rationale == "Replications after 2015 find no effect net of costs."
    assert entry.counter_notes == ("zk:research:20260801-1000-counter",)
    assert entry.counter_sources == ("zk:research:paper-17",)
    assert debate.diagnostics == ()
    assert debate.for_claim("zk:research:20260706-1832-claim") == (entry,)


def test_claims_listed_in_the_debate_map_are_marked_contested_and_linked_to_counter_evidence(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/debate.yaml", DEBATE)
    nodes = _nodes(_adapter(root))
    claim = nodes["zk:research:20260706-1832-claim"]
    assert claim.meta["contested"] is True
    assert claim.meta["debate"][0]["counter_evidence"] == ("zk:research:20260801-1000-counter", "zk:research:paper-17")
    assert Edge(claim.address, "zk:research:20260801-1000-counter", "contested-by") in claim.edges
    assert nodes["zk:research:20260701-0900-finding"].meta["contested"] is False


def test_a_broken_debate_entry_drops_only_that_entry(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/debate.yaml", DEBATE + "  - claim: 20260701-0900-finding\n    rationale: x\n")
    debate = load_debate(root / ".zettelkasten/research", "research", root)
    assert len(debate.contested) == 1
    assert [(d.code, d.line) for d in debate.diagnostics] == [("missing-field", 8)]


def test_a_broken_debate_file_is_a_diagnostic_and_the_notes_still_load(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/debate.yaml", "contested: {claim: [\n")
    result = _adapter(root).load()
    assert len(result.nodes) == 4
    assert [(d.path, d.code) for d in result.diagnostics] == [(".zettelkasten/research/debate.yaml", "yaml")]


def test_a_project_without_a_debate_map_has_an_empty_one(tmp_path: Path) -> None:
    debates = _adapter(_workspace(tmp_path)).load_debates()
    assert debates["research"].contested == ()
    assert debates["research"].path is None


def test_an_id_that_yaml_would_read_as_a_number_keeps_its_digits(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(root, ".zettelkasten/research/notes/0042.md", front_matter("id: 0042\ntype: concept\ntitle: Leading zeros"))
    assert "zk:research:0042" in _nodes(_adapter(root))


def test_zk_nodes_are_sorted_by_address(tmp_path: Path) -> None:
    addresses = list(_nodes(_adapter(_workspace(tmp_path), federation={"lab": _lab(tmp_path)})))
    assert addresses == sorted(addresses)


def test_relative_roots_and_federation_paths_are_taken_from_the_workspace_root(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    _lab(tmp_path)
    adapter = ZettelkastenAdapter(Path(".zettelkasten"), None, {"lab": Path("../lab/.zettelkasten")}, root, "demo")
    nodes = _nodes(adapter)
    assert "zk:lab.research:lab-note" in nodes
    assert "zk:research:paper-17" in nodes


def test_a_debate_entry_for_an_unknown_claim_is_a_dangling_ref_warning(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    write(
        root, ".zettelkasten/research/debate.yaml", "contested:\n  - claim: ghost\n    notes: [20260801-1000-counter]\n"
    )
    result = _adapter(root).load()
    assert [(d.code, d.line, d.severity) for d in result.diagnostics] == [("dangling-ref", 2, "warning")]


def test_a_second_note_with_the_same_id_is_a_duplicate_and_makes_no_references(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    copy = "id: 20260701-0900-finding\ntype: finding\ntitle: Copy\nlinks: [{to: missing-note, rel: related}]"
    write(root, ".zettelkasten/research/notes/zz-copy.md", front_matter(copy))
    result = _adapter(root).load()
    assert {node.address: node for node in result.nodes}[
        "zk:research:20260701-0900-finding"
    ].title == "Costs ate the edge"
    assert [d.code for d in result.diagnostics] == ["id-mismatch", "duplicate-id"]
