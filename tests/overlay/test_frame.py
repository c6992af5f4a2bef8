"""The frame lens: facets of a question, each established, contested or thin across both stores."""

from __future__ import annotations

import pytest

from adapters.base import Family, Node, ResolverState, Tether, TetherCheck, TetherKind
from adapters.index import Embedder
from adapters.resolvers import Resolvers
from synapse_server.cli import main as cli
from synapse_server.demo import build_demo
from synapse_server.errors import InvalidInput
from synapse_server.overlay.build import build_overlay
from synapse_server.overlay.frame import (
    FrameHit,
    FrameParams,
    facet_status,
    frame_hits,
    model_facets,
    question_facets,
    run_frame,
)
from synapse_server.overlay.lens import params_from
from synapse_server.workspace.config import Workspace, load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.fake_model import FakeModel


@pytest.mark.parametrize(
    ("question", "facets"),
    [
        (
            "How do transaction costs and volatility scaling affect momentum returns?",
            ["transaction costs", "volatility scaling", "momentum returns"],
        ),
        (
            "Does volatility scaling still help once trading costs are charged?",
            ["volatility scaling", "trading costs", "charged"],
        ),
        ("costs; costs, and costs", ["costs"]),
        ("What is it?", ["What is it?"]),
        ("a, b, c, d, e, f, g, h", ["b", "c", "d", "e", "f", "g"]),
    ],
)
def test_the_extractive_split_is_runs_of_content_words(question: str, facets: list[str]) -> None:
    assert question_facets(question) == facets


def test_model_facets_drop_bullets_numbering_and_duplicates() -> None:
    model = FakeModel('1. Transaction costs\n- transaction costs\n* Volatility scaling\n\n2) "Holdout discipline"\n')
    assert model_facets("q", model) == ["Transaction costs", "Volatility scaling", "Holdout discipline"]


class _Always:
    def __init__(self, state: ResolverState) -> None:
        self.state: ResolverState = state

    def check(self, tether: Tether) -> TetherCheck:
        return TetherCheck(tether, self.state, "test")


OK = Resolvers({TetherKind.GIT_PIN: _Always("ok"), TetherKind.CITATION: _Always("ok")})
PIN = Tether(TetherKind.GIT_PIN, "models/costs.py", "abc1234")
CITE = Tether(TetherKind.CITATION, "paper", "p1", "Costs reduce returns.", "research")


def _node(address: str, text: str, tethers: tuple[Tether, ...] = (), contested: bool = False) -> Node:
    family: Family = "memory" if address.startswith("mem:") else "zk"
    return Node(address, "claim", text, text, family, tethers=tethers, meta={"contested": contested})


def test_a_hit_counts_when_it_holds_half_the_facets_content_words() -> None:
    nodes = [
        _node("mem:tree:a", "Transaction costs rose", (PIN,)),
        _node("zk:r:b", "Costs of trading", (CITE,)),
        _node("zk:r:c", "Momentum crashes", (CITE,)),
    ]
    hits = frame_hits("transaction costs", nodes, OK, {})
    assert [(h.address, h.matched) for h in hits] == [("mem:tree:a", ["cost", "transaction"]), ("zk:r:b", ["cost"])]


def test_verified_looking_needs_a_resolving_tether_and_no_contest() -> None:
    nodes = [
        _node("mem:tree:a", "costs", (PIN,)),
        _node("mem:tree:b", "costs"),
        _node("zk:r:c", "costs", (CITE,), contested=True),
    ]
    hits = frame_hits("costs", nodes, OK, {})
    assert [h.verified_looking for h in hits] == [True, False, False]
    failing = Resolvers({TetherKind.GIT_PIN: _Always("stale")})
    assert frame_hits("costs", nodes[:1], failing, {})[0].verified_looking is False


def _hit(address: str, verified: bool = True, contested: bool = False, against: tuple[str, ...] = ()) -> FrameHit:
    return FrameHit(
        address=address,
        store="memory" if address.startswith("mem:") else "zk",
        tier="practice" if address.startswith("mem:") else "canon",
        title=address,
        type="claim",
        matched=["costs"],
        verified_looking=verified,
        contested=contested,
        contradicted_by=list(against),
    )


@pytest.mark.parametrize(
    ("hits", "zk_in_scope", "status"),
    [
        ([_hit("mem:tree:a"), _hit("zk:r:b")], True, "established"),
        ([_hit("mem:tree:a"), _hit("mem:tree:b"), _hit("zk:r:c", verified=False)], True, "thin"),
        ([_hit("zk:r:a"), _hit("zk:r:b")], True, "thin"),
        ([_hit("mem:tree:a")], True, "thin"),
        ([], True, "thin"),
        ([_hit("mem:tree:a"), _hit("mem:tree:b")], False, "established"),
        ([_hit("mem:tree:a"), _hit("zk:r:b"), _hit("zk:r:c", contested=True)], True, "contested"),
        ([_hit("mem:tree:a", against=("zk:r:x",)), _hit("zk:r:b")], True, "contested"),
    ],
    ids=[
        "one verified hit from each store",
        "no verified canon",
        "canon only",
        "a single hit",
        "no hits",
        "memory-only scope needs two memory hits",
        "a hit contested in the debate map",
        "a hit contradicted across the overlay",
    ],
)
def test_facet_status_follows_the_documented_rule(hits: list[FrameHit], zk_in_scope: bool, status: str) -> None:
    assert facet_status(hits, zk_in_scope=zk_in_scope)[0] == status


def test_a_contested_reason_names_the_hit_and_why() -> None:
    _, reason = facet_status([_hit("mem:tree:a", against=("zk:r:x",))], zk_in_scope=True)
    assert reason == "mem:tree:a is contradicted by zk:r:x"


# --- the demo -----------------------------------------------------------------------------------------------------

QUESTION = "What do we know about transaction costs, volatility scaling and tax liability?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> tuple[Workspace, Stores, Embedder]:
    workspace = load_workspace(build_demo(tmp_path_factory.mktemp("frame") / "ws"))
    stores = Stores.load(workspace)
    build_overlay(workspace, stores, embedder, kind="claim")
    return workspace, stores, embedder


@pytest.mark.both_backends
def test_demo_facets_are_established_contested_and_thin_with_the_hits_that_make_them(
    demo: tuple[Workspace, Stores, Embedder],
) -> None:
    workspace, stores, embedder = demo
    result = run_frame(workspace, stores, embedder, FrameParams(question=QUESTION, model="extractive"))
    assert result.decomposition == "extractive" and result.model.provider == "extractive"
    statuses = {facet.facet: facet.status for facet in result.facets}
    assert statuses == {"transaction costs": "established", "volatility scaling": "contested", "tax liability": "thin"}
    costs, scaling, tax = result.facets
    assert {h.store for h in costs.hits if h.verified_looking} == {"memory", "zk"}
    assert any(h.address == "zk:research:20260505-0900-volatility-scaling-helps" and h.contested for h in scaling.hits)
    assert tax.hits == []
    assert result.summary == "3 facet(s): 1 established, 1 contested, 1 thin"
    assert [o.kind for o in result.overlays] == ["claim", "generic"]
    assert [o.drift for o in result.overlays] == ["fresh", "missing"]


@pytest.mark.both_backends
def test_demo_memory_only_scope_returns_only_practice_hits(demo: tuple[Workspace, Stores, Embedder]) -> None:
    workspace, stores, embedder = demo
    result = run_frame(workspace, stores, embedder, FrameParams(question=QUESTION, projects=[], model="extractive"))
    assert all(h.store == "memory" for facet in result.facets for h in facet.hits)


@pytest.mark.both_backends
def test_demo_model_proposed_facets_replace_the_split(demo: tuple[Workspace, Stores, Embedder]) -> None:
    workspace, stores, embedder = demo
    model = FakeModel("Holdout discipline\nCost model")
    result = run_frame(workspace, stores, embedder, FrameParams(question=QUESTION), model=model)
    assert (result.decomposition, result.model.provider) == ("model", "fake")
    assert [f.facet for f in result.facets] == ["Holdout discipline", "Cost model"]
    assert QUESTION in model.history[0].text


@pytest.mark.both_backends
def test_demo_an_unusable_model_reply_falls_back_to_the_split_and_says_so(
    demo: tuple[Workspace, Stores, Embedder],
) -> None:
    workspace, stores, embedder = demo
    result = run_frame(workspace, stores, embedder, FrameParams(question=QUESTION), model=FakeModel("\n \n"))
    assert result.decomposition == "extractive"
    assert "no usable facet" in result.note
    assert [f.facet for f in result.facets] == ["transaction costs", "volatility scaling", "tax liability"]


def test_a_blank_question_is_refused() -> None:
    with pytest.raises(ValueError, match="blank"):
        FrameParams(question="   ")


@pytest.mark.both_backends
def test_the_frame_command_prints_each_facet_with_its_status(
    demo: tuple[Workspace, Stores, Embedder], capsys: pytest.CaptureFixture[str]
) -> None:
    workspace, _, _ = demo
    assert cli.main(["frame", QUESTION, "--root", str(workspace.root), "--model", "extractive"]) == 0
    out = capsys.readouterr().out
    assert "[established] transaction costs" in out and "[contested] volatility scaling" in out
    assert "[thin] tax liability" in out
    assert cli.main(["frame", " ", "--root", str(workspace.root)]) == 2


@pytest.mark.parametrize(
    ("values", "parameter"),
    [
        ({"question": "costs\x00"}, "question"),
        ({"question": "costs", "projects": ["../escape"]}, "projects"),
        ({"question": "costs", "projects": ["a:b"]}, "projects"),
        ({"question": "costs", "limit": 0}, "limit"),
        ({"question": "costs", "surprise": 1}, "surprise"),
    ],
)
def test_frame_parameters_are_validated_and_the_error_names_the_parameter(
    values: dict[str, object], parameter: str
) -> None:
    with pytest.raises(InvalidInput) as caught:
        params_from(FrameParams, values)
    assert caught.value.detail["parameter"] == parameter
