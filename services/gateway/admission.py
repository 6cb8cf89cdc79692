"""Who is calling, and how often: every gateway call passes here first. A call with a token is
its player's (the token verified, not revoked, not logged out at this gateway) and limited per
player; an open call (Register, Login, GuestLogin, ListTables) and a call whose token is refused
are limited per peer. A call over its rate is RESOURCE_EXHAUSTED (``RATE_LIMITED``) with a retry
hint."""

from __future__ import annotations

import time
from collections.abc import Callable

from libs.auth import TokenClaims
from libs.errors import ResourceExhausted, Unauthenticated
from libs.platform.callers import caller_of
from libs.platform.ratelimit import RateLimiter
from libs.platform.server import Context
from services.gateway.auth import REVOKED_TOKEN, Authenticator
from services.gateway.revocations import RevocationCheck

RATE_LIMITED = "RATE_LIMITED"
#: Logged-out tokens remembered here at most (expired ones are forgotten past it).
MAX_LOGGED_OUT = 10_000


class Admission:
    def __init__(
        self,
        auth: Authenticator,
        revocations: RevocationCheck | None,
        limiter: RateLimiter,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.auth = auth
        self.revocations = revocations  # None: no NATS, nothing can be revoked
        self.limiter = limiter
        self.clock = clock
        self.logged_out: dict[str, float] = {}  # jti -> expiry, until the revocation watch has it

    def admit(self, who: str) -> None:
        """One call of ``who`` ("peer:<address>" or "player:<id>"), or RATE_LIMITED."""
        wait = self.limiter.take(who, self.clock())
        if wait > 0:
            retry_ms = max(1, int(wait * 1000) + 1)
            raise ResourceExhausted(
                RATE_LIMITED, f"too many calls: retry in {retry_ms} ms", retry_after_ms=retry_ms
            )

    def open(self, context: Context) -> None:
        """An open call (no token): limited per peer."""
        self.admit("peer:" + caller_of(context).address)

    async def caller(self, context: Context) -> TokenClaims:
        """The caller's verified token (limited per player)."""
        peer = "peer:" + caller_of(context).address
        try:
            claims = self.auth.claims(context.invocation_metadata())
            if self.revocations is not None and await self.revocations.revoked(claims):
                raise Unauthenticated(
                    REVOKED_TOKEN, "the token was revoked (logged out): log in again"
                )
        except Unauthenticated:
            self.admit(peer)  # bad tokens count against the peer
            raise
        expiry = self.logged_out.get(claims.jti)
        if expiry is not None:
            if expiry > time.time():
                raise Unauthenticated(
                    REVOKED_TOKEN, "the token was revoked (logged out): log in again"
                )
            del self.logged_out[claims.jti]
        self.admit("player:" + claims.player_id)
        return claims

    def log_out(self, claims: TokenClaims) -> None:
        """``claims``' token is refused here from now on (before the revocation watch, which
        the lobby's revocation reaches a moment later, has it)."""
        now = time.time()
        if len(self.logged_out) > MAX_LOGGED_OUT:  # expired tokens are refused anyway
            self.logged_out = {j: e for j, e in self.logged_out.items() if e > now}
        self.logged_out[claims.jti] = float(claims.expires_at)
