"""A test double for every model-backed feature: queue replies, then read what was asked.

It is deliberately not reachable from a spec string, so no configuration can
put a fake in front of a user. Tests across the suite use it instead of mocking
our own code, in the manner of ``llm``'s mock model.
"""

from __future__ import annotations

from synapse_server.models.base import Completion, Model, ModelIdentity, Prompt, Usage
from synapse_server.models.errors import ModelExhausted


class FakeModel(Model):
    """Answers with enqueued replies in order; records every :class:`Prompt` in ``history``."""

    def __init__(self, *replies: str | Completion, identity: ModelIdentity | None = None) -> None:
        self.identity = identity or ModelIdentity("fake", "fake")
        self.history: list[Prompt] = []
        self._queue: list[Completion] = []
        self.enqueue(*replies)

    def enqueue(self, *replies: str | Completion) -> None:
        """Add replies; a plain string gets ``usage=None`` and this model's identity."""
        for reply in replies:
            self._queue.append(reply if isinstance(reply, Completion) else Completion(reply, None, self.identity))

    def execute(self, prompt: Prompt) -> Completion:
        self.history.append(prompt)
        if not self._queue:
            raise ModelExhausted(
                f"fake model has no reply queued for call {len(self.history)}", provider=self.identity.provider
            )
        return self._queue.pop(0)


def counted(text: str, input_tokens: int, output_tokens: int, identity: ModelIdentity | None = None) -> Completion:
    """A reply with usage, for tests of the token budget."""
    return Completion(text, Usage(input_tokens, output_tokens), identity or ModelIdentity("fake", "fake"))
