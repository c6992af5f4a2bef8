"""One JSON POST over ``httpx``, with bounded retries inside a deadline, failures typed and secrets redacted.

Both hosted providers need exactly this and nothing more, so it lives once
here instead of behind two vendor SDKs. A 429 or a transient 5xx is retried a
bounded number of times, waiting what the server's ``Retry-After`` asks
(seconds or an HTTP date) or else an exponential backoff, but only while the
wait and another attempt still fit before the call's deadline: the transport
never sleeps past it, it reports the failure instead. The deadline is the
call's own timeout, or the turn's deadline when the caller owns a budget
across several calls (``ModelOptions.deadline``). The clock and the sleep are
injectable so tests never wait.

Redirects are not followed (they would carry the key elsewhere); a redirect
status is reported as an error. Requests to loopback hosts never go through a
configured proxy (``trust_env`` off), so a local server (Ollama, vLLM, a test)
is reached directly; other hosts honour the usual ``*_proxy`` variables. No
error message or detail ever carries a secret or the prompt. ``httpx`` is
imported on the first call, so the server and offline turns never load it.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from synapse_server.models.errors import (
    ModelBadResponse,
    ModelMisconfigured,
    ModelTimeout,
    ModelTransportError,
    redact,
    tail,
)

if TYPE_CHECKING:
    import httpx

MAX_RESPONSE_BYTES = 32 * 1024 * 1024
MAX_ERROR_BODY_BYTES = 64 * 1024
DEFAULT_MAX_RETRIES = 2
BACKOFF_S = 1.0
"""The first wait when the server gives no ``Retry-After``; it doubles on each retry."""
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_NOT_TRANSIENT = frozenset({501, 505})


def check_base_url(url: str, *, env_var: str) -> str:
    """Refuse a base URL that is not http(s) with a host; returns it without a trailing slash."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ModelMisconfigured(f"{env_var} must be an http(s) URL with a host", env_var=env_var)
    return url.rstrip("/")


def retryable(status: int) -> bool:
    """429 (rate limited) and the 5xx statuses that say "try again" (not 501/505, which never change)."""
    return status == 429 or (500 <= status <= 599 and status not in _NOT_TRANSIENT)


def retry_after_s(value: str | None, now: float) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date), or None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True)
class HttpTransport:
    """How provider calls reach the network; ``clock``, ``now`` and ``sleep`` are injectable for tests."""

    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    now: Callable[[], float] = time.time  # wall clock, for a Retry-After HTTP date
    backoff_s: float = BACKOFF_S

    def post_json(
        self,
        url: str,
        body: Mapping[str, Any],
        *,
        headers: Mapping[str, str],
        timeout_s: float,
        provider: str,
        secrets: Iterable[str | None] = (),
        max_retries: int = DEFAULT_MAX_RETRIES,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """POST ``body`` as JSON and return the decoded JSON object; retries stay before the deadline."""
        call = _Call(provider, _public_url(url), timeout_s, tuple(s for s in secrets if s))
        end = self.clock() + timeout_s
        if deadline is not None:
            end = min(end, deadline)
        payload = json.dumps(body).encode("utf-8")
        all_headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        loopback = (urllib.parse.urlsplit(url).hostname or "") in _LOOPBACK_HOSTS
        import httpx  # here, not at module level: importing it costs start-up time no offline turn needs

        with httpx.Client(trust_env=not loopback, follow_redirects=False) as client:
            retry = 0
            while True:
                left = end - self.clock()
                if left <= 0:
                    raise call.timeout()
                status, raw, retry_after = self._attempt(client, call, url, payload, all_headers, end)
                if 200 <= status < 300:
                    return call.decode(raw)
                error = call.http_error(status, raw)
                if not retryable(status) or retry >= max_retries:
                    raise error
                wait = retry_after_s(retry_after, self.now())
                if wait is None:
                    wait = self.backoff_s * 2**retry
                if self.clock() + wait >= end:
                    error.detail["retry_after_s"] = round(wait, 3)
                    error.detail["gave_up"] = "the wait would pass the deadline"
                    raise error
                self.sleep(wait)
                retry += 1

    def _attempt(
        self, client: httpx.Client, call: _Call, url: str, payload: bytes, headers: Mapping[str, str], end: float
    ) -> tuple[int, bytes, str | None]:
        """One request: (status, body bytes, Retry-After), the body bounded and read before the deadline."""
        import httpx

        left = max(0.001, end - self.clock())
        try:
            with client.stream("POST", url, content=payload, headers=headers, timeout=httpx.Timeout(left)) as response:
                limit = MAX_RESPONSE_BYTES if response.is_success else MAX_ERROR_BODY_BYTES
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > limit:
                        break
                    if self.clock() > end:
                        raise call.timeout()
                raw = b"".join(chunks)
                if response.is_success and len(raw) > MAX_RESPONSE_BYTES:
                    raise ModelBadResponse(
                        f"{call.provider} reply exceeds {MAX_RESPONSE_BYTES} bytes", provider=call.provider
                    )
                return response.status_code, raw[:limit], response.headers.get("retry-after")
        except httpx.TimeoutException:
            raise call.timeout() from None
        except httpx.HTTPError as error:
            reason = call.redact(str(error) or type(error).__name__)
            raise ModelTransportError(
                f"{call.provider} is unreachable at {call.where}: {reason}", provider=call.provider
            ) from None
        except OSError as error:
            reason = call.redact(str(error))
            raise ModelTransportError(
                f"{call.provider} connection failed at {call.where}: {reason}", provider=call.provider
            ) from None


@dataclass(frozen=True)
class _Call:
    """What every error of one call is built from: names and bounded, redacted text only."""

    provider: str
    where: str
    timeout_s: float
    secrets: tuple[str, ...]

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def timeout(self) -> ModelTimeout:
        return ModelTimeout(
            f"{self.provider} did not answer within {self.timeout_s:g}s ({self.where})",
            provider=self.provider,
            timeout_s=self.timeout_s,
        )

    def http_error(self, status: int, raw: bytes) -> ModelTransportError:
        said = self.redact(tail(raw.decode("utf-8", "replace")))
        moved = " (redirects are not followed)" if 300 <= status < 400 else ""
        return ModelTransportError(
            f"{self.provider} answered HTTP {status} from {self.where}{moved}",
            provider=self.provider,
            status=status,
            body_tail=said,
        )

    def decode(self, raw: bytes) -> dict[str, Any]:
        try:
            decoded = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ModelBadResponse(
                f"{self.provider} reply is not JSON",
                provider=self.provider,
                body_tail=self.redact(tail(raw.decode("utf-8", "replace"))),
            ) from None
        if not isinstance(decoded, dict):
            raise ModelBadResponse(f"{self.provider} reply is not a JSON object", provider=self.provider)
        return decoded


def _public_url(url: str) -> str:
    """Scheme, host and path only: a URL may carry credentials or a query that must not be echoed."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}"
