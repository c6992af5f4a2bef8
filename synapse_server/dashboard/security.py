"""The dashboard's guards: a per-run token, a Host allow-list, a strict CSP and same-origin form posts.

The app listens on 127.0.0.1 only, but any web page the user opens can still
send requests there; the token (in the URL printed at start, then in a
``SameSite=Strict`` cookie) keeps them out, the Host allow-list defeats DNS
rebinding, and the CSP forbids every script, frame and foreign resource, so
even text that slipped past escaping could not run.
"""

from __future__ import annotations

import hmac
import secrets
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
}
TOKEN_PARAM = "token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def new_token() -> str:
    """A fresh unguessable token for one dashboard run."""
    return secrets.token_urlsafe(24)


class TokenGuard:
    """Admit a request only with the run's token, and a state-changing one only from this origin.

    ``?token=`` on a GET sets the cookie and redirects to the same URL without
    the token, so it does not linger in history, screenshots or logs.
    """

    def __init__(self, app: ASGIApp, *, token: str, cookie: str) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        offered = request.query_params.get(TOKEN_PARAM)
        if offered is not None and self._ok(offered) and request.method == "GET":
            kept = [(k, v) for k, v in parse_qsl(request.url.query, keep_blank_values=True) if k != TOKEN_PARAM]
            target = request.url.path + (f"?{urlencode(kept)}" if kept else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="strict", path="/")
        elif not self._ok(request.cookies.get(self.cookie, "")):
            response = PlainTextResponse("forbidden: open the dashboard with the URL it printed", status_code=403)
        elif request.method in UNSAFE_METHODS and not same_origin(request):
            response = PlainTextResponse("forbidden: cross-site form post", status_code=403)
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)

    def _ok(self, offered: str) -> bool:
        return bool(offered) and hmac.compare_digest(offered.encode(), self.token.encode())


def same_origin(request: Request) -> bool:
    """A post is ours when the browser says so (Sec-Fetch-Site) or its Origin names this host."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in {"same-origin", "none"}:
        return False
    origin = request.headers.get("origin")
    if origin is None or (origin == "null" and site == "same-origin"):
        return True
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


class SecurityHeaders:
    """Stamp every response with the CSP and the no-sniff, no-referrer, no-frame, no-store headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def stamped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, stamped)
