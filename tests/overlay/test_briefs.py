"""synthesize: high-value cells of the claim overlay, grounded briefs, and the verifier's flag."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters.base import Node, Tether, TetherKind
from adapters.index import Embedder
from adapters.resolvers import Resolvers
from synapse_server.cli import main as cli
from synapse_server.demo import build_demo
from synapse_server.overlay.briefs import (
    CellMaterial,
    QuoteRef,
    SynthesizeParams,
    brief_mark,
    cell_material,
    extractive_brief,
    high_value_cells,
    run_synthesize,
    write_brief,
)
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.model import ClaimStrength, Link, Overlay, Relation
from synapse_server.overlay.store import read_overlay, write_overlay
from synapse_server.overlay.verifier import quoted_spans
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.fake_model import FakeModel

pytestmark = pytest.mark.both_backends


def _link(practice: str, canon: str, relation: Relation, confidence: float, strength: ClaimStrength | None) -> Link:
    weight = {"strong": 1.0, "moderate": 0.7, "weak": 0.4}.get(strength or "weak", 0.4)
    return Link(
        practice=f"mem:tree:{practice}",
        canon=f"zk:{canon}",
        relation=relation,
        confidence=confidence,
        rationale="test",
        typer="test",
        channels=["semantic"],
        claim_strength=strength,
        priority=round(max(0.1, confidence * weight), 4),
    )


OVERLAY = Overlay(
    kind="claim",
    signature="sha256:test",
    typer="test",
    projects=["research", "execution"],
    min_confidence=0.5,
    links=[
        _link("deci-1", "research:strong-high", "applies", 0.8, "strong"),
        _link("deci-1", "research:strong-low", "corroborates", 0.55, "strong"),
        _link("deci-2", "research:moderate-high", "corroborates", 0.95, "moderate"),
        _link("expe-3", "research:weak-contradicted", "contradicts", 0.5, "weak"),
        _link("expe-4", "execution:strong-higher", "corroborates", 0.9, "strong"),
    ],
)


def test_high_value_cells_are_strong_claims_at_high_confidence_or_any_contradiction_by_priority() -> None:
    chosen = high_value_cells(OVERLAY, None, 0.6)
    assert [link.canon for link in chosen] == [
        "zk:execution:strong-higher",
        "zk:research:strong-high",
        "zk:research:weak-contradicted",
    ]


def test_the_threshold_and_the_project_scope_narrow_the_high_value_cells() -> None:
    assert [link.canon for link in high_value_cells(OVERLAY, ["research"], 0.5)] == [
        "zk:research:strong-high",
        "zk:research:strong-low",
        "zk:research:weak-contradicted",
    ]


MEMORY = Node(
    address="mem:tree:deci-4e291b00",
    type="decision",
    title="Cost-model decision",
    body="Transaction costs increased from 5 bps to 8 bps.\n\nThe April fills showed the old rate was optimistic.",
    family="memory",
    meta={"id": "deci-4e291b00"},
)
CLAIM = Node(
    address="zk:research:costs-reduce-returns",
    type="claim",
    title="Higher costs reduce net momentum returns",
    body="Higher transaction costs reduce net momentum returns.",
    family="zk",
    meta={"claim_strength": "strong"},
)
QUOTES = (
    QuoteRef(
        source="okafor-2019", locator="sec. 3", text="Higher transaction costs reduce net momentum returns.", check="ok"
    ),
    QuoteRef(source="reyes-2022", locator="p2", text="Every variant earned less after costs.", check="unverifiable"),
)
MATERIAL = CellMaterial(
    _link("deci-4e291b00", "research:costs-reduce-returns", "corroborates", 0.9, "strong"),
    "deci-4e291b00",
    MEMORY,
    CLAIM,
    QUOTES,
)


def _sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?:\"|\u201d)?(?=\s|$)", text))


def test_an_extractive_brief_cites_the_memory_id_quotes_a_retrieved_quote_and_names_the_relation() -> None:
    brief = extractive_brief(MATERIAL)
    assert "deci-4e291b00" in brief
    assert "Transaction costs increased from 5 bps to 8 bps." in brief
    assert [span for _, span in quoted_spans(brief)] == ["Higher transaction costs reduce net momentum returns."]
    assert "corroborates" in brief
    assert 1 <= _sentences(brief) <= 3


def test_an_extractive_brief_verifies_against_its_own_material() -> None:
    brief = write_brief(MATERIAL, None)
    assert (brief.mode, brief.verified, brief.failures) == ("extractive", True, [])
    assert brief.why == "strong-claim"


def test_a_claim_without_a_retrieved_quote_is_not_quoted_at_all() -> None:
    bare = CellMaterial(MATERIAL.link, MATERIAL.memory_id, MEMORY, CLAIM, ())
    text = extractive_brief(bare)
    assert quoted_spans(text) == []
    assert "no retrieved verbatim quote" in text
    assert write_brief(bare, None).verified is True


def test_a_model_brief_that_traces_is_verified_and_kept_as_written() -> None:
    reply = 'deci-4e291b00 raised costs to 8 bps, and the claim holds: "Higher transaction costs reduce net momentum returns."'
    brief = write_brief(MATERIAL, FakeModel(reply))
    assert (brief.mode, brief.text, brief.verified) == ("model", reply, True)


def test_a_tampered_brief_is_flagged_with_its_failures_and_never_rewritten() -> None:
    tampered = 'deci-4e291b00 cut costs by 400bps, so "costs never matter" and returns rose twenty percent.'
    model = FakeModel(tampered)
    brief = write_brief(MATERIAL, model)
    assert brief.text == tampered
    assert brief.verified is False
    assert [(f.kind, f.text) for f in brief.failures] == [
        ("figure", "400bps"),
        ("quote", "costs never matter"),
        ("figure", "twenty percent"),
    ]
    prompt = model.history[0].text
    assert "deci-4e291b00" in prompt and "Higher transaction costs reduce net momentum returns." in prompt


def test_a_model_brief_that_forgets_the_memory_id_is_flagged() -> None:
    brief = write_brief(MATERIAL, FakeModel("Costs rose from 5 bps to 8 bps, as the literature predicts."))
    assert [(f.kind, f.text) for f in brief.failures] == [("citation", "deci-4e291b00")]


def test_the_memory_id_is_read_from_the_entry_not_guessed() -> None:
    assert MATERIAL.verification_material().memory_id == "deci-4e291b00"
    assert "mem:tree:deci-4e291b00" in MATERIAL.verification_material().identifiers


# --- the demo ---------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Workspace, Stores]:
    workspace = load_workspace(build_demo(tmp_path_factory.mktemp("briefs") / "ws"))
    stores = Stores.load(workspace)
    build_overlay(workspace, stores, embedder, kind="claim")
    return workspace, stores


def test_demo_synthesize_briefs_the_high_value_cells_and_every_extractive_brief_verifies(
    demo: tuple[Workspace, Stores],
) -> None:
    workspace, stores = demo
    result = run_synthesize(workspace, stores, None, SynthesizeParams(model="extractive", limit=50))
    overlay = read_overlay(workspace, "claim", stores=stores).overlay
    assert overlay is not None
    expected = high_value_cells(overlay, result.projects, 0.6)
    assert result.high_value == len(expected) > 0
    assert [(b.practice, b.canon) for b in result.briefs] == [(link.practice, link.canon) for link in expected]
    assert all(b.verified and not b.failures for b in result.briefs)
    assert all(b.memory_id in b.text and b.memory_id == b.practice.split(":")[-1] for b in result.briefs)
    for brief in result.briefs:
        offered = {q.text for q in brief.quotes}
        assert all(span in offered for _, span in quoted_spans(brief.text))
    assert result.model.provider == "extractive"
    assert len(result.blind_spots) == 3
    assert "verified" in result.summary


def test_demo_quotes_come_from_the_notes_citations_and_a_refuted_quote_is_never_offered(
    demo: tuple[Workspace, Stores],
) -> None:
    _, stores = demo
    refuted = _link("deci-e17103e8", "research:20260407-1015-breakeven-cost", "corroborates", 0.9, None)
    assert cell_material(refuted, stores.nodes, stores.resolvers).quotes == ()
    crossed = _link("deci-e17103e8", "research:20260407-1030-costs-reduce-returns", "corroborates", 0.9, "strong")
    quotes = cell_material(crossed, stores.nodes, stores.resolvers).quotes
    node = stores.nodes["zk:research:20260407-1030-costs-reduce-returns"]
    cited = [t.quote for t in node.tethers if t.kind is TetherKind.CITATION]
    assert [q.text for q in quotes] == cited and len(cited) == 2


def test_a_contradiction_of_a_weak_claim_is_briefed_as_a_contradiction(tmp_path: Path) -> None:
    workspace = load_workspace(build_demo(tmp_path / "ws"))
    stores = Stores.load(workspace)
    link = _link("expe-9f8e7d6c", "research:20260407-1000-costs-shrink-premium", "contradicts", 0.51, "weak")
    write_overlay(workspace, OVERLAY.model_copy(update={"links": [link]}))
    result = run_synthesize(workspace, stores, None, SynthesizeParams(model="extractive"))
    assert result.overlay.drift == "drifted"
    [brief] = result.briefs
    assert (brief.why, brief.relation, brief.verified) == ("contradiction", "contradicts", True)
    assert "expe-9f8e7d6c" in brief.text and "contradicts" in brief.text
    assert '"After costs of 10 bps per trade the spread fell to 0.6% per month."' in brief.text


def test_without_a_claim_overlay_synthesize_says_so_and_writes_nothing(tmp_path: Path) -> None:
    workspace = load_workspace(build_demo(tmp_path / "ws"))
    result = run_synthesize(workspace, Stores.load(workspace), None, SynthesizeParams(model="extractive"))
    assert (result.overlay.drift, result.briefs, result.high_value) == ("missing", [], 0)
    assert not (workspace.root / ".synapse" / "links").exists()


def test_a_quote_tether_shape_is_what_cell_material_reads() -> None:
    claim = Node(
        address="zk:research:q",
        type="claim",
        title="Q",
        body="Q.",
        family="zk",
        tethers=(Tether(TetherKind.CITATION, "src", "p1", "A quote.", "research"), Tether(TetherKind.CITATION, "src")),
    )
    quotes = cell_material(
        _link("deci-1", "research:q", "applies", 0.9, "strong"), {claim.address: claim}, Resolvers()
    ).quotes
    assert [(q.source, q.locator, q.text, q.check) for q in quotes] == [("src", "p1", "A quote.", "unverifiable")]


def test_the_synthesize_command_prints_each_brief_with_its_verdict(
    demo: tuple[Workspace, Stores], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace, _ = demo
    assert cli.main(["synthesize", "--root", str(workspace.root), "--model", "extractive", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    # The demo's strongest cells are tied by a shared file only: their check covers the quotes, not a relation.
    assert out.count("[quotes verified; link: shared file only]") == 2 and "FLAGGED" not in out
    assert "[verified]" not in out
    assert "verified=true does not rule out" in out
    assert cli.main(["synthesize", "--root", str(workspace.root), "--min-confidence", "2"]) == 2


SHARED_FILE = CellMaterial(
    MATERIAL.link.model_copy(
        update={"relation": "related", "basis": "shared-file", "shared_paths": ["models/costs.py"], "typer": "x"}
    ),
    "deci-4e291b00",
    MEMORY,
    CLAIM,
    QUOTES,
)


def test_a_brief_over_a_shared_file_link_states_no_relation_and_is_verified_for_its_quotes_only() -> None:
    brief = write_brief(SHARED_FILE, None)
    assert "tied only by a shared file (models/costs.py)" in brief.text and "not judged" in brief.text
    assert not any(word in brief.text for word in ("applies", "corroborates", "is related to"))
    assert (brief.verified, brief.basis, brief.verified_for) == (True, "shared-file", "quotes")
    assert brief_mark(brief) == "quotes verified; link: shared file only"


def test_a_brief_over_a_judged_link_is_verified_as_a_whole() -> None:
    brief = write_brief(MATERIAL, None)
    assert (brief.basis, brief.verified_for, brief_mark(brief)) == ("judged", "brief", "verified")


def test_a_model_brief_over_a_shared_file_link_is_told_to_state_no_relation() -> None:
    model = FakeModel("Practice deci-4e291b00 changed costs; the two share models/costs.py.")
    brief = write_brief(SHARED_FILE, model)
    prompt = model.history[0].text
    assert "state no relation" in prompt and "RELATION:" not in prompt
    assert brief.verified_for == "quotes"


def test_an_applies_link_from_an_older_offline_overlay_counts_as_a_shared_file_link() -> None:
    old = Link.model_validate(
        {
            "practice": "mem:tree:deci-1",
            "canon": "zk:research:x",
            "relation": "applies",
            "confidence": 0.8,
            "rationale": "Shared provenance: both are about models/costs.py (offline rule, not an LLM reading).",
            "typer": "extractive-v1",
            "channels": ["provenance"],
            "shared_paths": ["models/costs.py"],
        }
    )
    assert old.basis is None and old.evidence() == "shared-file"
    brief = write_brief(CellMaterial(old, "deci-1", MEMORY, CLAIM, QUOTES), None)
    assert brief.verified_for == "quotes" and "The practice applies" not in brief.text
