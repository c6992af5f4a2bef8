"""One JSON POST over the standard library, with failures typed and secrets redacted.

Both hosted providers need exactly this and nothing more, so it lives once
here instead of behind a third-party SDK. There are no retries: a failed call
is reported to the caller, which owns the turn's time budget and decides
whether another attempt fits in it. Redirects are not followed (they would carry
the key elsewhere). Requests to loopback hosts never go through
a configured proxy, so a local server (Ollama, vLLM, a test) is reached
directly; other hosts honour the usual ``*_proxy`` environment variables.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from typing import Any

from synapse_server.models.errors import (
    ModelBadResponse,
    ModelMisconfigured,
    ModelTimeout,
    ModelTransportError,
    redact,
    tail,
)

MAX_RESPONSE_BYTES = 32 * 1024 * 1024
_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def check_base_url(url: str, *, env_var: str) -> str:
    """Refuse a base URL that is not http(s) with a host; returns it without a trailing slash."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ModelMisconfigured(f"{env_var} must be an http(s) URL with a host", env_var=env_var)
    return url.rstrip("/")


def post_json(
    url: str,
    body: Mapping[str, Any],
    *,
    headers: Mapping[str, str],
    timeout_s: float,
    provider: str,
    secrets: Iterable[str | None] = (),
) -> dict[str, Any]:
    """POST ``body`` as JSON and return the decoded JSON object the server answered with."""
    secrets = tuple(secrets)
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "Accept": "application/json", **headers},
        method="POST",
    )
    where = _public_url(url)
    try:
        with _opener_for(url).open(request, timeout=timeout_s) as response:
            raw = response.read(MAX_RESPONSE_BYTES + 1)
    except urllib.error.HTTPError as error:
        said = _read_error_body(error)
        raise ModelTransportError(
            f"{provider} answered HTTP {error.code} from {where}",
            provider=provider,
            status=error.code,
            body_tail=redact(tail(said), secrets),
        ) from None
    except TimeoutError as error:
        raise ModelTimeout(
            f"{provider} did not answer within {timeout_s:g}s ({where})", provider=provider, timeout_s=timeout_s
        ) from error
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            raise ModelTimeout(
                f"{provider} did not answer within {timeout_s:g}s ({where})", provider=provider, timeout_s=timeout_s
            ) from None
        reason = redact(str(error.reason), secrets)
        raise ModelTransportError(f"{provider} is unreachable at {where}: {reason}", provider=provider) from None
    except OSError as error:
        reason = redact(str(error), secrets)
        raise ModelTransportError(f"{provider} connection failed at {where}: {reason}", provider=provider) from None
    if len(raw) > MAX_RESPONSE_BYTES:
        raise ModelBadResponse(f"{provider} reply exceeds {MAX_RESPONSE_BYTES} bytes", provider=provider)
    try:
        decoded = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ModelBadResponse(
            f"{provider} reply is not JSON",
            provider=provider,
            body_tail=redact(tail(raw.decode("utf-8", "replace")), secrets),
        ) from None
    if not isinstance(decoded, dict):
        raise ModelBadResponse(f"{provider} reply is not a JSON object", provider=provider)
    return decoded


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: urllib would replay the auth headers to wherever the redirect points."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _opener_for(url: str) -> urllib.request.OpenerDirector:
    """A direct opener for loopback hosts, the default (proxy-aware) one otherwise; never following redirects."""
    host = urllib.parse.urlsplit(url).hostname or ""
    if host in _LOOPBACK_HOSTS:
        return urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect)
    return urllib.request.build_opener(_NoRedirect)


def _public_url(url: str) -> str:
    """Scheme, host and path only: a URL may carry credentials or a query that must not be echoed."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{parts.scheme}://{host}{parts.path}"


def _read_error_body(error: urllib.error.HTTPError) -> str:
    try:
        return error.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        error.close()
