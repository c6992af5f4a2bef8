from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdsl._body import TEXT_CODEC, codec_for
from memdsl.address import Address, parse_address
from memdsl.errors import MemDSLParseError
from memdsl.render import (
    AFFORDANCE_VERBS,
    GAP_TOKENS,
    STATUSES,
    Affordance,
    Gap,
    Render,
    RenderNode,
    parse_render,
    serialize_render,
)
from tests.support.properties import document_property
from tests.support.render_strategies import PROTOCOL_LOOKING, mutated, renders

HERE = Path(__file__).parent
PROPERTY = document_property()

# One fixture per rule: file stem -> (code, line, column).
INVALID = {
    "render_carriage_return": ("text.carriage_return", 1, 10),
    "render_header_missing": ("render.header", 1, 1),
    "render_header_not_first": ("render.header", 1, 1),
    "render_wrong_direction_out": ("render.wrong_direction", 1, 1),
    "render_wrong_direction_resp": ("render.wrong_direction", 1, 1),
    "render_version": ("render.version", 1, 1),
    "render_focus_empty": ("render.focus_empty", 2, 6),
    "render_focus_ref": ("render.focus_ref", 2, 7),
    "render_focus_list_syntax": ("render.focus_ref", 2, 7),
    "render_focus_duplicate": ("render.focus_duplicate", 2, 11),
    "render_focus_unknown_ref": ("render.focus_unknown_ref", 2, 11),
    "render_focus_position": ("render.focus_position", 3, 1),
    "render_focus_repeated": ("render.focus_position", 3, 1),
    "render_double_space": ("line.spacing", 2, 9),
    "render_trailing_space": ("line.spacing", 2, 46),
    "render_indented_line": ("line.spacing", 3, 1),
    "render_blank_line": ("line.blank", 4, 1),
    "render_trailing_blank_line": ("line.blank", 3, 1),
    "render_unknown_line": ("line.unknown", 4, 1),
    "render_node_after_gap": ("block.node_after_gap", 4, 1),
    "render_title_outside_node": ("block.outside_node", 2, 1),
    "render_field_after_gap": ("block.outside_node", 4, 1),
    "render_frame_outside_body": ("body.outside_body", 4, 1),
    "render_node_arity": ("node.arity", 2, 1),
    "render_node_ref": ("node.ref", 2, 6),
    "render_node_address": ("address.arity", 2, 9),
    "render_node_address_locator": ("address.span", 2, 19),
    "render_node_type": ("node.type", 2, 29),
    "render_node_status": ("node.status", 2, 38),
    "render_node_elided_marker": ("node.elided_marker", 2, 47),
    "render_node_duplicate_ref": ("node.duplicate_ref", 4, 6),
    "render_field_order": ("node.field_order", 4, 1),
    "render_field_repeated": ("node.field_repeated", 4, 1),
    "render_body_repeated": ("body.unframed_line", 5, 1),
    "render_title_empty": ("node.title_empty", 3, 6),
    "render_prov_empty": ("node.prov_empty", 3, 5),
    "render_aff_empty": ("aff.empty", 3, 4),
    "render_aff_syntax": ("aff.syntax", 3, 16),
    "render_aff_verb": ("aff.verb", 3, 16),
    "render_aff_ref": ("aff.ref", 3, 12),
    "render_aff_duplicate": ("aff.duplicate", 3, 16),
    "render_aff_unknown_ref": ("aff.unknown_ref", 3, 21),
    "render_body_marker": ("body.marker", 3, 5),
    "render_body_frame_no_space": ("body.frame", 5, 2),
    "render_body_frame_trailing_space": ("body.frame", 4, 2),
    "render_body_empty": ("body.empty", 3, 1),
    "render_body_unframed_answer": ("body.unframed_line", 5, 1),
    "render_body_unframed_header": ("body.unframed_line", 5, 1),
    "render_body_unframed_blank": ("body.unframed_line", 5, 1),
    "render_body_unframed_title": ("body.unframed_line", 5, 1),
    "render_gap_arity": ("gap.arity", 2, 30),
    "render_gap_token": ("gap.token", 2, 5),
    "render_gap_detail_empty": ("gap.detail_empty", 2, 31),
    "render_gap_address": ("address.separator", 2, 21),
}


def read(path: Path) -> str:
    # Bytes, not text mode: newline translation would hide the '\r' fixtures.
    return path.read_bytes().decode("utf-8")


def node(ref: str = "n1", **fields: object) -> RenderNode:
    values: dict[str, object] = {"address": parse_address("mem:tree:x"), "type": "decision", "status": "grounded"}
    values.update(fields)
    return RenderNode(ref, **values)  # type: ignore[arg-type]


def error_of(value: Render) -> tuple[str, int, int]:
    with pytest.raises(MemDSLParseError) as info:
        serialize_render(value)
    return info.value.code, info.value.line, info.value.column


# --- golden files ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(HERE.glob("golden/render_*.txt")), ids=lambda p: p.stem)
def test_golden_render_texts_are_canonical(path: Path) -> None:
    text = read(path)
    assert serialize_render(parse_render(text)) == text


def test_there_are_at_least_three_render_golden_files() -> None:
    assert len(list(HERE.glob("golden/render_*.txt"))) >= 3


def test_the_seed_envelope_keeps_its_literal_answer_line_as_body_data() -> None:
    value = parse_render(read(HERE / "golden/render_seed.txt"))
    assert value.focus == ("n1",)
    first, second = value.nodes
    assert first.body == "Transaction costs increased from 5 bps to 8 bps.\n@answer"
    assert first.aff == (Affordance("expand", "n1"), Affordance("ground", "n1"))
    assert first.prov == ("file:models/costs.py@3f7c2e1",)
    assert (second.ref, second.type, second.status, second.elided) == ("n2", "dataset", "measured", True)
    assert [gap.token for gap in value.gaps] == ["elided", "outdated"]
    assert value.gaps[1].detail == "grounded as of the pinned sha"


def test_forged_structure_inside_a_body_stays_one_node() -> None:
    value = parse_render(read(HERE / "golden/render_hostile_bodies.txt"))
    assert [n.ref for n in value.nodes] == ["n1", "n2", "n3"]
    body = value.nodes[0].body
    assert body is not None
    assert "node n9 mem:tree:forged decision grounded" in body.split("\n")
    assert value.nodes[0].title == "  Higher costs reduce net returns (leading spaces kept)"
    assert value.nodes[1].body == ""
    assert value.nodes[2].body is None


# --- invalid fixtures --------------------------------------------------------------------------


def test_every_render_error_code_is_in_the_documented_table() -> None:
    documented = set(
        re.findall(r"`([a-z]+\.[a-z_]+)`", (HERE.parents[1] / "docs" / "memdsl.md").read_text(encoding="utf-8"))
    )
    assert {code for code, _, _ in INVALID.values()} <= documented


def test_every_render_invalid_fixture_has_an_expectation_and_vice_versa() -> None:
    assert {p.stem for p in HERE.glob("invalid/render_*.txt")} == set(INVALID)


@pytest.mark.parametrize("stem", sorted(INVALID))
def test_invalid_render_fixture_fails_with_its_code_and_position(stem: str) -> None:
    with pytest.raises(MemDSLParseError) as info:
        parse_render(read(HERE / "invalid" / f"{stem}.txt"))
    assert (info.value.code, info.value.line, info.value.column) == INVALID[stem]


# --- text-level decisions ----------------------------------------------------------------------


def test_a_missing_final_newline_is_tolerated_and_restored() -> None:
    text = read(HERE / "golden/render_seed.txt")
    assert parse_render(text.rstrip("\n")) == parse_render(text)
    assert serialize_render(parse_render(text.rstrip("\n"))) == text


def test_an_empty_envelope_is_just_the_header() -> None:
    assert parse_render("@memdsl/1\n") == Render()
    assert serialize_render(Render()) == "@memdsl/1\n"


def test_non_str_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_render(b"@memdsl/1\n")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        serialize_render("@memdsl/1\n")  # type: ignore[arg-type]


def test_an_empty_body_is_one_bare_frame_and_no_body_is_no_marker() -> None:
    text = serialize_render(Render(nodes=(node(body=""), node("n2"))))
    assert text.splitlines()[1:] == [
        "node n1 mem:tree:x decision grounded",
        "body",
        "|",
        "node n2 mem:tree:x decision grounded",
    ]


def test_a_trailing_newline_in_a_body_is_an_empty_last_frame() -> None:
    value = Render(nodes=(node(body="a\n"),))
    assert serialize_render(value).endswith("body\n| a\n|\n")
    assert parse_render(serialize_render(value)) == value


def test_unknown_node_types_use_the_plain_text_body_codec() -> None:
    assert codec_for("never-registered.type") is TEXT_CODEC
    value = Render(nodes=(node(type="Never_Registered.type-2", body="| x\n@answer"),))
    assert parse_render(serialize_render(value)) == value


def test_vocabularies_are_exactly_the_specified_ones() -> None:
    assert STATUSES == ("grounded", "measured", "inferred")
    assert GAP_TOKENS == ("stale", "unresolved", "missing", "elided", "outdated")
    assert AFFORDANCE_VERBS == ("expand", "join", "ground", "prune")


def test_values_are_hashable_and_compare_by_value() -> None:
    value = parse_render(read(HERE / "golden/render_seed.txt"))
    assert hash(value) == hash(parse_render(read(HERE / "golden/render_seed.txt")))
    assert Gap("stale", parse_address("a:b:c"), "d") < Gap("unresolved", parse_address("a:b:c"), "d")


# --- serializer guards -------------------------------------------------------------------------


def test_serializing_a_title_with_a_newline_is_refused_at_its_line() -> None:
    assert error_of(Render(nodes=(node(title="one\ntwo"),))) == ("field.line_break", 3, 10)


def test_serializing_a_prov_or_detail_with_a_carriage_return_is_refused() -> None:
    assert error_of(Render(nodes=(node(prov=("a", "b\r")),))) == ("text.carriage_return", 4, 7)
    gap = Gap("stale", parse_address("a:b:c"), "x\ry")
    assert error_of(Render(gaps=(gap,))) == ("text.carriage_return", 2, 18)


def test_serializing_a_body_with_a_carriage_return_is_refused_at_its_frame_line() -> None:
    assert error_of(Render(nodes=(node(body="ok\nbad\r\n"),))) == ("text.carriage_return", 5, 1)


def test_serializing_empty_free_text_is_refused() -> None:
    assert error_of(Render(nodes=(node(title=""),)))[0] == "node.title_empty"
    assert error_of(Render(nodes=(node(prov=("",)),)))[0] == "node.prov_empty"
    assert error_of(Render(gaps=(Gap("stale", parse_address("a:b:c"), ""),)))[0] == "gap.detail_empty"


def test_serializing_a_ref_that_is_not_n_digits_is_refused() -> None:
    for ref in ("x1", "n01", "n0", "n1 ", "n١"):
        assert error_of(Render(nodes=(node(ref),))) == ("node.ref", 2, 6), ref


def test_serializing_a_duplicate_ref_is_refused_at_the_second_node() -> None:
    assert error_of(Render(nodes=(node("n1", title="t"), node("n1")))) == ("node.duplicate_ref", 4, 6)


def test_serializing_an_unknown_status_type_or_gap_token_is_refused() -> None:
    assert error_of(Render(nodes=(node(status="verified"),))) == ("node.status", 2, 29)
    assert error_of(Render(nodes=(node(type="two words"),))) == ("node.type", 2, 20)
    assert error_of(Render(gaps=(Gap("contested", parse_address("a:b:c"), "d"),))) == ("gap.token", 2, 5)


def test_serializing_bad_affordances_is_refused() -> None:
    assert error_of(Render(nodes=(node(aff=(Affordance("answer", "n1"),)),)))[0] == "aff.verb"
    assert error_of(Render(nodes=(node(aff=(Affordance("join", "1"),)),)))[0] == "aff.ref"
    twice = (Affordance("join", "n1"), Affordance("join", "n1"))
    assert error_of(Render(nodes=(node(aff=twice),))) == ("aff.duplicate", 3, 14)
    assert error_of(Render(nodes=(node(aff=(Affordance("join", "n2"),)),))) == ("aff.unknown_ref", 3, 10)


def test_serializing_a_focus_that_names_no_node_is_refused() -> None:
    assert error_of(Render(focus=("n2",), nodes=(node(),))) == ("render.focus_unknown_ref", 2, 7)
    assert error_of(Render(focus=("n1", "n1"), nodes=(node(),))) == ("render.focus_duplicate", 2, 11)
    assert error_of(Render(focus=("first",), nodes=(node(),))) == ("render.focus_ref", 2, 7)


def test_serializing_lists_where_tuples_belong_is_refused() -> None:
    assert error_of(Render(nodes=[node()]))[0] == "value.type"  # type: ignore[arg-type]
    assert error_of(Render(nodes=(node(prov=["a"]),)))[0] == "value.type"
    assert error_of(Render(nodes=(node(address="mem:tree:x"),)))[0] == "value.type"
    assert error_of(Render(nodes=(node(elided=1),)))[0] == "value.type"


# --- properties --------------------------------------------------------------------------------


@PROPERTY
@given(renders())
def test_parse_inverts_serialize_for_any_render(value: Render) -> None:
    text = serialize_render(value)
    assert parse_render(text) == value
    assert text.endswith("\n") and not text.endswith("\n\n")


@PROPERTY
@given(st.text())
def test_arbitrary_text_raises_only_parse_errors(text: str) -> None:
    for candidate in (text, "@memdsl/1\n" + text):
        with contextlib.suppress(MemDSLParseError):
            parse_render(candidate)


@PROPERTY
@given(st.lists(st.sampled_from([*PROTOCOL_LOOKING, "body", "node n1 a:b:c t grounded", "aff join:n1"]), max_size=8))
def test_protocol_looking_line_soup_raises_only_parse_errors(lines: list[str]) -> None:
    try:
        value = parse_render("\n".join(["@memdsl/1", *lines]))
    except MemDSLParseError:
        return
    assert parse_render(serialize_render(value)) == value


@PROPERTY
@given(st.data())
def test_mutated_envelopes_fail_cleanly_or_are_canonical(data: st.DataObject) -> None:
    text = data.draw(renders().map(serialize_render).flatmap(mutated))
    try:
        value = parse_render(text)
    except MemDSLParseError:
        return
    assert serialize_render(value) == (text if text.endswith("\n") else text + "\n")


def test_address_positions_inside_a_node_line_point_at_the_address() -> None:
    with pytest.raises(MemDSLParseError) as info:
        parse_render("@memdsl/1\nnode n12 mem::x decision grounded\n")
    assert (info.value.code, info.value.line, info.value.column) == ("address.segment", 2, 14)
    assert isinstance(parse_render("@memdsl/1\nnode n12 m:s:x t inferred\n").nodes[0].address, Address)
