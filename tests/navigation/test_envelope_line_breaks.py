"""Only ``\\n`` ends an envelope line: every other line break in a body is shown as a visible escape.

A consumer that splits with Unicode line breaking (Python's ``str.splitlines``,
JavaScript's ``/m``) must see the same lines as the MemDSL parser, or a body
line holding U+2028 or a form feed would surface as an unframed line there.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memdsl import parse_render, serialize_render
from synapse_server.language.safe_text import LINE_BREAKS
from synapse_server.navigation.envelope import render_envelope
from tests.support.engine_builders import node, substrate, view_of
from tests.support.properties import document_property

BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
PROPERTY = document_property()
ADDRESSES = ("mem:tree:a", "mem:tree:b", "zk:research:c")


def same_lines(text: str) -> bool:
    return text.splitlines() == text.removesuffix("\n").split("\n")


PIECES = [*BREAKS, "\n", "\r\n", " ", "|", "| ", "a", "node n1", "\\", "é", "\u202e"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@PROPERTY
@given(
    bodies=st.lists(texts, min_size=1, max_size=3),
    titles=st.lists(texts, min_size=3, max_size=3),
    limit=st.sampled_from([0, 1, 7, 30]),
)
def test_every_envelope_splits_into_the_same_lines_under_unicode_line_breaking(
    bodies: list[str], titles: list[str], limit: int
) -> None:
    nodes = [
        node(address, body, title=title, provenance=(title,))
        for address, body, title in zip(ADDRESSES, bodies, titles, strict=False)
    ]
    text = serialize_render(render_envelope(view_of(substrate(nodes)), limit))
    assert same_lines(text)
    for shown in parse_render(text).nodes:
        assert shown.body is None or not any(char in shown.body for char in BREAKS)


def test_each_line_break_in_a_body_is_shown_as_its_escape_on_a_framed_line() -> None:
    body = "one\x0btwo\x0cthree\x85four\u2028five\u2029six\x1cseven\x1deight\x1enine\nten"
    text = serialize_render(render_envelope(view_of(substrate([node("mem:tree:a", body)])), 0))
    assert "| one\\x0btwo\\x0cthree\\x85four\\u2028five\\u2029six\\x1cseven\\x1deight\\x1enine\n| ten\n" in text
    assert same_lines(text)


def test_the_escaped_set_is_every_character_python_splits_a_line_at_except_newline() -> None:
    splits = {chr(code) for code in range(0x110000) if len(f"a{chr(code)}b".splitlines()) == 2}
    assert splits - {"\n"} == set(LINE_BREAKS)
    assert {"\r", "\u2028", "\u2029"} <= set(LINE_BREAKS)  # JavaScript's line terminators besides \n
