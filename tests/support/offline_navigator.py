"""Ask the offline ``extractive`` navigator one question over a view, the way a turn would prompt it."""

from __future__ import annotations

from memdsl import Abstention, Answer, parse_output, serialize_render
from synapse_server.navigation.envelope import render_envelope
from synapse_server.navigation.extractive import ExtractiveModel
from synapse_server.navigation.prompt import build_prompt
from synapse_server.navigation.view import View


def ask(question: str, view: View) -> Answer | Abstention:
    """The navigator's terminal for ``question`` over the whole envelope of ``view`` (no elision)."""
    envelope = serialize_render(render_envelope(view, 0))
    prompt = build_prompt(question, envelope, tokens_left=10_000, hops_left=2, focus=[])
    terminal = parse_output(ExtractiveModel().complete(prompt).text).terminal
    assert isinstance(terminal, Answer | Abstention)
    return terminal


def answered(question: str, view: View) -> str:
    """The text of the navigator's first claim; fails the test when it abstains."""
    terminal = ask(question, view)
    assert isinstance(terminal, Answer), terminal
    return terminal.claims[0].text
