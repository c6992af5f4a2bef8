"""Turn tokens: signed, tamper-evident, expiring; refused with a typed error, never read when unsigned."""

from __future__ import annotations

import pytest

from synapse_server.errors import TurnExpired, TurnInvalid
from synapse_server.host_turns.token import MAX_TOKEN_CHARS, SECRET_ENV, StepClaims, server_secret, sign, verify

SECRET = server_secret({SECRET_ENV: "test"})
CLAIMS = StepClaims(
    turn="0123456789abcdef", step=2, expires=2_000, tokens_spent=4_100, prompt="a" * 16, record="b" * 16
)


def test_a_token_round_trips_its_claims_and_stays_short() -> None:
    token = sign(CLAIMS, SECRET)
    assert verify(token, SECRET, now=1_000) == CLAIMS
    assert len(token) < 200, "a host model copies it back verbatim"


def test_the_same_configured_secret_verifies_across_servers_and_a_random_one_does_not() -> None:
    token = sign(CLAIMS, SECRET)
    assert verify(token, server_secret({SECRET_ENV: "test"}), now=1_000) == CLAIMS
    with pytest.raises(TurnInvalid, match="not issued by this server"):
        verify(token, server_secret({}), now=1_000)
    assert server_secret({}) != server_secret({}), "without a configured secret each server has its own"


@pytest.mark.parametrize("position", [4, 10, 30, -3])
def test_any_altered_character_is_refused_before_the_payload_is_read(position: int) -> None:
    token = sign(CLAIMS, SECRET)
    swapped = "B" if token[position] != "B" else "C"
    altered = token[:position] + swapped + token[position + 1 :]
    with pytest.raises(TurnInvalid):
        verify(altered, SECRET, now=1_000)


def test_a_payload_changed_and_re_encoded_without_the_secret_is_refused() -> None:
    forged = sign(StepClaims(**{**_fields(CLAIMS), "tokens_spent": 0, "step": 1}), server_secret({SECRET_ENV: "x"}))
    _, payload, _ = forged.split(".")
    _, _, signature = sign(CLAIMS, SECRET).split(".")
    with pytest.raises(TurnInvalid):
        verify(f"st1.{payload}.{signature}", SECRET, now=1_000)


def test_an_expired_token_is_turn_expired() -> None:
    with pytest.raises(TurnExpired):
        verify(sign(CLAIMS, SECRET), SECRET, now=2_001)


@pytest.mark.parametrize(
    "token",
    ["", "st1", "st1..", "st2.e30.AAAA", "st1.%%%.AAAA", "st1.e30.é", "x" * (MAX_TOKEN_CHARS + 1), "st1.a.b.c"],
)
def test_a_string_that_is_not_a_token_is_turn_invalid(token: str) -> None:
    with pytest.raises(TurnInvalid) as refused:
        verify(token, SECRET, now=1_000)
    assert refused.value.detail["parameter"] == "turn"


def test_a_signed_payload_of_the_wrong_shape_is_turn_invalid() -> None:
    import base64
    import hashlib
    import hmac

    payload = base64.urlsafe_b64encode(b'{"turn": "x"}').decode().rstrip("=")
    mac = hmac.new(SECRET, payload.encode(), hashlib.sha256).digest()[:18]
    token = f"st1.{payload}.{base64.urlsafe_b64encode(mac).decode().rstrip('=')}"
    with pytest.raises(TurnInvalid, match="unreadable"):
        verify(token, SECRET, now=1_000)


def _fields(claims: StepClaims) -> dict[str, object]:
    return {name: getattr(claims, name) for name in StepClaims.__slots__}
