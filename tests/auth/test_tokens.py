"""libs.auth.tokens: tokens verify only as issued, within their lifetime, by a key in the ring;
retired keys keep verifying; anything else is refused with a reason that never echoes the token."""

from __future__ import annotations

import base64
import json

import pytest

from libs.auth import InvalidToken, KeyRing, SigningKey, TokenClaims, issue, issue_for, verify
from libs.auth.tokens import MAX_TOKEN_CHARS, TOKEN_EXPIRED

OLD = SigningKey("old", b"o" * 32)
NEW = SigningKey("new", b"n" * 32)
NOW = 1_800_000_000.0


def alice(ring: KeyRing, now: float = NOW, ttl: int = 3600) -> tuple[str, TokenClaims]:
    return issue(
        ring,
        player_id="p-alice",
        username="alice",
        display_name="Alice ♠",
        guest=False,
        now=now,
        ttl_seconds=ttl,
    )


def test_an_issued_token_verifies_to_its_claims() -> None:
    ring = KeyRing.of(NEW)
    token, claims = alice(ring)
    assert verify(ring, token, now=NOW + 10) == claims
    assert claims.kid == "new" and claims.expires_at == int(NOW) + 3600
    assert (claims.player_id, claims.username, claims.display_name) == (
        "p-alice",
        "alice",
        "Alice ♠",
    )
    assert not claims.guest and len(claims.jti) == 32


def test_every_token_has_its_own_jti() -> None:
    ring = KeyRing.of(NEW)
    assert alice(ring)[1].jti != alice(ring)[1].jti


def test_a_token_signed_by_a_retired_key_still_verifies_until_it_expires() -> None:
    before = KeyRing.of(OLD)
    token, _ = alice(before)
    rotated = KeyRing.of(NEW, OLD)  # NEW signs now, OLD only verifies
    assert verify(rotated, token, now=NOW + 60).kid == "old"
    assert alice(rotated)[1].kid == "new"
    with pytest.raises(InvalidToken) as caught:
        verify(rotated, token, now=NOW + 3600)
    assert caught.value.code == TOKEN_EXPIRED


def test_a_removed_key_no_longer_verifies_its_tokens() -> None:
    token, _ = alice(KeyRing.of(OLD))
    with pytest.raises(InvalidToken, match="no longer accepted"):
        verify(KeyRing.of(NEW), token, now=NOW)


def test_expiry_is_exact_and_leeway_allows_clock_skew() -> None:
    ring = KeyRing.of(NEW)
    token, claims = alice(ring, ttl=60)
    verify(ring, token, now=claims.expires_at - 0.001)
    with pytest.raises(InvalidToken, match="expired"):
        verify(ring, token, now=claims.expires_at)
    verify(ring, token, now=claims.expires_at + 4, leeway=5)
    with pytest.raises(InvalidToken, match="not valid yet"):
        verify(ring, token, now=NOW - 30)
    verify(ring, token, now=NOW - 30, leeway=30)


def _parts(token: str) -> list[str]:
    return token.split(".")


def _b64(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def _claims_of(token: str) -> dict[str, object]:
    payload = _parts(token)[1]
    decoded: dict[str, object] = json.loads(base64.urlsafe_b64decode(payload + "=" * 4))
    return decoded


def test_a_forged_or_altered_token_is_refused() -> None:
    ring = KeyRing.of(NEW)
    token, _ = alice(ring)
    header, _payload, signature = _parts(token)
    claims = _claims_of(token)
    claims["sub"] = "p-mallory"
    altered = f"{header}.{_b64(claims)}.{signature}"
    with pytest.raises(InvalidToken, match="signature"):
        verify(ring, altered, now=NOW)
    forged, _ = alice(KeyRing.of(SigningKey("new", b"x" * 32)))  # right kid, wrong secret
    with pytest.raises(InvalidToken, match="signature"):
        verify(ring, forged, now=NOW)


@pytest.mark.parametrize(
    "header",
    [
        {"alg": "none", "typ": "JWT", "kid": "new"},
        {"alg": "HS512", "typ": "JWT", "kid": "new"},
        {"alg": "HS256", "typ": "JWT"},
        {"alg": "HS256", "typ": "JWT", "kid": "../../etc"},
    ],
)
def test_only_hs256_with_a_known_key_id_is_accepted(header: dict[str, object]) -> None:
    ring = KeyRing.of(NEW)
    token, _ = alice(ring)
    _, payload, signature = _parts(token)
    with pytest.raises(InvalidToken):
        verify(ring, f"{_b64(header)}.{payload}.{signature}", now=NOW)


@pytest.mark.parametrize(
    "token",
    ["", "abc", "a.b", "a.b.c.d", "!!.??.**", "e30.e30.e30", "x" * (MAX_TOKEN_CHARS + 1), "é.é.é"],
)
def test_malformed_tokens_are_refused_without_echoing_them(token: str) -> None:
    with pytest.raises(InvalidToken) as caught:
        verify(KeyRing.of(NEW), token, now=NOW)
    assert caught.value.kind == "unauthenticated"
    if len(token) > 3:
        assert token not in caught.value.message


@pytest.mark.parametrize(
    ("claim", "value"),
    [("guest", 0), ("iat", True), ("exp", "soon"), ("sub", "has space"), ("jti", "short")],
)
def test_claims_of_the_wrong_shape_are_refused_even_when_signed(claim: str, value: object) -> None:
    """A token that verifies but whose claims are not exactly our shape is not trusted."""
    import hashlib
    import hmac

    ring = KeyRing.of(NEW)
    token, _ = alice(ring)
    header = _parts(token)[0]
    claims = _claims_of(token)
    claims[claim] = value
    body = f"{header}.{_b64(claims)}"
    signature = hmac.new(NEW.secret, body.encode(), hashlib.sha256).digest()
    resigned = f"{body}.{base64.urlsafe_b64encode(signature).decode().rstrip('=')}"
    with pytest.raises(InvalidToken, match="malformed"):
        verify(ring, resigned, now=NOW)


def test_guest_tokens_say_so() -> None:
    ring = KeyRing.of(NEW)
    token, _ = issue(
        ring, player_id="g1", username="", display_name="Guest", guest=True, now=NOW, ttl_seconds=60
    )
    assert verify(ring, token, now=NOW).guest


def test_a_token_for_a_player_known_by_id_alone_is_named_by_its_id() -> None:
    ring = KeyRing.of(NEW)
    long_id = "p" * 64
    for player, guest in (("bot-7", False), (long_id, True)):
        claims = verify(
            ring, issue_for(ring, player, now=NOW, ttl_seconds=60, guest=guest), now=NOW
        )
        assert (claims.player_id, claims.username, claims.display_name, claims.guest) == (
            player,
            player[:32],
            player[:32],
            guest,
        )
    with pytest.raises(ValueError):
        issue_for(ring, "not an id!", now=NOW, ttl_seconds=60)
