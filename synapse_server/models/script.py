"""``script:PATH``: replay recorded replies, so navigation can be tested and benchmarked offline.

A ``.json`` file holds a list of replies for successive calls; each reply is a
string, or an object ``{"text": …, "usage": {"input_tokens": …, "output_tokens": …}}``
when the recording kept the provider's usage (the navigate budget reads it).
Running past the end is a :class:`ModelExhausted` error, never a silent repeat,
because a replay that needs more turns than were recorded has diverged. Any
other file is one reply returned for every call. The file is read when the
model is resolved, so a bad recording fails before any work starts.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from adapters.paths import read_regular_bytes
from synapse_server.models.base import Completion, Model, ModelIdentity, Prompt, Usage
from synapse_server.models.errors import ModelExhausted, ModelMisconfigured
from synapse_server.models.provider import Argument, Provider, ProviderContext

PROVIDER = "script"


class ScriptModel(Model):
    """Returns recorded replies in order (``.json``) or one fixed reply (any other file)."""

    def __init__(self, path: Path, *, label: str | None = None) -> None:
        # The identity carries the path as the spec spelled it, not the resolved absolute path.
        self.identity = ModelIdentity(PROVIDER, label if label is not None else path.name)
        self._lock = threading.Lock()
        self._next = 0
        self._repeat: str | None = None
        self._replies: list[Completion] = []
        try:
            text = read_regular_bytes(path).decode("utf-8")  # a FIFO named by a config must not block the turn
        except (OSError, UnicodeDecodeError) as error:
            reason = (error.strerror or str(error)) if isinstance(error, OSError) else type(error).__name__
            raise ModelMisconfigured(f"script: cannot read {self.identity.id}: {reason}", provider=PROVIDER) from None
        if path.suffix.lower() == ".json":
            self._replies = [self._reply(item, index) for index, item in enumerate(self._load_list(text))]
        else:
            self._repeat = text

    @property
    def remaining(self) -> int | None:
        """Replies left in a JSON script; ``None`` for a plain file, which never runs out."""
        return None if self._repeat is not None else len(self._replies) - self._next

    def execute(self, prompt: Prompt) -> Completion:
        if self._repeat is not None:
            return Completion(self._repeat, None, self.identity)
        with self._lock:
            if self._next >= len(self._replies):
                raise ModelExhausted(
                    f"script {self.identity.id} is exhausted: all {len(self._replies)} recorded replies were used",
                    provider=PROVIDER,
                    replies=len(self._replies),
                )
            reply = self._replies[self._next]
            self._next += 1
        return reply

    def _load_list(self, text: str) -> list[object]:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ModelMisconfigured(
                f"script {self.identity.id} is not valid JSON (line {error.lineno}, column {error.colno})",
                provider=PROVIDER,
            ) from None
        if not isinstance(data, list):
            raise ModelMisconfigured(f"script {self.identity.id} must hold a JSON list of replies", provider=PROVIDER)
        return data

    def _reply(self, item: object, index: int) -> Completion:
        if isinstance(item, str):
            return Completion(item, None, self.identity)
        if isinstance(item, dict) and isinstance(item.get("text"), str) and set(item) <= {"text", "usage"}:
            return Completion(item["text"], self._usage(item.get("usage"), index), self.identity)
        raise ModelMisconfigured(
            f'script {self.identity.id}: reply {index} must be a string or {{"text", "usage"}}',
            provider=PROVIDER,
            index=index,
        )

    def _usage(self, usage: object, index: int) -> Usage | None:
        if usage is None:
            return None
        if isinstance(usage, dict) and set(usage) == {"input_tokens", "output_tokens"}:
            counted = Usage.from_counts(usage["input_tokens"], usage["output_tokens"])
            if counted is not None:
                return counted
        raise ModelMisconfigured(
            f"script {self.identity.id}: reply {index} has a malformed usage", provider=PROVIDER, index=index
        )


class ScriptProvider(Provider):
    """``script:PATH``: reads a file of the workspace, runs nothing and sends nothing anywhere."""

    name = PROVIDER
    argument = Argument("PATH", "a file path")
    runs = "replays recorded replies"
    use = "tests, the benchmark, replay"

    def build(self, argument: str | None, context: ProviderContext) -> Model:
        assert argument is not None
        return ScriptModel(context.cwd / argument, label=argument)
