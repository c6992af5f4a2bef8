"""The scripted navigator: replays a case's hand-written replies, filling refs from the live envelope.

Local refs (``n3``) are assigned at assembly, so a reply written by hand
cannot know them. A reply may therefore name a node by its canonical address
in a template, resolved against the ``=== ENVELOPE ===`` section of the prompt
the engine actually sent for that call:

``{ref:ADDRESS}``
    the local ref the envelope gave ADDRESS. If ADDRESS is not rendered, the
    case is broken (retrieval changed under it) and :class:`TemplateError` is
    raised: a broken case must fail loudly, never answer from a guess.
``{outside:ADDRESS}``
    ADDRESS itself, after checking that it is *not* rendered: for cases that
    cite or expand a node the envelope does not hold.

Canonical addresses may also be written literally: the OUTPUT grammar accepts
them wherever a ref goes. Running out of replies raises :class:`ModelExhausted`,
like the ``script:`` provider, because a run that needs more turns than were
written has diverged from the case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dev.synapse_bench.canonical.cases import Reply
from synapse_server.models import Completion, Model, ModelExhausted, ModelIdentity, Prompt, Usage
from synapse_server.navigation.prompt import sections

_TEMPLATE = re.compile(r"\{(ref|outside):([^{}\s]+)\}")


class TemplateError(Exception):
    """A reply template names a node the envelope does not (or, for ``outside``, does) render."""


class ScriptedNavigator(Model):
    """Returns the case's replies in order, templates filled per call; keeps every prompt in ``history``."""

    def __init__(self, replies: Sequence[Reply], label: str) -> None:
        self.identity = ModelIdentity("script", f"canonical:{label}")
        self.history: list[Prompt] = []
        self._replies = list(replies)

    def execute(self, prompt: Prompt) -> Completion:
        self.history.append(prompt)
        if len(self.history) > len(self._replies):
            raise ModelExhausted(
                f"canonical script {self.identity.id} has no reply for call {len(self.history)}",
                provider=self.identity.provider,
            )
        reply = self._replies[len(self.history) - 1]
        text = fill(reply.text, rendered_refs(prompt.text))
        usage = None
        if reply.input_tokens is not None or reply.output_tokens is not None:
            usage = Usage(reply.input_tokens or 0, reply.output_tokens or 0)
        return Completion(text, usage, self.identity)


def rendered_refs(prompt: str) -> dict[str, str]:
    """Canonical address -> local ref for every node line of the prompt's envelope (first ref wins)."""
    refs: dict[str, str] = {}
    for line in sections(prompt).get("ENVELOPE", "").splitlines():
        fields = line.split(" ")
        if len(fields) >= 5 and fields[0] == "node":
            refs.setdefault(fields[2], fields[1])
    return refs


def fill(text: str, refs: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        kind, address = match.group(1), match.group(2)
        if kind == "ref":
            if address not in refs:
                raise TemplateError(f"{address} is not rendered in the envelope")
            return refs[address]
        if address in refs:
            raise TemplateError(f"{address} is rendered as {refs[address]}, but the case needs it outside")
        return address

    return _TEMPLATE.sub(replace, text)
