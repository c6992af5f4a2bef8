"""``host``: the MCP host's own model navigates, one reply per tool call, with no second model and no key.

MCP sampling (the server borrowing the host's model) is deprecated and
offered by almost no client, so the host model is reached the other way
round: a navigate call returns the prompt as a *pending turn*, and the host
model answers it with another call, ``synapse(action="navigate", turn=…,
reply=…)``. Nothing of the turn stays in memory between those calls; each
step replays the whole loop from the start over the replies recorded so far
(:class:`HostModel`), which is cheap (assembly, not model work) and means
the engine's state is always the state its own code derives.

A replay is only valid on the same evidence: each recorded reply answered a
prompt whose digest was recorded beside it, and the replay checks that it
produces the same prompt again before it hands the reply over
(:class:`StaleTurn` otherwise: a store changed between two steps). When the
replay runs out of replies the turn suspends (:class:`ReplyPending`) with
the prompt the host must answer next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from synapse_server.models.base import Completion, Model, ModelIdentity, Prompt
from synapse_server.models.provider import Provider, ProviderContext

PROVIDER = "host"
DIGEST_CHARS = 16


def prompt_digest(prompt: Prompt) -> str:
    """What identifies a prompt across servers: a hash of the system part and the turn part, never their text."""
    hasher = hashlib.sha256()
    for part in (prompt.system or "", prompt.text):
        data = part.encode("utf-8")
        hasher.update(len(data).to_bytes(8, "big"))
        hasher.update(data)
    return hasher.hexdigest()[:DIGEST_CHARS]


class ReplyPending(Exception):
    """The next reply comes from the host in a later call; the loop suspends here with this prompt."""

    def __init__(self, prompt: Prompt, step: int) -> None:
        super().__init__(f"step {step} waits for the host's reply")
        self.prompt = prompt
        self.step = step
        self.digest = prompt_digest(prompt)


class StaleTurn(Exception):
    """A replayed step met a different prompt than the one its reply answered: the evidence changed."""

    def __init__(self, step: int) -> None:
        super().__init__(f"the evidence changed since step {step} was answered")
        self.step = step


class HostTranscript(BaseModel):
    """What a host step replays: the client that answers, its replies so far and the prompts they answered."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    client: str = Field("", max_length=200)
    replies: list[str] = Field(default_factory=list)
    digests: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _paired(self) -> HostTranscript:
        if len(self.replies) != len(self.digests):
            raise ValueError("every recorded reply needs the digest of the prompt it answered")
        return self

    def model(self) -> HostModel:
        return HostModel(self.client, self.replies, self.digests)


class HostModel(Model):
    """Replays the host's recorded replies in order, each only against the prompt it answered.

    ``replies[i]`` answered a prompt with digest ``digests[i]``; a reply past the recorded digests (the
    host's newest, answering the prompt the last pending turn showed) is checked against ``digests`` too,
    so ``len(digests) == len(replies)`` always.
    """

    def __init__(self, client: str, replies: Sequence[str] = (), digests: Sequence[str] = ()) -> None:
        if len(replies) != len(digests):
            raise ValueError("every recorded reply needs the digest of the prompt it answered")
        self.identity = ModelIdentity(PROVIDER, client or "unknown client")
        self._replies = tuple(replies)
        self._digests = tuple(digests)
        self._next = 0

    def execute(self, prompt: Prompt) -> Completion:
        step = self._next + 1
        if self._next >= len(self._replies):
            raise ReplyPending(prompt, step)
        if prompt_digest(prompt) != self._digests[self._next]:
            raise StaleTurn(step)
        reply = self._replies[self._next]
        self._next += 1
        return Completion(reply, None, self.identity)


class HostProvider(Provider):
    """``host``: offline from Synapse's side (the host's model answers through navigate), navigate only."""

    name = PROVIDER
    serves_typer_and_lenses = False
    runs = "the MCP host's own model, through pending turns (navigate only)"
    use = "the default of `synapse serve`"

    def build(self, argument: str | None, context: ProviderContext) -> Model:
        """A host model with no replies yet: its first call suspends the turn; the MCP layer replays the rest."""
        return HostModel("")
