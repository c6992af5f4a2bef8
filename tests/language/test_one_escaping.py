"""One escaping of untrusted text: the CLI's writer and the card's text agree on which characters are unsafe."""

from __future__ import annotations

import json

import pytest

from synapse_server.cli.terminal import escape_controls
from synapse_server.language.safe_text import escape_unsafe, is_unsafe, terminal_safe

SAMPLE = [chr(c) for c in (*range(0x00, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x2028, 0x2030), *range(0x2066, 0x206A))]


@pytest.mark.parametrize("char", SAMPLE, ids=lambda c: f"U+{ord(c):04X}")
def test_the_writer_and_the_card_escape_the_same_characters(char: str) -> None:
    whitespace = char in "\t\n\r"
    assert (escape_controls(char) != char) == (is_unsafe(char) and char not in "\t\n")
    assert (terminal_safe(char) != char) == (is_unsafe(char) or whitespace)


def test_the_writer_spelling_is_a_json_escape_and_round_trips() -> None:
    text = "a\x1b[31mb\u202ec\x7fd\u2028e"
    spelled = escape_controls(text)
    assert "\x1b" not in spelled and "\u202e" not in spelled
    assert json.loads(f'"{spelled}"') == text


def test_the_card_spelling_is_visible_and_short() -> None:
    assert terminal_safe("a\x1bb\u202ec") == "a\\x1bb\\u202ec"


def test_kept_characters_pass_through_unchanged() -> None:
    assert escape_unsafe("a\rb\x07", keep="\r", spelling="json") == "a\rb\\u0007"
