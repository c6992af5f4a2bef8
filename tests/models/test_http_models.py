"""openai: and anthropic: against a real loopback server that answers like each API."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

import pytest

from synapse_server.models import (
    Completion,
    ModelBadResponse,
    ModelError,
    ModelIdentity,
    ModelMisconfigured,
    ModelOptions,
    ModelTimeout,
    ModelTransportError,
    Usage,
    resolve_model,
)
from synapse_server.models.anthropic_api import AnthropicModel
from synapse_server.models.openai_compat import OpenAIModel
from synapse_server.models.transport import HttpTransport
from tests.support.loopback_http import LoopbackAPI, Reply

KEY = "sk-test-DO-NOT-LEAK-4242"
WALL = 1_800_000_000.0


@dataclass
class FakeClock:
    """A clock that only moves when the transport sleeps, so retries are observed without waiting."""

    t: float = 1000.0
    slept: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds

    def now(self) -> float:
        return WALL + (self.t - 1000.0)

    def transport(self) -> HttpTransport:
        return HttpTransport(sleep=self.sleep, clock=self.clock, now=self.now)


def _openai_reply(text: str = "the answer", **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-test-2025-01-01",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
        **extra,
    }


def _anthropic_reply(text: str = "the answer") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-1",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 21, "output_tokens": 4},
    }


def _openai(api: LoopbackAPI, key: str | None = KEY, clock: FakeClock | None = None, **options: Any) -> Any:
    env = {"OPENAI_BASE_URL": api.base + "/v1/"}
    if key is not None:
        env["OPENAI_API_KEY"] = key
    return OpenAIModel.from_env("gpt-test", env, ModelOptions(**options), (clock or FakeClock()).transport())


def _anthropic(api: LoopbackAPI, key: str | None = KEY, clock: FakeClock | None = None, **options: Any) -> Any:
    env = {"ANTHROPIC_BASE_URL": api.base}
    if key is not None:
        env["ANTHROPIC_API_KEY"] = key
    return AnthropicModel.from_env("claude-test", env, ModelOptions(**options), (clock or FakeClock()).transport())


def _reply(status: int, payload: Any, **headers: str) -> Reply:
    return Reply(status, json.dumps(payload).encode("utf-8"), headers=headers)


def test_the_spec_string_builds_the_same_http_models() -> None:
    assert isinstance(resolve_model("openai:m", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}), OpenAIModel)
    assert isinstance(resolve_model("anthropic:m", env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}), AnthropicModel)


def _assert_no_secret(error: ModelError, *secrets: str) -> None:
    public = f"{error} {error.message} {error.detail!r} {error!r}"
    for secret in secrets:
        assert secret not in public


# --- openai -------------------------------------------------------------------------------------------------------


def test_openai_posts_a_chat_completion_with_bearer_auth_model_messages_and_max_tokens(
    loopback_api: LoopbackAPI,
) -> None:
    loopback_api.reply_json(_openai_reply())

    reply = _openai(loopback_api).complete("What moved?", system="Cite nodes.", max_tokens=64)

    [request] = loopback_api.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": "Cite nodes."}, {"role": "user", "content": "What moved?"}],
        "max_tokens": 64,
    }
    assert reply == Completion("the answer", Usage(12, 3), ModelIdentity("openai", "gpt-test-2025-01-01"))


def test_openai_sends_no_max_tokens_or_system_message_unless_asked(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json(_openai_reply())

    _openai(loopback_api).complete("q")

    assert loopback_api.requests[0].body == {"model": "gpt-test", "messages": [{"role": "user", "content": "q"}]}


def test_openai_uses_the_options_max_tokens_when_the_call_passes_none(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json(_openai_reply())

    _openai(loopback_api, max_tokens=99).complete("q")

    assert loopback_api.requests[0].body["max_tokens"] == 99


def test_openai_on_a_local_base_url_needs_no_key_and_sends_no_authorization(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json({"model": "llama3.1:8b", "choices": [{"message": {"content": "ok"}}]})

    reply = _openai(loopback_api, key=None).complete("q")

    assert "authorization" not in loopback_api.requests[0].headers
    assert (reply.text, reply.usage) == ("ok", None)


def test_openai_on_the_default_hosted_url_requires_a_key_and_names_the_variable() -> None:
    with pytest.raises(ModelMisconfigured) as caught:
        resolve_model("openai:gpt-4o", env={})
    assert "OPENAI_API_KEY" in caught.value.message


@pytest.mark.parametrize("base", ["ftp://example.invalid", "not a url", "http://"])
def test_a_base_url_that_is_not_http_is_a_misconfiguration(base: str) -> None:
    with pytest.raises(ModelMisconfigured):
        resolve_model("openai:m", env={"OPENAI_BASE_URL": base, "OPENAI_API_KEY": KEY})


def test_openai_http_500_is_a_transport_error_that_never_shows_the_key(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json({"error": {"message": f"upstream exploded for key {KEY}"}}, status=500)

    with pytest.raises(ModelTransportError) as caught:
        _openai(loopback_api, max_retries=0).complete("q")

    assert caught.value.detail["status"] == 500
    assert "exploded" in str(caught.value.detail["body_tail"])
    _assert_no_secret(caught.value, KEY)


def test_openai_401_echoing_the_key_and_prompt_leaks_neither(loopback_api: LoopbackAPI) -> None:
    prompt = "PROMPT-START " + "confidential evidence " * 100 + "PROMPT-END"
    loopback_api.reply_json({"error": f"Incorrect API key {KEY} for prompt {prompt}"}, status=401)

    with pytest.raises(ModelTransportError) as caught:
        _openai(loopback_api).complete(prompt)

    _assert_no_secret(caught.value, KEY, prompt, "PROMPT-START")


def test_openai_malformed_json_is_a_bad_response(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_raw(b'{"choices": [', status=200)

    with pytest.raises(ModelBadResponse):
        _openai(loopback_api).complete("q")


@pytest.mark.parametrize(
    "payload",
    [
        {},
        [1, 2],
        {"choices": []},
        {"choices": [{"message": {}}]},
        {"choices": [{"message": {"content": None, "refusal": "no"}}]},
        {"choices": ["text"]},
    ],
)
def test_openai_reply_without_message_content_is_a_bad_response(loopback_api: LoopbackAPI, payload: Any) -> None:
    loopback_api.reply_json(payload)

    with pytest.raises(ModelBadResponse):
        _openai(loopback_api).complete("q")


def test_openai_malformed_usage_is_reported_as_unknown_not_guessed(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json(_openai_reply(usage={"prompt_tokens": "12", "completion_tokens": 3}))

    assert _openai(loopback_api).complete("q").usage is None


def test_a_server_that_stalls_past_the_timeout_is_a_model_timeout(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_stalled()

    with pytest.raises(ModelTimeout):
        _openai(loopback_api, timeout_s=0.3).complete("q")


def test_a_refused_connection_is_a_transport_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = resolve_model("openai:m", env={"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1", "OPENAI_API_KEY": KEY})

    with pytest.raises(ModelTransportError) as caught:
        model.complete("q")
    _assert_no_secret(caught.value, KEY)


def test_a_redirect_is_not_followed_so_the_key_goes_nowhere_else(loopback_api: LoopbackAPI) -> None:
    loopback_api.replies.append(Reply(status=307, headers={"Location": "http://127.0.0.2:9/v1/chat/completions"}))

    with pytest.raises(ModelTransportError) as caught:
        _openai(loopback_api).complete("q")

    assert caught.value.detail["status"] == 307
    assert "not followed" in caught.value.message
    assert len(loopback_api.requests) == 1
    _assert_no_secret(caught.value, KEY)


# --- anthropic ----------------------------------------------------------------------------------------------------


def test_anthropic_posts_messages_with_key_version_model_and_max_tokens(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json(_anthropic_reply())

    reply = _anthropic(loopback_api).complete("What moved?", system="Cite nodes.", max_tokens=64)

    [request] = loopback_api.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": "What moved?"}],
        "system": [{"type": "text", "text": "Cite nodes.", "cache_control": {"type": "ephemeral"}}],
    }
    assert reply == Completion("the answer", Usage(21, 4), ModelIdentity("anthropic", "claude-test-1"))


def test_anthropic_always_sends_max_tokens_because_the_api_requires_it(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json(_anthropic_reply())
    loopback_api.reply_json(_anthropic_reply())

    _anthropic(loopback_api).complete("q")
    _anthropic(loopback_api, max_tokens=7).complete("q")

    assert loopback_api.requests[0].body["max_tokens"] == 4096
    assert "system" not in loopback_api.requests[0].body
    assert loopback_api.requests[1].body["max_tokens"] == 7


def test_anthropic_joins_text_blocks_and_skips_other_blocks(loopback_api: LoopbackAPI) -> None:
    payload = _anthropic_reply()
    payload["content"] = [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "text", "text": "claim c1 "},
        {"type": "text", "text": ":: done"},
    ]
    loopback_api.reply_json(payload)

    assert _anthropic(loopback_api).complete("q").text == "claim c1 :: done"


def test_anthropic_on_the_default_url_requires_a_key() -> None:
    with pytest.raises(ModelMisconfigured) as caught:
        resolve_model("anthropic:claude-test", env={})
    assert "ANTHROPIC_API_KEY" in caught.value.message


def test_anthropic_http_500_is_a_transport_error_that_never_shows_the_key(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_json({"type": "error", "error": {"type": "api_error", "message": f"bad {KEY}"}}, status=500)

    with pytest.raises(ModelTransportError) as caught:
        _anthropic(loopback_api, max_retries=0).complete("q")

    assert caught.value.detail["status"] == 500
    _assert_no_secret(caught.value, KEY)


def test_anthropic_malformed_json_is_a_bad_response(loopback_api: LoopbackAPI) -> None:
    loopback_api.reply_raw(b"<html>gateway</html>", content_type="text/html")

    with pytest.raises(ModelBadResponse):
        _anthropic(loopback_api).complete("q")


@pytest.mark.parametrize(
    "payload",
    [{}, {"content": "text"}, {"content": []}, {"content": [{"type": "tool_use", "id": "t", "input": {}}]}],
)
def test_anthropic_reply_without_a_text_block_is_a_bad_response(loopback_api: LoopbackAPI, payload: Any) -> None:
    loopback_api.reply_json(payload)

    with pytest.raises(ModelBadResponse):
        _anthropic(loopback_api).complete("q")


def test_anthropic_reply_without_usage_reports_none(loopback_api: LoopbackAPI) -> None:
    payload = _anthropic_reply()
    del payload["usage"]
    loopback_api.reply_json(payload)

    assert _anthropic(loopback_api).complete("q").usage is None


def test_anthropic_input_usage_counts_cache_reads_and_writes(loopback_api: LoopbackAPI) -> None:
    payload = _anthropic_reply()
    payload["usage"] = {
        "input_tokens": 30,
        "cache_creation_input_tokens": 900,
        "cache_read_input_tokens": 0,
        "output_tokens": 5,
    }
    loopback_api.reply_json(payload)

    assert _anthropic(loopback_api).complete("q", system="fixed").usage == Usage(930, 5)


# --- retries, deadlines, proxies (both providers share the transport) ---------------------------------------------


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_429_is_retried_after_the_seconds_retry_after_asks(loopback_api: LoopbackAPI, provider: str) -> None:
    clock = FakeClock()
    loopback_api.replies.append(_reply(429, {"error": "slow down"}, **{"Retry-After": "2"}))
    good = _openai_reply("second try") if provider == "openai" else _anthropic_reply("second try")
    loopback_api.reply_json(good)
    model = (_openai if provider == "openai" else _anthropic)(loopback_api, clock=clock)

    assert model.complete("q").text == "second try"
    assert clock.slept == [2.0]
    assert len(loopback_api.requests) == 2
    assert loopback_api.requests[0].body == loopback_api.requests[1].body


def test_a_retry_after_http_date_is_waited_until(loopback_api: LoopbackAPI) -> None:
    clock = FakeClock()
    loopback_api.replies.append(_reply(503, {}, **{"Retry-After": formatdate(WALL + 5, usegmt=True)}))
    loopback_api.reply_json(_openai_reply())

    _openai(loopback_api, clock=clock).complete("q")

    assert clock.slept == [5.0]


def test_a_5xx_without_retry_after_backs_off_and_gives_up_after_the_bounded_retries(loopback_api: LoopbackAPI) -> None:
    clock = FakeClock()
    for _ in range(4):
        loopback_api.replies.append(_reply(502, {"error": f"bad gateway {KEY}"}))

    with pytest.raises(ModelTransportError) as caught:
        _openai(loopback_api, clock=clock, max_retries=2).complete("q")

    assert clock.slept == [1.0, 2.0]
    assert len(loopback_api.requests) == 3
    assert caught.value.detail["status"] == 502
    _assert_no_secret(caught.value, KEY)


@pytest.mark.parametrize("status", [400, 401, 404, 501])
def test_a_client_error_or_a_permanent_5xx_is_not_retried(loopback_api: LoopbackAPI, status: int) -> None:
    clock = FakeClock()
    loopback_api.replies.append(_reply(status, {"error": "no"}, **{"Retry-After": "1"}))
    loopback_api.reply_json(_openai_reply())

    with pytest.raises(ModelTransportError):
        _openai(loopback_api, clock=clock).complete("q")

    assert clock.slept == [] and len(loopback_api.requests) == 1


def test_a_retry_after_longer_than_the_time_left_is_not_slept_but_reported(loopback_api: LoopbackAPI) -> None:
    clock = FakeClock()
    loopback_api.replies.append(_reply(429, {"error": f"quota for {KEY}"}, **{"Retry-After": "30"}))
    loopback_api.reply_json(_openai_reply())

    with pytest.raises(ModelTransportError) as caught:
        _openai(loopback_api, clock=clock, timeout_s=10).complete("q")

    assert clock.slept == [] and len(loopback_api.requests) == 1
    assert (caught.value.detail["status"], caught.value.detail["retry_after_s"]) == (429, 30.0)
    _assert_no_secret(caught.value, KEY)


def test_the_turn_deadline_bounds_retries_across_calls_not_only_the_call_timeout(loopback_api: LoopbackAPI) -> None:
    clock = FakeClock()
    model = _openai(loopback_api, clock=clock, timeout_s=120, deadline=clock.t + 4)
    loopback_api.replies.append(_reply(503, {}, **{"Retry-After": "3"}))
    loopback_api.reply_json(_openai_reply("first"))
    assert model.complete("q").text == "first"  # 3 s fit before the deadline
    loopback_api.replies.append(_reply(503, {}, **{"Retry-After": "3"}))
    loopback_api.reply_json(_openai_reply("never"))

    with pytest.raises(ModelTransportError):
        model.complete("q")  # 1 s left: the second wait does not fit
    assert clock.slept == [3.0]
    clock.t += 2
    with pytest.raises(ModelTimeout):
        model.complete("q")  # past the deadline: no request at all
    assert len(loopback_api.requests) == 3


def test_loopback_hosts_bypass_a_configured_proxy(loopback_api: LoopbackAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = probe.getsockname()[1]
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{dead}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    loopback_api.reply_json(_openai_reply("direct"))

    assert _openai(loopback_api).complete("q").text == "direct"
