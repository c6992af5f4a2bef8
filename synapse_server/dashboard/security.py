"""The dashboard's guards: a per-run token, a Host allow-list, a strict CSP and same-origin form posts.

The app listens on 127.0.0.1 only, but any web page the user opens can still
send requests there; the token (in the URL printed at start, then in a
``SameSite=Strict`` cookie) keeps them out, the Host allow-list defeats DNS
rebinding, and the CSP forbids every script, frame and foreign resource, so
even text that slipped past escaping could not run.

Cookies ignore ports, so a page served on another 127.0.0.1 port is
"same-site" and gets the cookie sent with its requests. The session is
therefore bound to this origin, port included: a request the browser marks
``Sec-Fetch-Site: same-site`` or ``cross-site`` is refused, and every POST (the
only requests that cost model work) must carry this origin in ``Origin`` when
it has one and the form token every page's forms hold, which a page on another
origin cannot read.
"""

from __future__ import annotations

import hashlib
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
FORM_TOKEN_FIELD = "form_token"
MAX_FORM_BYTES = 64 * 1024
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
OWN_SITE = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of this dashboard's own pages (``none``: the user opened the URL)."""


def new_token() -> str:
    """A fresh unguessable token for one dashboard run."""
    return secrets.token_urlsafe(24)


def form_token(token: str) -> str:
    """The token every form of this run's pages posts back: derived from the run's token, readable only here."""
    return hmac.new(token.encode(), b"synapse dashboard form", hashlib.sha256).hexdigest()


class TokenGuard:
    """Admit a request only with the run's token, and a state-changing one only from this origin.

    ``?token=`` on a GET sets the cookie and redirects to the same URL without
    the token, so it does not linger in history, screenshots or logs.
    """

    def __init__(self, app: ASGIApp, *, token: str, cookie: str) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie
        self.form_token = form_token(token)

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
        elif request.headers.get("sec-fetch-site", "none") not in OWN_SITE:
            response = PlainTextResponse("forbidden: not from this dashboard's own pages", status_code=403)
        elif request.method in UNSAFE_METHODS and not same_origin(request):
            response = PlainTextResponse("forbidden: cross-site form post", status_code=403)
        elif request.method in UNSAFE_METHODS:
            body = await _read_body(receive)
            if body is None:
                response = PlainTextResponse(f"refused: a form of at most {MAX_FORM_BYTES} bytes", status_code=413)
            elif not self._form_ok(request, body):
                response = PlainTextResponse("forbidden: a form post needs this page's form token", status_code=403)
            else:
                await self.app(scope, _replay(body, receive), send)
                return
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)

    def _form_ok(self, request: Request, body: bytes) -> bool:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            return False
        offered = [v for k, v in parse_qsl(body.decode("latin-1"), keep_blank_values=True) if k == FORM_TOKEN_FIELD]
        return len(offered) == 1 and hmac.compare_digest(offered[0].encode("latin-1"), self.form_token.encode())

    def _ok(self, offered: str) -> bool:
        return bool(offered) and hmac.compare_digest(offered.encode(), self.token.encode())


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None past :data:`MAX_FORM_BYTES` or on a disconnect."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then whatever comes next (a disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


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
