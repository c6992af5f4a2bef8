"""The executor's refusals are typed: the loop decides on a kind, while the words stay those a person reads."""

from __future__ import annotations

from memdsl import ActionCall
from synapse_server.navigation.executor import RefusalKind, execute
from synapse_server.navigation.substrate import Substrate
from tests.support.engine_builders import node, substrate, view_of

HUB, A, B = "mem:tree:hub", "mem:tree:a", "mem:tree:b"


def _sub() -> Substrate:
    return substrate([node(HUB, "Hub.", links=[A, B]), node(A, "a"), node(B, "b")])


def test_each_refusal_carries_its_kind_and_the_same_words_as_before() -> None:
    sub = _sub()
    actions = [ActionCall("expand", ("n1",), ()), ActionCall("ground", ("n9",), ())]
    done = execute(view_of(sub, [HUB]), sub, actions, loop_cap=40, hops_left=0, max_body_chars=100)
    assert [r.kind for r in done.refused] == [RefusalKind.HOP_BUDGET, RefusalKind.UNKNOWN_REF]
    assert [str(r) for r in done.refused] == ["expand: hop budget exhausted", "ground: unknown ref n9"]


def test_a_node_cap_refusal_is_its_own_kind() -> None:
    sub = _sub()
    actions = [ActionCall("expand", ("n1",), ())]
    done = execute(view_of(sub, [HUB]), sub, actions, loop_cap=2, hops_left=1, max_body_chars=100)
    assert [r.kind for r in done.refused] == [RefusalKind.NODE_CAP]
    assert str(done.refused[0]) == "expand: node cap reached, 1 node(s) not admitted"
