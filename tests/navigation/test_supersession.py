"""Supersession is an epistemic fact: the record keeps its status and carries the canonical disclosure."""

from __future__ import annotations

import pytest

from adapters.base import Edge, Node, Tether, TetherCheck, TetherKind
from synapse_server.navigation.epistemics import derive
from synapse_server.navigation.supersession import current_first, disclosure, supersession_of

PIN = Tether(TetherKind.GIT_PIN, "doc/adr/0002-use-mysql.md", "abc")


def record(address: str, *, meta: dict[str, object] | None = None, edges: tuple[Edge, ...] = ()) -> Node:
    return Node(
        address, "decision", address, "We will use MySQL.", "memory", tethers=(PIN,), meta=meta or {}, edges=edges
    )


def test_a_superseded_record_keeps_its_status_and_names_what_replaces_it() -> None:
    node = record(
        "mem:adr:0002-use-mysql",
        meta={"adr_status": "superseded", "status": "superseded"},
        edges=(Edge("mem:adr:0002-use-mysql", "mem:adr:0005-use-postgres", "superseded-by"),),
    )
    facts = derive(node, [TetherCheck(PIN, "ok", "ok")])
    assert (facts.status, facts.superseded, facts.superseded_by) == ("grounded", True, ("mem:adr:0005-use-postgres",))
    assert facts.superseded_disclosure == (
        "mem:adr:0002-use-mysql is superseded by mem:adr:0005-use-postgres (status: superseded)"
    )


@pytest.mark.parametrize(
    ("meta", "word"),
    [
        pytest.param({"adr_status": "deprecated", "status": "superseded"}, "deprecated", id="adr-own-word-wins"),
        pytest.param({"adr_status": "reverted"}, "reverted", id="reverted"),
        pytest.param({"adr_status": "rejected", "status": "abandoned"}, "rejected", id="rejected"),
        pytest.param({"adr_status": "partly superseded", "status": "active"}, "partly superseded", id="partly"),
        pytest.param({"status": "superseded"}, "superseded", id="memory-tree-status"),
        pytest.param({"mem_status": "Retracted", "status": "abandoned"}, "retracted", id="memdsl-status"),
    ],
)
def test_every_not_current_status_word_is_the_word_the_disclosure_shows(meta: dict[str, object], word: str) -> None:
    found = supersession_of(record("mem:adr:0002-x", meta=meta))
    assert found is not None and found.word == word
    assert disclosure("mem:adr:0002-x", found) == f"mem:adr:0002-x is not current (status: {word})"


@pytest.mark.parametrize("meta", [{"adr_status": "accepted", "status": "active"}, {"status": "done"}, {}])
def test_a_current_record_has_no_supersession(meta: dict[str, object]) -> None:
    facts = derive(record("mem:adr:0001-x", meta=meta), [TetherCheck(PIN, "ok", "ok")])
    assert (facts.superseded, facts.supersession, facts.superseded_by, facts.superseded_disclosure) == (
        False,
        None,
        (),
        None,
    )


def test_a_superseded_by_edge_alone_marks_an_accepted_record_superseded() -> None:
    edge = Edge("mem:tree:a", "mem:tree:b", "superseded-by")
    found = supersession_of(record("mem:tree:a", meta={"status": "active"}, edges=(edge,)))
    assert found is not None and (found.word, found.by) == ("superseded", ("mem:tree:b",))


def test_a_partly_superseded_record_says_partly() -> None:
    edge = Edge("mem:adr:0002-x", "mem:adr:0007-y", "superseded-by")
    found = supersession_of(record("mem:adr:0002-x", meta={"adr_status": "partly superseded"}, edges=(edge,)))
    assert found is not None
    assert disclosure("mem:adr:0002-x", found) == (
        "mem:adr:0002-x is partly superseded by mem:adr:0007-y (status: partly superseded)"
    )


def test_a_status_word_on_a_code_file_is_not_supersession() -> None:
    node = Node("repo:x:notes.md", "file", "notes", "", "code", meta={"status": "superseded"})
    assert supersession_of(node) is None


def test_current_first_lifts_a_superseding_record_to_the_place_of_what_it_replaces() -> None:
    newer = {"a": ("b",), "b": ("c",)}
    order = current_first(["x", "a", "y", "b", "c", "z"], lambda address: newer.get(address, ()))
    assert order == ["x", "c", "b", "a", "y", "z"]


def test_current_first_never_adds_a_record_and_survives_a_cycle() -> None:
    newer = {"a": ("b", "absent"), "b": ("a",)}
    order = current_first(["a", "b", "q"], lambda address: newer.get(address, ()))
    assert sorted(order) == ["a", "b", "q"] and order.index("b") < order.index("a")
