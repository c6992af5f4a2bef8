"""What a model provider is: one class declaring what its spec takes, where it reaches, and how it builds its model.

A provider is registered once, in ``models/spec.py``'s ``PROVIDER_REGISTRY``;
parsing a spec, the trust rule for a workspace's own ``model:``, the tool's
open-world hint, which providers can serve build's typer and the lenses, and
the provider table of docs/models.md are all read from those declarations,
so no list of provider names is kept anywhere else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, NamedTuple

from synapse_server.models.base import Model, ModelOptions


class Argument(NamedTuple):
    """What a provider's spec argument is: its placeholder in the docs (``PATH``) and its words in an error."""

    placeholder: str
    what: str


@dataclass(frozen=True)
class ProviderContext:
    """Where a spec meets the machine: the environment, the workspace folder, the call's options."""

    env: Mapping[str, str]
    explicit_env: bool
    """True when the caller passed ``env``: then it is also the whole environment a child process gets."""
    cwd: Path
    options: ModelOptions


class Provider(ABC):
    """One way to reach a model; subclasses declare the class attributes and implement :meth:`build`."""

    name: ClassVar[str]
    """The spec's ``PROVIDER`` part."""
    argument: ClassVar[Argument | None] = None
    """What follows the colon; ``None`` for a provider written alone (``extractive``)."""
    reaches_outside: ClassVar[bool] = False
    """Runs a process or sends text over a network: the workspace config alone may not choose it (needs the
    user's opt-in), and the MCP tool is marked open-world under it. False means it runs offline."""
    key_env: ClassVar[tuple[str, ...]] = ()
    """Environment variables holding its key (required with the provider's hosted default address)."""
    serves_typer_and_lenses: ClassVar[bool] = True
    """False when build's typer and the lenses cannot call it and run their deterministic offline paths."""
    runs: ClassVar[str]
    """What it runs, for the docs table."""
    use: ClassVar[str]
    """Its typical use, for the docs table."""

    def check(self, argument: str) -> None:
        """Refuse an argument that cannot work before any environment is read (``ModelSpecError``)."""
        return None

    @abstractmethod
    def build(self, argument: str | None, context: ProviderContext) -> Model:
        """The model the spec names; configuration it depends on (keys, files) is checked here."""

    @property
    def spec_form(self) -> str:
        """How a spec for it is written: ``extractive``, ``script:PATH``."""
        return self.name if self.argument is None else f"{self.name}:{self.argument.placeholder}"
