"""Turn tokens: ``st1.<payload>.<signature>``, an HMAC-SHA256 over the payload with the server's secret.

The payload is small JSON (base64url): it names a step, it does not carry
the turn (the record does, see :mod:`.record`), so a host model copies a
couple of hundred characters back, not the whole conversation. The
signature makes it tamper-evident; the expiry and the record's digest make
an old or foreign token fail closed with a typed error, never a guess.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields

from synapse_server.errors import TurnExpired, TurnInvalid

PREFIX = "st1"
SECRET_ENV = "SYNAPSE_TURN_SECRET"
"""Set the same value for several servers of one workspace so any of them can continue a turn."""
SIGNATURE_BYTES = 18
MAX_TOKEN_CHARS = 1024


@dataclass(frozen=True, slots=True)
class StepClaims:
    """What a token vouches for: the turn and step, when it expires, what was spent, and the two digests."""

    turn: str
    step: int
    expires: int
    tokens_spent: int
    prompt: str
    """The digest of the prompt this step showed the host (:func:`synapse_server.models.host.prompt_digest`)."""
    record: str
    """The digest of the turn's record as it stood when the token was issued."""


def server_secret(env: Mapping[str, str]) -> bytes:
    """The configured secret, or a fresh random one: a restarted server then refuses its predecessor's turns."""
    configured = env.get(SECRET_ENV, "")
    if configured.strip():
        return hashlib.sha256(configured.encode("utf-8")).digest()
    return os.urandom(32)


def sign(claims: StepClaims, secret: bytes) -> str:
    """The token: the claims as a compact JSON array (in field order), and their signature."""
    payload = _b64(json.dumps(astuple(claims), separators=(",", ":")).encode("utf-8"))
    return f"{PREFIX}.{payload}.{_b64(_mac(secret, payload))}"


def verify(token: str, secret: bytes, now: float) -> StepClaims:
    """The claims of a token this server signed and that has not expired; :class:`TurnInvalid` or
    :class:`TurnExpired` otherwise. The signature is checked before the payload is read."""
    parts = token.split(".") if len(token) <= MAX_TOKEN_CHARS else []
    if len(parts) != 3 or parts[0] != PREFIX:
        raise TurnInvalid("turn is not a navigate turn token; start again with a question", parameter="turn")
    _, payload, signature = parts
    try:
        given = _unb64(signature)
    except ValueError:
        given = b""
    if not hmac.compare_digest(given, _mac(secret, payload)):
        raise TurnInvalid(
            "turn was not issued by this server (or was altered); start again with a question", parameter="turn"
        )
    claims = _claims(payload)
    if claims.expires < now:
        raise TurnExpired("turn has expired; start again with a question", parameter="turn")
    return claims


def _claims(payload: str) -> StepClaims:
    try:
        data = json.loads(_unb64(payload))
        if not isinstance(data, list) or len(data) != len(fields(StepClaims)):
            raise ValueError("not a claims array")
        claims = StepClaims(*data)
    except (ValueError, TypeError):
        raise TurnInvalid("turn carries an unreadable payload", parameter="turn") from None
    if not (isinstance(claims.step, int) and isinstance(claims.expires, int) and isinstance(claims.turn, str)):
        raise TurnInvalid("turn carries an unreadable payload", parameter="turn")
    return claims


def _mac(secret: bytes, payload: str) -> bytes:
    return hmac.new(secret, payload.encode("utf-8"), hashlib.sha256).digest()[:SIGNATURE_BYTES]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None
