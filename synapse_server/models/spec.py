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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from synapse_server.errors import ConfigError
from synapse_server.models.anthropic_api import AnthropicModel
from synapse_server.models.base import Model, ModelOptions
from synapse_server.models.command import CommandModel, split_command
from synapse_server.models.errors import ModelMisconfigured, ModelSpecError
from synapse_server.models.host import HostModel
from synapse_server.models.openai_compat import OpenAIModel
from synapse_server.models.script import ScriptModel

ENV_VAR = "SYNAPSE_MODEL"
TRUST_ENV = "SYNAPSE_TRUST_WORKSPACE_MODEL"
"""Set to 1 to let ``model:`` and ``index.dsn`` in the workspace's own config start a process or reach a network."""
OUTSIDE_PROVIDERS = frozenset({"command", "openai", "anthropic"})
"""Providers that run a process or send the prompt over a network: a committed config alone cannot choose them."""
_TRUE = frozenset({"1", "true", "yes", "on"})
DEFAULT_SPEC = "extractive"
"""The model when nothing names one, on the CLI and the dashboard; ``synapse serve`` defaults to ``host``."""
SERVE_DEFAULT_SPEC = "host"
NO_MODEL_OUTSIDE_NAVIGATE = frozenset({"extractive", "host"})
"""Specs under which build's typer and the lenses work deterministically: the extractive navigator is not a
typer, and the host model is reached only through navigate's pending turns."""
EXTRACTIVE_MODULE = "synapse_server.navigation.extractive"


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: the provider name and its argument (``None`` for ``extractive``)."""

    provider: str
    argument: str | None = None

    def __str__(self) -> str:
        return self.provider if self.argument is None else f"{self.provider}:{self.argument}"


@dataclass(frozen=True)
class _Context:
    env: Mapping[str, str]
    explicit_env: bool
    cwd: Path
    options: ModelOptions


def _extractive(argument: str | None, context: _Context) -> Model:
    """Imported lazily: the extractive navigator pulls in the grounding engine, which other specs never need."""
    try:
        module = importlib.import_module(EXTRACTIVE_MODULE)
    except ModuleNotFoundError as error:
        if error.name != EXTRACTIVE_MODULE:
            raise
        raise ModelMisconfigured("extractive: the offline navigator is not installed", provider="extractive") from None
    model: Model = module.ExtractiveModel()
    return model


def _host(argument: str | None, context: _Context) -> Model:
    """A host model with no replies yet: its first call suspends the turn; the MCP layer replays the rest."""
    return HostModel("")


def _script(argument: str | None, context: _Context) -> Model:
    assert argument is not None
    return ScriptModel(context.cwd / argument, label=argument)


def _command(argument: str | None, context: _Context) -> Model:
    assert argument is not None
    return CommandModel(
        split_command(argument),
        timeout_s=context.options.timeout_s,
        cwd=context.cwd,
        env=context.env if context.explicit_env else None,
    )


def _openai(argument: str | None, context: _Context) -> Model:
    assert argument is not None
    return OpenAIModel.from_env(argument, context.env, context.options)


def _anthropic(argument: str | None, context: _Context) -> Model:
    assert argument is not None
    return AnthropicModel.from_env(argument, context.env, context.options)


# provider -> (takes an argument?, what the argument is, factory)
_PROVIDERS: Mapping[str, tuple[bool, str, Callable[[str | None, _Context], Model]]] = {
    "extractive": (False, "", _extractive),
    "host": (False, "", _host),
    "script": (True, "a file path", _script),
    "command": (True, "a command line", _command),
    "openai": (True, "a model name", _openai),
    "anthropic": (True, "a model name", _anthropic),
}
PROVIDERS: tuple[str, ...] = tuple(_PROVIDERS)


def parse_model_spec(spec: str) -> ModelSpec:
    """Split and check a spec string without touching the environment; raises :class:`ModelSpecError`."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSpecError("the model spec is empty; expected one of: " + ", ".join(PROVIDERS))
    provider, colon, argument = spec.strip().partition(":")
    entry = _PROVIDERS.get(provider)
    if entry is None:
        raise ModelSpecError(
            f"unknown model provider {provider!r}; expected one of: " + ", ".join(PROVIDERS), provider=provider
        )
    takes_argument, what, _ = entry
    if not takes_argument:
        if colon:
            raise ModelSpecError(f"{provider} takes no argument; write just {provider!r}", provider=provider)
        return ModelSpec(provider)
    if not argument.strip():
        raise ModelSpecError(f"{provider}: needs {what}, as {provider}:…", provider=provider)
    if provider == "command":
        split_command(argument)
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
    if parsed.provider not in _PROVIDERS:
        raise ModelSpecError(f"unknown model provider {parsed.provider!r}", provider=parsed.provider)
    context = _Context(
        env=os.environ if env is None else env,
        explicit_env=env is not None,
        cwd=Path.cwd() if cwd is None else cwd,
        options=options or ModelOptions(),
    )
    return _PROVIDERS[parsed.provider][2](parsed.argument, context)


@dataclass(frozen=True)
class SpecOrigin:
    """The spec in force, where it came from, and whether it may run.

    ``trusted`` is False only for a ``command:``/``openai:``/``anthropic:``
    spec that comes from the workspace's ``.synapse/config.yaml`` without the
    user's opt-in: that file is committed content (a cloned repository
    chooses it), so it may not start a process or send the project's text
    over a network on its own.
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
