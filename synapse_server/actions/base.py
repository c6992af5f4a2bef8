"""What every action declares: its parameter model, its handler, and how the tool describes it.

Keeping the description and the parameter model next to the handler is what
makes adding an action one line in the dispatch table: the tool's input schema
and its description are generated from these specs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from synapse_server.names import check_text as check_text  # re-exported: the actions' parameter models use it

if TYPE_CHECKING:
    from synapse_server.actions.deps import Deps


class ActionOutput(BaseModel):
    """Base of every action result: a short human ``summary`` first (Claude Code shows only structured content)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    summary: str = Field(..., description="one line for a human reader")

    @property
    def is_error(self) -> bool:
        """True when the result reports an operational failure (the tool sets ``isError``)."""
        return False


class StrictParams(BaseModel):
    """Base of public parameter models: strict types, unknown keys refused, frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


Handler = Callable[[Any, "Deps"], Awaitable[BaseModel]]
"""Takes validated params and the shared deps; returns a model with a ``summary`` (and optionally ``is_error``)."""


@dataclass(frozen=True)
class ActionSpec:
    """One public action: what it does, when an agent should reach for it, and how it runs.

    ``hidden`` names fields of ``params`` that are not part of the public tool
    (navigate's ``model`` override is a server setting, never a caller's choice:
    a ``command:`` spec would let any caller run a program).
    """

    params: type[BaseModel]
    handler: Handler
    does: str
    say: tuple[str, ...]
    writes: bool = False
    hidden: frozenset[str] = frozenset()
    signature: str = ""
    """The parameters the tool description names, where the schema's required list alone would not say
    (navigate: a question starts a turn, turn and reply continue one)."""

    def public_fields(self) -> list[str]:
        return [name for name in self.params.model_fields if name not in self.hidden]
