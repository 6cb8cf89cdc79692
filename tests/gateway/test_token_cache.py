"""services.gateway.auth: a token verified once is kept, and a kept token is still refused once
it expires, before it is valid, or when it is not the one verified (a changed signature)."""

from __future__ import annotations

import base64

import pytest

from libs.auth import KeyRing, issue_for
from libs.auth.tokens import INVALID_TOKEN, TOKEN_EXPIRED
from libs.errors import Unauthenticated
from services.gateway import auth
from services.gateway.auth import Authenticator

RING = KeyRing.parse("k1:" + base64.b64encode(b"s" * 32).decode())
ISSUED = 1_000_000.0
TTL = 600


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def token(player: str = "p1", now: float = ISSUED) -> str:
    return issue_for(RING, player, now=now, ttl_seconds=TTL)


def test_a_kept_token_answers_the_same_claims() -> None:
    clock = Clock(ISSUED + 1)
    authenticator = Authenticator(RING, clock)
    text = token()
    first = authenticator.verify(text)
    assert text in authenticator.verified
    assert authenticator.verify(text) is first
    assert first.player_id == "p1"


def test_a_kept_token_is_refused_once_expired() -> None:
    clock = Clock(ISSUED + 1)
    authenticator = Authenticator(RING, clock)
    text = token()
    authenticator.verify(text)
    clock.now = ISSUED + TTL
    with pytest.raises(Unauthenticated) as refused:
        authenticator.verify(text)
    assert refused.value.code == TOKEN_EXPIRED
    assert text not in authenticator.verified


def test_a_kept_token_is_refused_when_the_clock_is_before_its_issue() -> None:
    clock = Clock(ISSUED + 1)
    authenticator = Authenticator(RING, clock)
    text = token()
    authenticator.verify(text)
    clock.now = ISSUED - 10
    with pytest.raises(Unauthenticated) as refused:
        authenticator.verify(text)
    assert refused.value.code == INVALID_TOKEN


def test_a_token_with_another_signature_is_checked_not_taken_from_the_cache() -> None:
    clock = Clock(ISSUED + 1)
    authenticator = Authenticator(RING, clock)
    text = token()
    authenticator.verify(text)
    head, payload, signature = text.split(".")
    forged = f"{head}.{payload}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"
    with pytest.raises(Unauthenticated) as refused:
        authenticator.verify(forged)
    assert refused.value.code == INVALID_TOKEN
    assert forged not in authenticator.verified


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth, "MAX_VERIFIED", 3)
    clock = Clock(ISSUED + 1)
    authenticator = Authenticator(RING, clock)
    texts = [token(f"p{i}") for i in range(5)]
    for text in texts:
        authenticator.verify(text)
        assert len(authenticator.verified) <= 3
    assert all(authenticator.verify(text).player_id == f"p{i}" for i, text in enumerate(texts))
