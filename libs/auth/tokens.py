"""Signed bearer tokens: issue and verify, pure (the caller passes the time).

A token is a JWT in compact form, ``base64url(header).base64url(claims).base64url(signature)``,
signed with HMAC-SHA256 by the key ring's signing key:

- header ``{"alg": "HS256", "typ": "JWT", "kid": <key id>}``;
- claims ``{"sub": player id, "usr": username, "name": display name, "guest": bool,
  "kid": key id, "iat": issued at, "exp": expires at (seconds since the epoch, integers),
  "jti": unique token id}``.

:func:`verify` accepts a token only if every part is exactly that shape, its key id is in the
ring, the signature matches (compared in constant time), and ``iat <= now < exp`` (``leeway``
seconds of clock skew allowed on both). Whether the ``jti`` was revoked (logout) is the caller's
second question (:mod:`libs.eventstore.revoked`). Errors never repeat the token.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

from .keys import KID, KeyRing

ALGORITHM = "HS256"
#: Longer strings are refused before any work is done.
MAX_TOKEN_CHARS = 2048
INVALID_TOKEN = "INVALID_TOKEN"
TOKEN_EXPIRED = "TOKEN_EXPIRED"
_PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_JTI = re.compile(r"[A-Za-z0-9_-]{16,64}")
_B64URL = re.compile(r"[A-Za-z0-9_-]*")
_MAX_TEXT = 256


class InvalidToken(Exception):
    """The token cannot be trusted (UNAUTHENTICATED). ``code``: ``INVALID_TOKEN`` or
    ``TOKEN_EXPIRED``; ``message`` says why, for people, without echoing the token."""

    kind = "unauthenticated"

    def __init__(self, message: str, code: str = INVALID_TOKEN) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class TokenClaims:
    player_id: str
    username: str
    display_name: str
    guest: bool
    kid: str
    issued_at: int
    expires_at: int
    jti: str

    def remaining_seconds(self, now: float) -> float:
        return max(0.0, self.expires_at - now)

    def to_json(self) -> dict[str, Any]:
        return {
            "sub": self.player_id,
            "usr": self.username,
            "name": self.display_name,
            "guest": self.guest,
            "kid": self.kid,
            "iat": self.issued_at,
            "exp": self.expires_at,
            "jti": self.jti,
        }


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    if not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        raise InvalidToken("the token is malformed")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise InvalidToken("the token is malformed") from None


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()


def _sign(secret: bytes, signing_input: bytes) -> bytes:
    return hmac.new(secret, signing_input, hashlib.sha256).digest()


def new_jti() -> str:
    return secrets.token_hex(16)


def issue(
    ring: KeyRing,
    *,
    player_id: str,
    username: str,
    display_name: str,
    guest: bool,
    now: float,
    ttl_seconds: int,
    jti: str | None = None,
) -> tuple[str, TokenClaims]:
    """A new token signed by the ring's signing key, valid from ``now`` for ``ttl_seconds``."""
    if ttl_seconds <= 0:
        raise ValueError("a token lives at least one second")
    if not _PLAYER_ID.fullmatch(player_id):
        raise ValueError("a player id is 1-64 of A-Z a-z 0-9 '_' '-'")
    key = ring.signing
    issued = int(now)
    claims = TokenClaims(
        player_id=player_id,
        username=username,
        display_name=display_name,
        guest=guest,
        kid=key.kid,
        issued_at=issued,
        expires_at=issued + ttl_seconds,
        jti=jti or new_jti(),
    )
    header = _b64(_json({"alg": ALGORITHM, "typ": "JWT", "kid": key.kid}))
    payload = _b64(_json(claims.to_json()))
    signing_input = f"{header}.{payload}".encode("ascii")
    return f"{header}.{payload}.{_b64(_sign(key.secret, signing_input))}", claims


def issue_for(
    ring: KeyRing, player_id: str, *, now: float, ttl_seconds: int, guest: bool = False
) -> str:
    """A token for a player known by its id alone (tools, benchmarks, load generators, tests):
    its username and display name are the id, cut to 32 characters as the lobby's names are."""
    text, _ = issue(
        ring,
        player_id=player_id,
        username=player_id[:32],
        display_name=player_id[:32],
        guest=guest,
        now=now,
        ttl_seconds=ttl_seconds,
    )
    return text


def _object(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        raise InvalidToken("the token is malformed") from None
    if not isinstance(value, dict):
        raise InvalidToken("the token is malformed")
    return value


def _text(claims: dict[str, Any], name: str, pattern: re.Pattern[str] | None = None) -> str:
    value = claims.get(name)
    if not isinstance(value, str) or len(value) > _MAX_TEXT:
        raise InvalidToken("the token is malformed")
    if pattern is not None and not pattern.fullmatch(value):
        raise InvalidToken("the token is malformed")
    return value


def _seconds(claims: dict[str, Any], name: str) -> int:
    value = claims.get(name)
    # bool is an int in Python: refuse it explicitly
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**40:
        raise InvalidToken("the token is malformed")
    return value


def verify(ring: KeyRing, token: str, *, now: float, leeway: float = 0.0) -> TokenClaims:
    """The claims of a valid token, else :class:`InvalidToken` saying why."""
    if not isinstance(token, str) or not token:
        raise InvalidToken("a token is required")
    if len(token) > MAX_TOKEN_CHARS:
        raise InvalidToken(f"the token is longer than {MAX_TOKEN_CHARS} characters")
    parts = token.split(".")
    if len(parts) != 3:
        raise InvalidToken("the token is malformed")
    header_b64, payload_b64, signature_b64 = parts
    header = _object(_unb64(header_b64))
    if header.get("alg") != ALGORITHM or header.get("typ", "JWT") != "JWT":
        raise InvalidToken("the token is not signed with HS256")
    kid = header.get("kid")
    if not isinstance(kid, str) or not KID.fullmatch(kid):
        raise InvalidToken("the token names no valid key id")
    key = ring.get(kid)
    if key is None:
        raise InvalidToken("the token was signed with a key that is no longer accepted")
    signature = _unb64(signature_b64)
    expected = _sign(key.secret, f"{header_b64}.{payload_b64}".encode("ascii"))
    if not hmac.compare_digest(signature, expected):
        raise InvalidToken("the token's signature does not match")
    claims = _object(_unb64(payload_b64))
    parsed = TokenClaims(
        player_id=_text(claims, "sub", _PLAYER_ID),
        username=_text(claims, "usr"),
        display_name=_text(claims, "name"),
        guest=_flag(claims, "guest"),
        kid=_text(claims, "kid"),
        issued_at=_seconds(claims, "iat"),
        expires_at=_seconds(claims, "exp"),
        jti=_text(claims, "jti", _JTI),
    )
    if parsed.kid != kid:
        raise InvalidToken("the token is malformed")
    if parsed.expires_at <= parsed.issued_at:
        raise InvalidToken("the token is malformed")
    if parsed.issued_at > now + leeway:
        raise InvalidToken("the token is not valid yet")
    if now >= parsed.expires_at + leeway:
        raise InvalidToken("the token has expired: log in again", code=TOKEN_EXPIRED)
    return parsed


def _flag(claims: dict[str, Any], name: str) -> bool:
    value = claims.get(name)
    if not isinstance(value, bool):
        raise InvalidToken("the token is malformed")
    return value
