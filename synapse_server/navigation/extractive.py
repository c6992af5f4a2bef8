"""``extractive``: the deterministic, offline navigator. It writes real artifacts, never fake prose.

It reads the question and the envelope back from the prompt's sections,
chooses the one atomic unit that answers the question's focus (the rules are
in :mod:`synapse_server.navigation.focus` and docs/navigation.md) and restates it
verbatim as an OUTPUT v2 answer citing its node. When no unit answers the
focus in the form the question asks for, or the question names something no
rendered node mentions, it writes ``@abstain low-coverage``. It does not
judge the evidence: when the chosen unit sits on a stale, refuted or
unresolved node it still cites it, and the grounding router — not this
navigator — abstains with the specific reason.
"""

from __future__ import annotations

from memdsl import Abstention, Answer, Binding, Claim, MemDSLParseError, Output, parse_render, serialize_output
from synapse_server.models.base import Completion, Model, ModelIdentity, Prompt
from synapse_server.navigation.focus import Refusal, choose
from synapse_server.navigation.prompt import sections

PROVIDER = "extractive"


class ExtractiveModel(Model):
    """Deterministic restatement navigator; says honestly that it is not an LLM."""

    def __init__(self) -> None:
        self.identity = ModelIdentity(PROVIDER, "extractive-v2 (offline restatement navigator, not an LLM)")

    def execute(self, prompt: Prompt) -> Completion:
        found = sections(prompt.text)
        question, envelope = found.get("QUESTION", ""), found.get("ENVELOPE", "")
        try:
            render = parse_render(envelope + "\n")
        except MemDSLParseError:
            return self._reply(_abstain("the envelope could not be read"))
        choice = choose(question, render)
        if isinstance(choice, Refusal):
            return self._reply(_abstain(choice.detail))
        text = choice.text
        claim = Claim(id="c1", form="restatement", cites=(choice.ref,), premises=(), derive=None, text=text)
        answer = Answer(claims=(claim,), prose=text, bindings=(Binding("c1", text, 0, len(text)),), conclusion="c1")
        return self._reply(Output(version=2, actions=(), terminal=answer))

    def _reply(self, output: Output) -> Completion:
        return Completion(text=serialize_output(output), usage=None, model=self.identity)


def _abstain(detail: str) -> Output:
    return Output(version=2, actions=(), terminal=Abstention("low-coverage", detail))
