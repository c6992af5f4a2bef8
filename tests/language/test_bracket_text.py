"""Bracket text is text: only real link syntax loses its brackets when Markdown becomes plain text."""

from __future__ import annotations

import pytest

from synapse_server.language.text import markup_tokens, plain_text


@pytest.mark.parametrize(
    "source",
    [
        "The guard is [0-5][0-9] for minutes.",
        "The guard is `[0-5][0-9]` for minutes.",
        "- [x] done, [ ] open, [[Daily note]] linked",
        "| pattern | meaning |\n|---|---|\n| [a-z][0-9] | one letter, one digit |",
        "A regex class [^a] and a pair [a][b] in prose.",
    ],
)
def test_brackets_that_are_not_link_syntax_keep_every_character(source: str) -> None:
    for token in ("[0-5][0-9]", "[a-z][0-9]", "[[Daily note]]", "[a][b]", "[^a]"):
        if token in source:
            assert token in plain_text(source), (token, plain_text(source))


def test_a_reference_link_is_link_syntax_only_when_the_document_defines_its_label() -> None:
    defined = "We cache with [Redis][cache] today.\n\n[cache]: https://redis.io"
    assert plain_text(defined) == "We cache with Redis today.", "a definition's destination is not prose"
    undefined = "We cache with [Redis][cache] today."
    assert plain_text(undefined) == undefined
    assert plain_text("Labels match [case][Cache].\n\n[cache]: x") == "Labels match case."


def test_inline_links_and_images_still_lose_their_syntax() -> None:
    assert plain_text("See [Redis](https://redis.io) and ![a chart](c.png).") == "See Redis and a chart."


def test_a_claim_quoting_bracket_text_is_not_refused_as_markup() -> None:
    assert markup_tokens("The guard is [0-5][0-9].") == ()
    assert markup_tokens("See [Redis](https://redis.io).") == ("[Redis](https://redis.io)",)
