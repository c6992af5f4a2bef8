"""``openai:MODEL``: any OpenAI-compatible Chat Completions endpoint.

One spelling covers the hosted API and the local servers that copy it (Ollama,
vLLM, llama.cpp's server): ``OPENAI_BASE_URL`` picks the server. The key is
required only for the default hosted URL, because local servers do not check it.

A system prompt (the fixed instructions of a feature) goes first, as a
``system`` message: OpenAI caches a repeated prompt prefix on its own, and
local servers with a prefix cache (vLLM, llama.cpp) reuse it the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from synapse_server.models.base import Completion, Model, ModelIdentity, ModelOptions, Prompt, Usage
from synapse_server.models.errors import ModelBadResponse, ModelMisconfigured
from synapse_server.models.provider import Argument, Provider, ProviderContext
from synapse_server.models.transport import HttpTransport, check_base_url

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
PROVIDER = "openai"
KEY_ENV = "OPENAI_API_KEY"


class OpenAIModel(Model):
    """POSTs ``{base}/chat/completions`` and reads the first choice's message and the ``usage`` field."""

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
        self._base_url = check_base_url(base_url, env_var="OPENAI_BASE_URL")
        self._api_key = api_key
        self._options = options

    @classmethod
    def from_env(
        cls, model: str, env: Mapping[str, str], options: ModelOptions, transport: HttpTransport | None = None
    ) -> OpenAIModel:
        """Read ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``; a key is mandatory only for the hosted default."""
        base_url = env.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL
        api_key = env.get(KEY_ENV) or None
        if api_key is None and base_url.rstrip("/") == DEFAULT_OPENAI_BASE_URL:
            raise ModelMisconfigured(
                "openai: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server that needs no key",
                provider=PROVIDER,
                env_var=KEY_ENV,
            )
        return cls(model, base_url=base_url, api_key=api_key, options=options, transport=transport)

    def execute(self, prompt: Prompt) -> Completion:
        messages = [{"role": "user", "content": prompt.text}]
        if prompt.system is not None:
            messages.insert(0, {"role": "system", "content": prompt.system})
        body: dict[str, Any] = {"model": self.identity.id, "messages": messages}
        max_tokens = prompt.max_tokens or self._options.max_tokens
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        reply = self._transport.post_json(
            f"{self._base_url}/chat/completions",
            body,
            headers=headers,
            timeout_s=self._options.timeout_s,
            provider=PROVIDER,
            secrets=(self._api_key,),
            max_retries=self._options.max_retries,
            deadline=self._options.deadline,
        )
        return Completion(_text_of(reply), _usage_of(reply), self._served_by(reply))

    def _served_by(self, reply: dict[str, Any]) -> ModelIdentity:
        """The model the server says answered (it may pin a dated version), else the one asked for."""
        served = reply.get("model")
        return ModelIdentity(PROVIDER, served) if isinstance(served, str) and served else self.identity


def _text_of(reply: dict[str, Any]) -> str:
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelBadResponse("openai reply has no choices", provider=PROVIDER)
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        refusal = message.get("refusal") if isinstance(message, dict) else None
        why = "the model refused" if isinstance(refusal, str) and refusal else "choices[0].message.content is missing"
        raise ModelBadResponse(f"openai reply has no text: {why}", provider=PROVIDER)
    return content


def _usage_of(reply: dict[str, Any]) -> Usage | None:
    """``usage.prompt_tokens`` / ``completion_tokens`` when both are integers; servers that omit it get ``None``."""
    usage = reply.get("usage")
    if not isinstance(usage, dict):
        return None
    return Usage.from_counts(usage.get("prompt_tokens"), usage.get("completion_tokens"))


class OpenAIProvider(Provider):
    """``openai:MODEL``: sends the prompt over a network (unless ``OPENAI_BASE_URL`` is a local server)."""

    name = PROVIDER
    argument = Argument("MODEL", "a model name")
    reaches_outside = True
    key_env = (KEY_ENV,)
    runs = "an OpenAI-compatible Chat Completions endpoint"
    use = "hosted OpenAI, Ollama, vLLM, llama.cpp"

    def build(self, argument: str | None, context: ProviderContext) -> Model:
        assert argument is not None
        return OpenAIModel.from_env(argument, context.env, context.options)
