"""Logout: revoked token ids in the NATS KV bucket ``holdem_revoked`` (contract-13 §4).

The lobby :meth:`Revocations.revoke`s a token's ``jti`` (value: the token's expiry, seconds since
the epoch). The bucket's entries age out after ``max_age`` seconds, which is at least the longest
token lifetime, so an entry outlives the token it names (NATS 2.9, which the stack runs, has no
per-key TTL: the bucket's age limit stands in for "TTL = the token's remaining life").

The gateway checks tokens without a round trip: it watches the bucket and keeps the revoked ids
in memory (services/gateway/revocations.py ``RevokedTokens``, its one reader of the bucket's
changes). The bucket is storage like the other KV buckets, so it is opened here, the one way
(``open_bucket``); libs/auth keeps the tokens themselves and imports no storage.
"""

from __future__ import annotations

from nats.aio.client import Client as NATS
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from libs.auth.tokens import TokenClaims

from .kv import open_bucket

REVOKED_BUCKET = "holdem_revoked"


async def revoked_bucket(
    nc: NATS, max_token_seconds: float, bucket: str = REVOKED_BUCKET, replicas: int = 1
) -> KeyValue:
    """The bucket (created when missing; its age limit raised when shorter than
    ``max_token_seconds``, so no revocation ages out before its token)."""
    js = nc.jetstream()
    wanted = KeyValueConfig(
        bucket=bucket,
        ttl=float(max_token_seconds),
        history=1,
        storage=StorageType.FILE,
        replicas=replicas,
    )
    kv = await open_bucket(js, wanted)
    status = await kv.status()
    if status.ttl is not None and 0 < status.ttl < max_token_seconds:
        config = status.stream_info.config
        config.max_age = float(max_token_seconds)
        await js.update_stream(config)
    return kv


class Revocations:
    """Writing and asking the bucket (the lobby's side)."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv

    async def revoke(self, claims: TokenClaims) -> None:
        """Idempotent: revoking a revoked token again changes nothing that matters."""
        await self.kv.put(claims.jti, str(claims.expires_at).encode())

    async def is_revoked(self, jti: str) -> bool:
        try:
            entry = await self.kv.get(jti)
        except KeyNotFoundError:
            return False
        return entry.value is not None and entry.operation is None
