from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdsl.address import parse_address
from memdsl.errors import MemDSLParseError
from memdsl.render import Affordance, Gap, RenderNode, parse_render
from memdsl.response import RESPONSE_STATUSES, Response, parse_response, serialize_response
from tests.support.properties import document_property
from tests.support.render_strategies import PROTOCOL_LOOKING, mutated, responses

HERE = Path(__file__).parent
PROPERTY = document_property()

# One fixture per rule: file stem -> (code, line, column).
INVALID = {
    "resp_empty_text": ("resp.header", 1, 1),
    "resp_header_missing": ("resp.header", 1, 1),
    "resp_wrong_direction_render": ("resp.wrong_direction", 1, 1),
    "resp_wrong_direction_out": ("resp.wrong_direction", 1, 1),
    "resp_version": ("resp.version", 1, 1),
    "resp_status_missing": ("resp.status_missing", 2, 1),
    "resp_status_value": ("resp.status", 2, 8),
    "resp_status_arity": ("resp.status", 2, 8),
    "resp_status_position": ("resp.status_position", 4, 1),
    "resp_focus_line": ("line.unknown", 3, 1),
    "resp_body_unframed_answer": ("body.unframed_line", 6, 1),
    "resp_aff_unknown_ref": ("aff.unknown_ref", 4, 10),
    "resp_node_after_gap": ("block.node_after_gap", 4, 1),
}


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def claim(ref: str = "n3", **fields: object) -> RenderNode:
    values: dict[str, object] = {"address": parse_address("zk:research:x"), "type": "claim", "status": "grounded"}
    values.update(fields)
    return RenderNode(ref, **values)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", sorted(HERE.glob("golden/resp_*.txt")), ids=lambda p: p.stem)
def test_golden_response_texts_are_canonical(path: Path) -> None:
    text = read(path)
    assert serialize_response(parse_response(text)) == text


def test_there_are_at_least_three_response_golden_files() -> None:
    assert len(list(HERE.glob("golden/resp_*.txt"))) >= 3


def test_the_seed_response_reads_as_one_grounded_claim() -> None:
    value = parse_response(read(HERE / "golden/resp_seed.txt"))
    assert value == Response(
        "ok",
        (
            RenderNode(
                "n3",
                parse_address("zk:research:transaction-costs"),
                "claim",
                "grounded",
                title="Higher costs reduce net returns",
                prov=("cite:paper-17#p8",),
                aff=(Affordance("expand", "n3"),),
                body="Higher transaction costs reduce net returns.",
            ),
        ),
    )


def test_a_status_line_inside_a_body_is_data() -> None:
    value = parse_response(read(HERE / "golden/resp_partial.txt"))
    assert value.status == "partial"
    assert value.nodes[0].body is not None and value.nodes[0].body.endswith("\n@answer\nstatus error")


def test_every_response_error_code_is_in_the_documented_table() -> None:
    documented = set(
        re.findall(r"`([a-z]+\.[a-z_]+)`", (HERE.parents[1] / "docs" / "memdsl.md").read_text(encoding="utf-8"))
    )
    assert {code for code, _, _ in INVALID.values()} <= documented


def test_every_response_invalid_fixture_has_an_expectation_and_vice_versa() -> None:
    assert {p.stem for p in HERE.glob("invalid/resp_*.txt")} == set(INVALID)


@pytest.mark.parametrize("stem", sorted(INVALID))
def test_invalid_response_fixture_fails_with_its_code_and_position(stem: str) -> None:
    with pytest.raises(MemDSLParseError) as info:
        parse_response(read(HERE / "invalid" / f"{stem}.txt"))
    assert (info.value.code, info.value.line, info.value.column) == INVALID[stem]


def test_a_response_is_never_read_as_an_envelope_and_vice_versa() -> None:
    response = read(HERE / "golden/resp_seed.txt")
    envelope = read(HERE / "golden/render_seed.txt")
    with pytest.raises(MemDSLParseError) as info:
        parse_render(response)
    assert (info.value.code, info.value.line) == ("render.wrong_direction", 1)
    with pytest.raises(MemDSLParseError) as info:
        parse_response(envelope)
    assert (info.value.code, info.value.line) == ("resp.wrong_direction", 1)


def test_the_status_vocabulary_is_ok_partial_error() -> None:
    assert RESPONSE_STATUSES == ("ok", "partial", "error")
    for status in RESPONSE_STATUSES:
        assert parse_response(f"@memdsl.resp/1\nstatus {status}") == Response(status)


def test_mut_and_impact_seams_are_never_emitted() -> None:
    for value in (Response("ok", mut=("assert n1",)), Response("ok", impact=(("n1", "changed"),))):
        with pytest.raises(MemDSLParseError) as info:
            serialize_response(value)
        assert info.value.code == "resp.unshipped_seam"


def test_serializing_an_unknown_status_is_refused_at_line_two() -> None:
    with pytest.raises(MemDSLParseError) as info:
        serialize_response(Response("done"))
    assert (info.value.code, info.value.line, info.value.column) == ("resp.status", 2, 8)


def test_serializer_guards_apply_to_response_blocks_with_response_lines() -> None:
    with pytest.raises(MemDSLParseError) as info:
        serialize_response(Response("ok", (claim(title="a\nb"),)))
    assert (info.value.code, info.value.line, info.value.column) == ("field.line_break", 4, 8)
    with pytest.raises(MemDSLParseError) as info:
        serialize_response(Response("error", gaps=(Gap("gone", parse_address("a:b:c"), "d"),)))
    assert (info.value.code, info.value.line) == ("gap.token", 3)


def test_non_str_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_response(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        serialize_response("status ok")  # type: ignore[arg-type]


@PROPERTY
@given(responses())
def test_parse_inverts_serialize_for_any_response(value: Response) -> None:
    assert parse_response(serialize_response(value)) == value


@PROPERTY
@given(st.text())
def test_arbitrary_text_raises_only_parse_errors(text: str) -> None:
    for candidate in (text, "@memdsl.resp/1\nstatus ok\n" + text):
        with contextlib.suppress(MemDSLParseError):
            parse_response(candidate)


@PROPERTY
@given(st.lists(st.sampled_from([*PROTOCOL_LOOKING, "body", "node n1 a:b:c t grounded", "status partial"]), max_size=8))
def test_protocol_looking_line_soup_raises_only_parse_errors(lines: list[str]) -> None:
    try:
        value = parse_response("\n".join(["@memdsl.resp/1", *lines]))
    except MemDSLParseError:
        return
    assert parse_response(serialize_response(value)) == value


@PROPERTY
@given(st.data())
def test_mutated_responses_fail_cleanly_or_are_canonical(data: st.DataObject) -> None:
    text = data.draw(responses().map(serialize_response).flatmap(mutated))
    try:
        value = parse_response(text)
    except MemDSLParseError:
        return
    assert serialize_response(value) == (text if text.endswith("\n") else text + "\n")
