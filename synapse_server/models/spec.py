"""Model spec strings: where they come from, what they mean, and the model each one builds.

A spec is ``PROVIDER`` or ``PROVIDER:ARGUMENT``, split at the first colon only,
so arguments keep their own colons (``openai:llama3.1:8b``,
``command:llm -m x``). The same string is accepted from config ``model:``, env
``SYNAPSE_MODEL`` and CLI ``--model`` so a user writes it one way everywhere.
Resolution is where a spec meets the environment: keys, base URLs and script
files are checked then, so a misconfiguration fails before a turn starts.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from synapse_server.errors import ConfigError
from synapse_server.models.anthropic_api import AnthropicProvider
from synapse_server.models.base import Model, ModelOptions
from synapse_server.models.command import CommandProvider
from synapse_server.models.errors import ModelMisconfigured, ModelSpecError
from synapse_server.models.host import HostProvider
from synapse_server.models.openai_compat import OpenAIProvider
from synapse_server.models.provider import Provider, ProviderContext
from synapse_server.models.script import ScriptProvider

ENV_VAR = "SYNAPSE_MODEL"
TRUST_ENV = "SYNAPSE_TRUST_WORKSPACE_MODEL"
"""Set to 1 to let ``model:`` and ``index.dsn`` in the workspace's own config start a process or reach a network."""
_TRUE = frozenset({"1", "true", "yes", "on"})
DEFAULT_SPEC = "extractive"
"""The model when nothing names one, on the CLI and the dashboard; ``synapse serve`` defaults to ``host``."""
SERVE_DEFAULT_SPEC = "host"
EXTRACTIVE_MODULE = "synapse_server.navigation.extractive"


class ExtractiveProvider(Provider):
    """``extractive``: the offline navigator, which lives with the engine and is imported only when built.

    ``models/`` sits below ``navigation/``, so the class is named by its module path rather than imported.
    It is not a typer: build and the lenses run their deterministic paths under it.
    """

    name = "extractive"
    serves_typer_and_lenses = False
    runs = "the deterministic offline navigator (no model at all)"
    use = "the CLI's default; demos, tests"
    module = EXTRACTIVE_MODULE

    def build(self, argument: str | None, context: ProviderContext) -> Model:
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as error:
            if error.name != self.module:
                raise
            raise ModelMisconfigured("extractive: the offline navigator is not installed", provider=self.name) from None
        model: Model = module.ExtractiveModel()
        return model


PROVIDER_REGISTRY: Mapping[str, Provider] = MappingProxyType(
    {
        provider.name: provider
        for provider in (
            ExtractiveProvider(),
            HostProvider(),
            ScriptProvider(),
            CommandProvider(),
            OpenAIProvider(),
            AnthropicProvider(),
        )
    }
)
"""Every provider a spec may name, registered once; the views below are read from it."""
PROVIDERS: tuple[str, ...] = tuple(PROVIDER_REGISTRY)
OUTSIDE_PROVIDERS = frozenset(name for name, p in PROVIDER_REGISTRY.items() if p.reaches_outside)
"""Providers that run a process or send the prompt over a network: a committed config alone cannot choose them."""
OFFLINE_PROVIDERS = frozenset(name for name, p in PROVIDER_REGISTRY.items() if not p.reaches_outside)
"""Providers that run nothing and send nothing anywhere: the MCP tool is not open-world under them."""
NO_MODEL_OUTSIDE_NAVIGATE = frozenset(name for name, p in PROVIDER_REGISTRY.items() if not p.serves_typer_and_lenses)
"""Specs under which build's typer and the lenses work deterministically: the extractive navigator is not a
typer, and the host model is reached only through navigate's pending turns."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: the provider name and its argument (``None`` for a provider that takes none)."""

    provider: str
    argument: str | None = None

    def __str__(self) -> str:
        return self.provider if self.argument is None else f"{self.provider}:{self.argument}"


def runs_offline(spec: str) -> bool:
    """True when ``spec`` names a registered provider that runs no process and reaches no network."""
    return spec.strip().partition(":")[0] in OFFLINE_PROVIDERS


def providers_table() -> str:
    """The markdown table of providers docs/models.md shows between its ``providers`` markers."""
    rows = [
        "| spec | what it runs | typical use | offline | key | build's typer and the lenses |",
        "|---|---|---|---|---|---|",
    ]
    for p in PROVIDER_REGISTRY.values():
        offline = "no: needs your opt-in from the config" if p.reaches_outside else "yes"
        key = ", ".join(f"`{name}`" for name in p.key_env) or "—"
        typer = "yes" if p.serves_typer_and_lenses else "no (deterministic paths)"
        rows.append(f"| `{p.spec_form}` | {p.runs} | {p.use} | {offline} | {key} | {typer} |")
    return "\n".join(rows)


def parse_model_spec(spec: str) -> ModelSpec:
    """Split and check a spec string without touching the environment; raises :class:`ModelSpecError`."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSpecError("the model spec is empty; expected one of: " + ", ".join(PROVIDERS))
    provider, colon, argument = spec.strip().partition(":")
    entry = PROVIDER_REGISTRY.get(provider)
    if entry is None:
        raise ModelSpecError(
            f"unknown model provider {provider!r}; expected one of: " + ", ".join(PROVIDERS), provider=provider
        )
    if entry.argument is None:
        if colon:
            raise ModelSpecError(f"{provider} takes no argument; write just {provider!r}", provider=provider)
        return ModelSpec(provider)
    if not argument.strip():
        raise ModelSpecError(f"{provider}: needs {entry.argument.what}, as {provider}:…", provider=provider)
    entry.check(argument)
    return ModelSpec(provider, argument.strip())


def resolve_model(
    spec: str | ModelSpec,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    options: ModelOptions | None = None,
) -> Model:
    """Build the model a spec names; ``env`` defaults to the process environment, ``cwd`` to the current directory.

    ``cwd`` anchors relative ``script:`` paths and is where ``command:`` runs; an explicit ``env`` is
    also the whole environment a ``command:`` child gets (otherwise it inherits this process's).
    """
    parsed = spec if isinstance(spec, ModelSpec) else parse_model_spec(spec)
    provider = PROVIDER_REGISTRY.get(parsed.provider)
    if provider is None:
        raise ModelSpecError(f"unknown model provider {parsed.provider!r}", provider=parsed.provider)
    context = ProviderContext(
        env=os.environ if env is None else env,
        explicit_env=env is not None,
        cwd=Path.cwd() if cwd is None else cwd,
        options=options or ModelOptions(),
    )
    return provider.build(parsed.argument, context)


@dataclass(frozen=True)
class SpecOrigin:
    """The spec in force, where it came from, and whether it may run.

    ``trusted`` is False only for a spec whose provider reaches outside the
    machine (``command:``, ``openai:``, ``anthropic:``) that comes from the
    workspace's ``.synapse/config.yaml`` without the user's opt-in: that file
    is committed content (a cloned repository chooses it), so it may not
    start a process or send the project's text over a network on its own.
    """

    spec: str
    source: Literal["--model", "env", "config", "default"]
    trusted: bool


def model_spec_origin(
    config_value: str | None, env: Mapping[str, str], cli_value: str | None, default: str = DEFAULT_SPEC
) -> SpecOrigin:
    """CLI ``--model`` over env ``SYNAPSE_MODEL`` over config ``model:`` over ``default``, with the trust verdict.

    A blank ``SYNAPSE_MODEL`` counts as unset (as shells leave it); a CLI value
    is taken as given, so an explicit but empty ``--model`` fails to parse
    instead of silently falling back.
    """
    if cli_value is not None:
        return SpecOrigin(cli_value, "--model", True)
    from_env = env.get(ENV_VAR, "")
    if from_env.strip():
        return SpecOrigin(from_env, "env", True)
    if config_value is None:
        return SpecOrigin(default, "default", True)
    provider = config_value.strip().partition(":")[0]
    return SpecOrigin(config_value, "config", provider not in OUTSIDE_PROVIDERS or trusts_workspace(env))


def trusts_workspace(env: Mapping[str, str]) -> bool:
    """Whether the user opted in (``SYNAPSE_TRUST_WORKSPACE_MODEL``) to what the workspace config reaches outside
    the machine on its own: its ``model:`` (a process, a network) and its ``index.dsn`` (a database)."""
    return env.get(TRUST_ENV, "").strip().lower() in _TRUE


def model_spec_from(
    config_value: str | None, env: Mapping[str, str], cli_value: str | None, default: str = DEFAULT_SPEC
) -> str:
    """The spec in force (see :func:`model_spec_origin`); an untrusted one is a :class:`ConfigError` naming ``model``."""
    origin = model_spec_origin(config_value, env, cli_value, default)
    if not origin.trusted:
        provider = origin.spec.strip().partition(":")[0]
        raise ConfigError(
            f".synapse/config.yaml: model: a {provider}: model from the workspace config runs a process or reaches a "
            f"network, so it needs your opt-in: pass it with --model or {ENV_VAR}, or set {TRUST_ENV}=1 to trust "
            "this workspace's model",
            key="model",
            file=".synapse/config.yaml",
        )
    return origin.spec
