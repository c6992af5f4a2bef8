"""``anthropic:MODEL``: the Anthropic Messages API.

The Messages API requires ``max_tokens`` on every request, so a call that does
not pass one gets :data:`DEFAULT_MAX_TOKENS` (or the options' cap). The key is
required for the hosted default URL; a gateway named by ``ANTHROPIC_BASE_URL``
may do without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synapse_server.models.base import Completion, Model, ModelIdentity, ModelOptions, Prompt, Usage
from synapse_server.models.errors import ModelBadResponse, ModelMisconfigured
from synapse_server.models.transport import check_base_url, post_json

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
PROVIDER = "anthropic"


class AnthropicModel(Model):
    """POSTs ``{base}/v1/messages`` and joins the reply's text blocks."""

    def __init__(self, model: str, *, base_url: str, api_key: str | None, options: ModelOptions) -> None:
        self.identity = ModelIdentity(PROVIDER, model)
        self._base_url = check_base_url(base_url, env_var="ANTHROPIC_BASE_URL")
        self._api_key = api_key
        self._options = options

    @classmethod
    def from_env(cls, model: str, env: Mapping[str, str], options: ModelOptions) -> AnthropicModel:
        """Read ``ANTHROPIC_BASE_URL`` and ``ANTHROPIC_API_KEY``; a key is mandatory only for the hosted default."""
        base_url = env.get("ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_BASE_URL
        api_key = env.get("ANTHROPIC_API_KEY") or None
        if api_key is None and base_url.rstrip("/") == DEFAULT_ANTHROPIC_BASE_URL:
            raise ModelMisconfigured("anthropic: set ANTHROPIC_API_KEY", provider=PROVIDER, env_var="ANTHROPIC_API_KEY")
        return cls(model, base_url=base_url, api_key=api_key, options=options)

    def execute(self, prompt: Prompt) -> Completion:
        body: dict[str, Any] = {
            "model": self.identity.id,
            "max_tokens": prompt.max_tokens or self._options.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt.text}],
        }
        if prompt.system is not None:
            body["system"] = prompt.system
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        reply = post_json(
            f"{self._base_url}/v1/messages",
            body,
            headers=headers,
            timeout_s=self._options.timeout_s,
            provider=PROVIDER,
            secrets=(self._api_key,),
        )
        served = reply.get("model")
        identity = ModelIdentity(PROVIDER, served) if isinstance(served, str) and served else self.identity
        return Completion(_text_of(reply), _usage_of(reply), identity)


def _text_of(reply: dict[str, Any]) -> str:
    """Concatenate the ``text`` blocks; a reply with none (only tool use, or nothing) is not an answer."""
    content = reply.get("content")
    if not isinstance(content, list):
        raise ModelBadResponse("anthropic reply has no content list", provider=PROVIDER)
    texts = [
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    if not texts:
        raise ModelBadResponse("anthropic reply has no text block", provider=PROVIDER)
    return "".join(texts)


def _usage_of(reply: dict[str, Any]) -> Usage | None:
    usage = reply.get("usage")
    if not isinstance(usage, dict):
        return None
    return Usage.from_counts(usage.get("input_tokens"), usage.get("output_tokens"))
