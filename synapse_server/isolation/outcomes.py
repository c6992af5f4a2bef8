"""Operational failures of a navigate turn, in the public NavigateResult shape.

A timeout, a native crash or an internal error is not an abstention: the
verdict is ``failure``, there is no answer or trace surface, no reasons and no
status. The ``model`` block still says honestly which model was configured.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from pathlib import Path

from synapse_server.models import ModelError, ModelSpecError, model_spec_from, parse_model_spec, resolve_model
from synapse_server.navigation.surfaces import ModelInfo, failure_result

__all__ = ["configured_model", "failure_result", "signal_name"]


def configured_model(
    config_model: str | None, env: Mapping[str, str], override: str | None, cwd: Path | None = None
) -> ModelInfo:
    """The identity the turn's model reports, as the turn would build it (cwd = the workspace root).

    Building a model checks keys and files but contacts nothing; a model that
    cannot be built is still named, from its spec string.
    """
    spec_text = model_spec_from(config_model, env, override)
    try:
        identity = resolve_model(spec_text, env=env, cwd=cwd).identity
        return ModelInfo(provider=identity.provider, id=identity.id)
    except ModelError:
        pass
    try:
        spec = parse_model_spec(spec_text)
    except ModelSpecError:
        provider = spec_text.strip().partition(":")[0] or "unknown"
        return ModelInfo(provider=provider, id=spec_text.strip() or "unknown")
    return ModelInfo(provider=spec.provider, id=spec.argument if spec.argument is not None else spec.provider)


def signal_name(number: int) -> str:
    """``SIGSEGV`` for 11; an unknown number stays a number."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
