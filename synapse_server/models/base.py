"""The one provider protocol every model-backed feature speaks.

navigate, build's relation typer, matrix roll-ups, synthesize briefs and frame
facets all need the same thing from a model: text in, text out, and the token
usage when the provider reports it (the navigate budget prefers real usage to a
chars/4 estimate). Keeping the surface this small is what lets an offline
extractive navigator, a recorded script, a CLI bridge and hosted APIs be
swapped by a spec string.

Subclasses implement exactly one method, :meth:`Model.execute`; the public
:meth:`Model.complete` validates the call once so no provider repeats it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from synapse_server.models.errors import ModelError

DEFAULT_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class Usage:
    """Tokens the provider says it consumed; ``None`` on a completion means it did not say."""

    input_tokens: int
    output_tokens: int

    @classmethod
    def from_counts(cls, input_tokens: object, output_tokens: object) -> Usage | None:
        """Usage from two values a provider reported, or ``None`` unless both are non-negative integers."""
        counted_in, counted_out = _count(input_tokens), _count(output_tokens)
        return None if counted_in is None or counted_out is None else cls(counted_in, counted_out)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


@dataclass(frozen=True)
class ModelIdentity:
    """Which provider and model produced a text, reported honestly with every navigate result."""

    provider: str
    id: str

    def as_dict(self) -> dict[str, str]:
        """The public JSON shape, ``{"provider": …, "id": …}``."""
        return {"provider": self.provider, "id": self.id}


@dataclass(frozen=True)
class Completion:
    """One reply: its text, the provider's usage if reported, and who actually answered."""

    text: str
    usage: Usage | None
    model: ModelIdentity


@dataclass(frozen=True)
class Prompt:
    """One call's input, as :meth:`Model.execute` receives it (and the fake model records it)."""

    text: str
    system: str | None = None
    max_tokens: int | None = None


class ModelOptions(BaseModel):
    """Settings shared by every provider; unknown keys are refused so a typo is never silently ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=3600, description="Wall-clock limit for one call.")
    max_tokens: int | None = Field(
        default=None, ge=1, le=1_000_000, description="Reply cap used when a call does not pass its own max_tokens."
    )
    max_retries: int = Field(
        default=2, ge=0, le=10, description="HTTP providers: retries of a 429 or transient 5xx, within the deadline."
    )
    deadline: float | None = Field(
        default=None,
        description="A time.monotonic() instant no call may run past (the turn's budget); None: timeout_s per call.",
    )


class Model(ABC):
    """A text-completion provider. ``identity`` names it; ``execute`` does the work."""

    identity: ModelIdentity

    def complete(self, prompt: str, *, system: str | None = None, max_tokens: int | None = None) -> Completion:
        """Ask the model once. Raises a :class:`ModelError` subclass on any provider failure."""
        if not isinstance(prompt, str):
            raise ModelError("the prompt must be a string", provider=self.identity.provider)
        if max_tokens is not None and (isinstance(max_tokens, bool) or max_tokens < 1):
            raise ModelError("max_tokens must be a positive integer", provider=self.identity.provider)
        return self.execute(Prompt(prompt, system, max_tokens))

    @abstractmethod
    def execute(self, prompt: Prompt) -> Completion:
        """Provider-specific work for one validated call."""
