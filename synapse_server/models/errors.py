"""The typed failures of the model providers.

Every provider failure is a :class:`ModelError`, so navigate and the overlay
features can turn any of them into one structured ``failure`` without knowing
which provider ran. Messages and details are built to be shown publicly: they
never carry an API key or the prompt, only names (of env vars, providers,
commands), status codes and bounded, redacted tails of what the provider said.
"""

from __future__ import annotations

from collections.abc import Iterable

from synapse_server.errors import InvalidInput, SynapseError

# How much of a provider's own words (stderr, an HTTP error body) an error keeps.
TAIL_CHARS = 600


class ModelError(SynapseError):
    """Base of every model-provider failure."""

    kind = "model_error"
    exit_code = 1


class ModelSpecError(ModelError, InvalidInput):
    """The spec string is empty, names an unknown provider, or lacks its argument."""

    kind = "model_spec_invalid"
    exit_code = 2


class ModelMisconfigured(ModelError, InvalidInput):
    """The provider is known but cannot run as configured: a missing key, URL, file or executable."""

    kind = "model_misconfigured"
    exit_code = 2


class ModelTransportError(ModelError):
    """The provider could not be reached, or answered with an HTTP error status."""

    kind = "model_transport"


class ModelBadResponse(ModelError):
    """The provider answered, but not in the shape its API promises (bad JSON, missing fields)."""

    kind = "model_bad_response"


class ModelCommandFailed(ModelError):
    """A ``command:`` provider exited non-zero; the detail keeps the exit status and the stderr tail."""

    kind = "model_command_failed"


class ModelTimeout(ModelError):
    """A request or command ran past its timeout (a command's whole process group is killed first)."""

    kind = "model_timeout"


class ModelExhausted(ModelError):
    """A recorded script (or a fake) has no reply left for this call."""

    kind = "model_exhausted"


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Blank every secret out of ``text`` so that a provider echoing a key cannot leak it."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def tail(text: str, limit: int = TAIL_CHARS) -> str:
    """The last ``limit`` characters, marked as cut when they are: error detail stays bounded."""
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]
