"""``extractive``: the deterministic, offline navigator. It writes real artifacts, never fake prose.

It reads the question and the envelope back from the prompt's sections,
scores every atomic unit of every rendered body by how many of the question's
content words it contains, and restates the best unit verbatim as an OUTPUT v2
answer citing its node. When no unit covers enough of the question it writes
``@abstain low-coverage``. It does not judge the evidence: when the best unit
sits on a stale, refuted or unresolved node it still cites it, and the
grounding router — not this navigator — abstains with the specific reason.
Ties prefer verified nodes, then the earlier ref, then the earlier unit.
"""

from __future__ import annotations

import re

from memdsl import Abstention, Answer, Binding, Claim, MemDSLParseError, Output, parse_render, serialize_output
from memdsl.render import Render
from synapse_server.models.base import Completion, Model, ModelIdentity, Prompt
from synapse_server.navigation.atoms import atomic_units
from synapse_server.navigation.prompt import sections
from synapse_server.navigation.text import normalise_words

MIN_SHARE = 0.6
"""Fraction of the question's content words a unit must contain to be offered as an answer."""

MIN_MATCHED = 2
_STOP = frozenset(
    """a an the of to in on at by for from with about into over under after before during between and or but
    not no is are was were be been being do does did done has have had having what which who whom whose when
    where why how much many more most less least than then this that these those it its they them their our
    we you your i me my he she his her can could should would will shall may might must there here as if so
    such any some each every all both either neither up down out off again also only just very per via vs
    one ones use used using uses get got make made tell show give""".split()
)
_STATUS_RANK = {"grounded": 2, "measured": 2, "inferred": 0}
_SAFE_TEXT = re.compile(r"^[^\x00-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]+$")


class ExtractiveModel(Model):
    """Deterministic restatement navigator; says honestly that it is not an LLM."""

    def __init__(self) -> None:
        self.identity = ModelIdentity("extractive", "extractive-v1 (offline restatement navigator, not an LLM)")

    def execute(self, prompt: Prompt) -> Completion:
        found = sections(prompt.text)
        question, envelope = found.get("QUESTION", ""), found.get("ENVELOPE", "")
        try:
            render = parse_render(envelope + "\n")
        except MemDSLParseError:
            return self._reply(_abstain("the envelope could not be read"))
        best = best_unit(question, render)
        if best is None:
            return self._reply(_abstain("no rendered evidence states an answer to the question"))
        ref, text = best
        claim = Claim(id="c1", form="restatement", cites=(ref,), premises=(), derive=None, text=text)
        answer = Answer(claims=(claim,), prose=text, bindings=(Binding("c1", text, 0, len(text)),), conclusion="c1")
        return self._reply(Output(version=2, actions=(), terminal=answer))

    def _reply(self, output: Output) -> Completion:
        return Completion(text=serialize_output(output), usage=None, model=self.identity)


def content_words(text: str) -> set[str]:
    return {_stem(w) for w in normalise_words(text) if w not in _STOP and (len(w) > 1 or w.isdigit())}


def best_unit(question: str, render: Render) -> tuple[str, str] | None:
    """The (ref, unit text) that best answers ``question``, or None when nothing covers enough of it."""
    wanted = content_words(question)
    if not wanted:
        return None
    scored: list[tuple[float, int, int, int, str, str]] = []
    for position, node in enumerate(render.nodes):
        if node.body is None:
            continue
        units = atomic_units(node.body)
        if node.elided:
            units = units[:-1]  # the last unit of a cut body may be cut mid-sentence
        for index, unit in enumerate(units):
            text = unit.text.strip()
            if not text or not _SAFE_TEXT.match(text):
                continue
            matched = len(wanted & content_words(text))
            if matched < min(MIN_MATCHED, len(wanted)) or matched / len(wanted) < MIN_SHARE:
                continue
            scored.append((matched / len(wanted), _STATUS_RANK[node.status], -position, -index, node.ref, text))
    if not scored:
        return None
    top = max(scored)
    return top[4], top[5]


def _abstain(detail: str) -> Output:
    return Output(version=2, actions=(), terminal=Abstention("low-coverage", detail))


def _stem(word: str) -> str:
    """A tiny, deterministic stemmer: enough to match 'costs'/'cost', 'rebalances'/'rebalance'."""
    if word.isdigit():
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 4 else word
