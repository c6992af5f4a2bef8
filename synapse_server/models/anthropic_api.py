"""``anthropic:MODEL``: the Anthropic Messages API.

The Messages API requires ``max_tokens`` on every request, so a call that does
not pass one gets :data:`DEFAULT_MAX_TOKENS` (or the options' cap). The key is
required for the hosted default URL; a gateway named by ``ANTHROPIC_BASE_URL``
may do without one.

A system prompt (the fixed instructions of a feature) is sent as one text
block marked ``cache_control: {"type": "ephemeral"}``, so repeated calls with
the same instructions are served from Anthropic's prompt cache; the reported
input usage counts cached and cache-writing tokens too, so a budget sees
everything the call consumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synapse_server.models.base import Completion, Model, ModelIdentity, ModelOptions, Prompt, Usage
from synapse_server.models.errors import ModelBadResponse, ModelMisconfigured
from synapse_server.models.provider import Argument, Provider, ProviderContext
from synapse_server.models.transport import HttpTransport, check_base_url

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
PROVIDER = "anthropic"
KEY_ENV = "ANTHROPIC_API_KEY"


class AnthropicModel(Model):
    """POSTs ``{base}/v1/messages`` and joins the reply's text blocks."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None,
        options: ModelOptions,
        transport: HttpTransport | None = None,
    ) -> None:
        self.identity = ModelIdentity(PROVIDER, model)
        self._transport = transport or HttpTransport()
        self._base_url = check_base_url(base_url, env_var="ANTHROPIC_BASE_URL")
        self._api_key = api_key
        self._options = options

    @classmethod
    def from_env(
        cls, model: str, env: Mapping[str, str], options: ModelOptions, transport: HttpTransport | None = None
    ) -> AnthropicModel:
        """Read ``ANTHROPIC_BASE_URL`` and ``ANTHROPIC_API_KEY``; a key is mandatory only for the hosted default."""
        base_url = env.get("ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_BASE_URL
        api_key = env.get(KEY_ENV) or None
        if api_key is None and base_url.rstrip("/") == DEFAULT_ANTHROPIC_BASE_URL:
            raise ModelMisconfigured(f"anthropic: set {KEY_ENV}", provider=PROVIDER, env_var=KEY_ENV)
        return cls(model, base_url=base_url, api_key=api_key, options=options, transport=transport)

    def execute(self, prompt: Prompt) -> Completion:
        body: dict[str, Any] = {
            "model": self.identity.id,
            "max_tokens": prompt.max_tokens or self._options.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt.text}],
        }
        if prompt.system is not None:
            body["system"] = [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}]
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        reply = self._transport.post_json(
            f"{self._base_url}/v1/messages",
            body,
            headers=headers,
            timeout_s=self._options.timeout_s,
            provider=PROVIDER,
            secrets=(self._api_key,),
            max_retries=self._options.max_retries,
            deadline=self._options.deadline,
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
    """``input_tokens`` plus the cache-read and cache-write tokens (when reported), and ``output_tokens``."""
    usage = reply.get("usage")
    if not isinstance(usage, dict):
        return None
    counted = Usage.from_counts(usage.get("input_tokens"), usage.get("output_tokens"))
    if counted is None:
        return None
    cached = [usage.get(k) for k in ("cache_creation_input_tokens", "cache_read_input_tokens")]
    extra = sum(v for v in cached if isinstance(v, int) and not isinstance(v, bool) and v > 0)
    return Usage(counted.input_tokens + extra, counted.output_tokens)


class AnthropicProvider(Provider):
    """``anthropic:MODEL``: sends the prompt to the Anthropic Messages API (or a gateway)."""

    name = PROVIDER
    argument = Argument("MODEL", "a model name")
    reaches_outside = True
    key_env = (KEY_ENV,)
    runs = "the Anthropic Messages API"
    use = "hosted Claude"

    def build(self, argument: str | None, context: ProviderContext) -> Model:
        assert argument is not None
        return AnthropicModel.from_env(argument, context.env, context.options)
