"""A body several admitted nodes share is rendered once; the others are one-line aliases that stay citable."""

from __future__ import annotations

from dataclasses import replace

from memdsl import parse_render, serialize_render
from synapse_server.navigation.envelope import alias_text, render_envelope
from synapse_server.navigation.substrate import Substrate
from tests.support.engine_builders import answer, decide, node, substrate, view_of

SOURCE = "Costs model.\n\nTransaction costs increased from 5 bps to 8 bps.\n"
FILE, MODULE, OTHER = "repo:demo:models/costs.py", "repo:demo:models.costs", "mem:tree:cost"
SENTENCE = "Transaction costs increased from 5 bps to 8 bps."


def _sub(file_status: str = "grounded") -> Substrate:
    return substrate(
        [
            node(FILE, SOURCE, type="file", status=file_status),
            node(MODULE, SOURCE.rstrip("\n"), type="module"),  # the module's body lacks the final newline
            node(OTHER, SENTENCE),
        ],
        states={FILE: "stale"} if file_status == "inferred" else None,
    )


def _rendered(sub: Substrate, chars: int = 1200, **view_changes: object) -> dict[str, tuple[str, str | None]]:
    view = replace(view_of(sub, [FILE, MODULE, OTHER]), **view_changes)  # type: ignore[arg-type]
    envelope = parse_render(serialize_render(render_envelope(view, chars)))
    return {str(n.address): (n.ref, n.body) for n in envelope.nodes}


def test_a_body_shared_by_a_file_and_its_module_is_shown_once_and_the_other_names_its_carrier() -> None:
    shown = _rendered(_sub())
    assert shown[FILE] == ("n1", SOURCE)
    assert shown[MODULE] == ("n2", alias_text("n1"))
    assert shown[OTHER] == ("n3", SENTENCE)


def test_every_alias_keeps_its_own_header_so_both_refs_stay_citable() -> None:
    view = view_of(_sub(), [FILE, MODULE, OTHER])
    nodes = {str(n.address): n for n in render_envelope(view, 1200).nodes}
    assert (nodes[MODULE].ref, nodes[MODULE].type, nodes[MODULE].status) == ("n2", "module", "grounded")
    for ref in ("n1", "n2"):
        decision = decide(answer(f"claim c1 [restatement] cites {ref} :: {SENTENCE}"), view)
        assert (decision.verdict, decision.status) == ("answer", "grounded")


def test_the_strongest_status_node_carries_the_body_even_when_it_comes_later() -> None:
    shown = _rendered(_sub(file_status="inferred"))
    assert shown[MODULE] == ("n2", SOURCE.rstrip("\n"))
    assert shown[FILE] == ("n1", alias_text("n2"))


def test_only_the_carrier_is_elided_and_grounding_the_alias_shows_the_carrier_in_full() -> None:
    sub = _sub()
    view = view_of(sub, [FILE, MODULE])
    envelope = render_envelope(view, 20)
    carrier, alias = envelope.nodes
    assert carrier.elided and [a.verb for a in carrier.aff] == ["ground"]
    assert not alias.elided and alias.aff == ()
    assert [(g.token, str(g.address)) for g in envelope.gaps] == [("elided", FILE)]
    grounded = render_envelope(replace(view, unelided=frozenset({MODULE})), 20)
    assert grounded.nodes[0].body == SOURCE and not grounded.nodes[0].elided
    assert [g.token for g in grounded.gaps] == []


def test_with_aliasing_off_every_node_shows_its_own_body() -> None:
    shown = _rendered(_sub(), alias_duplicates=False)
    assert shown[FILE][1] == SOURCE and shown[MODULE][1] == SOURCE.rstrip("\n")
