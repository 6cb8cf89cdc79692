"""Who is calling: the bearer token of a call, verified here (contract-13 §4) with the key ring
of HOLDEM_TOKEN_KEYS, with no lobby round trip. Whether a verified token was revoked (logged
out) is asked of ``revocations.RevocationCheck``.

A player sends the same token with every call: one whose signature was checked is kept with its
claims (at most ``MAX_VERIFIED`` tokens), so its next calls cost a dictionary lookup and the two
clock checks (not valid yet, expired) instead of two base64 decodes, a JSON parse and an HMAC.
The clock checks run on every call as before: a kept token that expired is refused as one."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from libs.auth import InvalidToken, KeyRing, TokenClaims, verify
from libs.auth.tokens import INVALID_TOKEN, TOKEN_EXPIRED
from libs.errors import Unauthenticated

MALFORMED_TOKEN = "MALFORMED_TOKEN"
MISSING_TOKEN = "MISSING_TOKEN"
REVOKED_TOKEN = "TOKEN_REVOKED"
#: Verified tokens kept with their claims; the next one verified past it empties the cache.
MAX_VERIFIED = 10_000

AUTHORIZATION_HEADER = "authorization"
_BEARER = "bearer "


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The token of an ``authorization: Bearer <token>`` header; Unauthenticated otherwise."""
    for key, value in metadata or ():
        if key.lower() == AUTHORIZATION_HEADER and isinstance(value, str):
            if value[: len(_BEARER)].lower() == _BEARER and value[len(_BEARER) :].strip():
                return value[len(_BEARER) :].strip()
            raise Unauthenticated(MALFORMED_TOKEN, "authorization must be 'Bearer <token>'")
    raise Unauthenticated(MISSING_TOKEN, "this call needs 'authorization: Bearer <token>'")


class Authenticator:
    """Verifies tokens locally. ``keys`` None: nothing verifies (no HOLDEM_TOKEN_KEYS)."""

    def __init__(self, keys: KeyRing | None, clock: Callable[[], float] = time.time) -> None:
        self.keys = keys
        self.clock = clock
        self.verified: dict[str, TokenClaims] = {}  # token -> its claims, signature checked

    def claims(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> TokenClaims:
        return self.verify(bearer_token(metadata))

    def verify(self, token: str) -> TokenClaims:
        if self.keys is None:
            raise Unauthenticated(INVALID_TOKEN, "this gateway has no token keys configured")
        now = self.clock()
        kept = self.verified.get(token)
        if kept is not None and kept.issued_at <= now < kept.expires_at:
            return kept  # its signature was checked; still valid at ``now`` (verify's rules)
        try:
            claims = verify(self.keys, token, now=now)
        except InvalidToken as exc:
            self.verified.pop(token, None)
            if exc.code == TOKEN_EXPIRED:
                raise Unauthenticated(TOKEN_EXPIRED, exc.message) from None
            raise Unauthenticated(INVALID_TOKEN, exc.message) from None
        if len(self.verified) >= MAX_VERIFIED:
            self.verified.clear()
        self.verified[token] = claims
        return claims
