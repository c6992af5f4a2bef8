"""The debate lens: the literature's debate map with practice contradictions folded in."""

from __future__ import annotations

import json
import re

import pytest

from adapters.base import Node
from adapters.index import Embedder
from adapters.zk_debate import ContestedClaim, DebateMap
from synapse_server.cli import main as cli
from synapse_server.demo import build_demo
from synapse_server.models import Completion, Model, ModelIdentity, Prompt
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.debate_view import DebateParams, DebateResult, fold_debate, run_debate
from synapse_server.overlay.model import Link, Overlay, Relation
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.stores import Stores


def _link(practice: str, canon: str, relation: Relation, confidence: float = 0.8) -> Link:
    return Link(
        practice=practice,
        canon=canon,
        relation=relation,
        confidence=confidence,
        rationale=f"{relation} by test",
        typer="test",
        channels=["semantic"],
    )


MAPS = {
    "research": DebateMap(
        "research",
        ".zettelkasten/research/debate.yaml",
        (
            ContestedClaim(
                "zk:research:helps", "Costs erase the gain.", ("zk:research:after-costs",), ("zk:research:reyes",), 3
            ),
        ),
    ),
    "execution": DebateMap("execution", None),
}
NODES = {
    "zk:research:helps": Node(
        "zk:research:helps", "claim", "Scaling helps", "", "zk", meta={"claim_strength": "strong"}
    ),
    "zk:research:drawdown": Node("zk:research:drawdown", "finding", "Managed draws down less", "", "zk"),
    "mem:tree:expe-1": Node("mem:tree:expe-1", "experiment", "Scaled backtest", "", "memory"),
}


def _overlay(*links: Link) -> Overlay:
    return Overlay(
        kind="claim", signature="sha256:t", typer="t", projects=["research"], min_confidence=0.5, links=list(links)
    )


def test_the_literature_map_alone_lists_its_claims_with_literature_counter_evidence() -> None:
    [execution, research] = fold_debate(MAPS, None, NODES)
    assert (execution.project, execution.claims) == ("execution", [])
    [claim] = research.claims
    assert (claim.claim, claim.title, claim.claim_strength, claim.contested) == (
        "zk:research:helps",
        "Scaling helps",
        "strong",
        True,
    )
    assert claim.contested_by == ["literature"]
    assert [(e.address, e.origin, e.tier) for e in claim.counter_evidence] == [
        ("zk:research:after-costs", "literature", "canon"),
        ("zk:research:reyes", "literature", "canon"),
    ]
    assert claim.rationale == "Costs erase the gain."


def test_a_practice_contradiction_joins_a_listed_claim_as_practice_counter_evidence() -> None:
    overlay = _overlay(_link("mem:tree:expe-1", "zk:research:helps", "contradicts", 0.9))
    claim = fold_debate(MAPS, overlay, NODES)[1].claims[0]
    assert claim.contested_by == ["literature", "practice"]
    practice = claim.counter_evidence[-1]
    assert (practice.address, practice.origin, practice.store, practice.tier) == (
        "mem:tree:expe-1",
        "practice",
        "memory",
        "practice",
    )
    assert (practice.title, practice.relation, practice.confidence) == ("Scaled backtest", "contradicts", 0.9)


def test_a_claim_contradicted_by_practice_is_contested_even_if_the_map_never_listed_it() -> None:
    overlay = _overlay(_link("mem:tree:expe-1", "zk:research:drawdown", "contradicts", 0.7))
    claims = fold_debate(MAPS, overlay, NODES)[1].claims
    assert [c.claim for c in claims] == ["zk:research:helps", "zk:research:drawdown"]
    drawdown = claims[1]
    assert (drawdown.contested, drawdown.contested_by, drawdown.rationale) == (True, ["practice"], None)
    assert [e.address for e in drawdown.counter_evidence] == ["mem:tree:expe-1"]


@pytest.mark.parametrize("relation", ["applies", "corroborates", "motivated-by", "instantiates", "related"])
def test_only_contradictions_are_folded_in(relation: Relation) -> None:
    overlay = _overlay(_link("mem:tree:expe-1", "zk:research:drawdown", relation))
    assert [c.claim for c in fold_debate(MAPS, overlay, NODES)[1].claims] == ["zk:research:helps"]


def test_a_contradiction_of_a_project_outside_the_maps_is_not_shown() -> None:
    overlay = _overlay(_link("mem:tree:expe-1", "zk:other:claim", "contradicts"))
    assert [len(p.claims) for p in fold_debate(MAPS, overlay, NODES)] == [0, 1]


# --- the demo, typed by a provider that contradicts two claims -----------------------------------------------------

HELPS = "zk:research:20260505-0900-volatility-scaling-helps"
DRAWDOWN = "zk:research:20260505-0915-managed-drawdown"
SCALED = "mem:tree:expe-1b2c3d4e"


class PairRules(Model):
    """A provider that types the pairs in its table as contradictions and every other pair as related."""

    def __init__(self, contradicts: set[tuple[str, str]]) -> None:
        self.identity = ModelIdentity("rules", "pair-rules")
        self.contradicts = contradicts

    def execute(self, prompt: Prompt) -> Completion:
        practice = re.search(r"^PRACTICE (\S+)", prompt.text, re.MULTILINE)
        canon = re.search(r"^CANON (\S+)", prompt.text, re.MULTILINE)
        assert practice is not None and canon is not None
        hit = (practice.group(1), canon.group(1)) in self.contradicts
        reply = {
            "relation": "contradicts" if hit else "related",
            "confidence": 0.9 if hit else 0.55,
            "rationale": "rule",
        }
        return Completion(json.dumps(reply), None, self.identity)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Workspace, Stores]:
    workspace = load_workspace(build_demo(tmp_path_factory.mktemp("debate") / "ws"))
    stores = Stores.load(workspace)
    model = PairRules({(SCALED, HELPS), (SCALED, DRAWDOWN)})
    build_overlay(workspace, stores, embedder, kind="claim", model=model)
    return workspace, stores


@pytest.mark.both_backends
def test_demo_debate_folds_practice_into_the_literature_map(demo: tuple[Workspace, Stores]) -> None:
    workspace, stores = demo
    result = run_debate(workspace, stores, None, DebateParams())
    assert result.overlay.drift == "fresh"
    research = next(p for p in result.debates if p.project == "research")
    helps = next(c for c in research.claims if c.claim == HELPS)
    assert helps.contested_by == ["literature", "practice"]
    origins = [(e.address, e.origin) for e in helps.counter_evidence]
    assert ("zk:research:20260506-1000-scaling-after-costs", "literature") in origins
    assert origins[-1] == (SCALED, "practice")
    drawdown = next(c for c in research.claims if c.claim == DRAWDOWN)
    assert (drawdown.contested, drawdown.contested_by) == (True, ["practice"])
    assert result.contested_by_practice_only == [DRAWDOWN]
    assert result.practice_contradictions == 2
    assert "contested by practice alone" in result.summary


@pytest.mark.both_backends
def test_demo_debate_is_read_only(demo: tuple[Workspace, Stores]) -> None:
    workspace, stores = demo
    before = {p: p.read_bytes() for p in sorted(workspace.root.rglob("*")) if p.is_file() and ".angelo" not in p.parts}
    run_debate(workspace, stores, None, DebateParams())
    after = {p: p.read_bytes() for p in sorted(workspace.root.rglob("*")) if p.is_file() and ".angelo" not in p.parts}
    assert after == before


@pytest.mark.both_backends
def test_demo_debate_over_a_missing_overlay_shows_the_literature_map_only(demo: tuple[Workspace, Stores]) -> None:
    workspace, stores = demo
    result = run_debate(workspace, stores, None, DebateParams(kind="generic"))
    assert result.overlay.drift == "missing"
    research = next(p for p in result.debates if p.project == "research")
    assert [(c.claim, c.contested_by) for c in research.claims] == [(HELPS, ["literature"])]
    assert result.practice_contradictions == 0


@pytest.mark.both_backends
def test_the_project_scope_selects_the_maps_shown(demo: tuple[Workspace, Stores]) -> None:
    workspace, stores = demo
    assert [p.project for p in run_debate(workspace, stores, None, DebateParams(projects=["execution"])).debates] == [
        "execution"
    ]
    assert run_debate(workspace, stores, None, DebateParams(projects=[])).debates == []


@pytest.mark.both_backends
def test_the_debate_command_prints_the_same_result_as_json(
    demo: tuple[Workspace, Stores], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace, stores = demo
    assert cli.main(["debate", "--root", str(workspace.root), "--json"]) == 0
    assert DebateResult.model_validate_json(capsys.readouterr().out) == run_debate(
        workspace, stores, None, DebateParams()
    )
    assert cli.main(["debate", "--root", str(workspace.root)]) == 0
    assert "- practice: mem:tree:expe-1b2c3d4e" in capsys.readouterr().out
