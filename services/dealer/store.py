"""Where the dealer keeps each hand's secret seed and what it dealt: in memory (tests) or in
Redis (for real).

A deck is written once and never changed: ``create`` stores a record unless the same table and
hand already has one and returns whichever record is stored (so two concurrent ``StartDeck``
calls agree on one seed). Records expire after a TTL (a hand lasts minutes; 24 hours by default).

Beside the record, the store keeps the deck's *ledger*: which request dealt each position, and
whether the deck is closed (its seed revealed). ``claim`` checks and records a deal atomically:
positions no request dealt yet are taken by this one; positions this same request (same
``request_key``) dealt before are a retry; anything else refuses the whole deal and records nothing.
``close`` marks the deck closed; a closed deck refuses every claim.

Redis layout: one string key per deck, ``holdem:dealer:deck:<deck_id>``, holding a JSON object
``{"v": 1, "deck_id", "table_id", "hand_id", "idempotency_key", "seed" (hex), "algorithm"}``, and
the same object under its hand, ``holdem:dealer:hand:<sha256(table_id NUL hand_id)>``, both
written by one Lua script only when the hand has no deck yet (``PX <ttl>``); and its ledger, a
hash ``holdem:dealer:dealt:<deck_id>`` (field = position, value = request key; field ``closed``
once revealed) expiring with the record, changed only by Lua scripts. Anyone who can read these
keys can read seeds before they are revealed: keep this Redis private to the dealer.
"""

from __future__ import annotations

import enum
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis.asyncio as aioredis
import redis.exceptions

from libs.errors import Unavailable
from libs.platform.unavailable import DEPENDENCY_DOWN

KEY_PREFIX = "holdem:dealer:"  # + "deck:<deck_id>" (the record), + "dealt:<deck_id>" (ledger)
DEFAULT_TTL_SECONDS = 24 * 3600.0


def hand_digest(table_id: str, hand_id: str) -> str:
    """What names a hand in the store: hex SHA-256 of its table and hand ids (NUL-separated)."""
    return hashlib.sha256(table_id.encode() + b"\x00" + hand_id.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class DeckRecord:
    """One hand's deck: whose it is, the secret seed and the algorithm deriving the cards."""

    deck_id: str
    table_id: str
    hand_id: str
    idempotency_key: str
    seed: bytes
    algorithm: str


class Claim(enum.Enum):
    """How a ``claim`` ended."""

    DEALT = "dealt"  # recorded (or repeated by the request that dealt them)
    TAKEN = "taken"  # a position was dealt by another request: nothing recorded
    CLOSED = "closed"  # the deck's seed was revealed: nothing recorded
    MISSING = "missing"  # no such deck (never started, or expired)


@dataclass(frozen=True, slots=True)
class ClaimResult:
    outcome: Claim
    position: int | None = None  # for TAKEN: the first position another request dealt
    record: DeckRecord | None = None  # for DEALT: the deck (one round trip deals a card)


class SeedStoreUnavailable(Unavailable):
    """The store cannot be reached (UNAVAILABLE, ``DEPENDENCY_DOWN``: the caller may retry)."""

    code: str = DEPENDENCY_DOWN  # always this code

    def __init__(self, message: str) -> None:
        super().__init__(DEPENDENCY_DOWN, message)


class SeedStore(Protocol):
    async def create(self, record: DeckRecord) -> DeckRecord:
        """Store ``record`` unless its table's hand has a deck; return the hand's deck."""
        ...

    async def get(self, deck_id: str) -> DeckRecord | None: ...

    async def claim(self, deck_id: str, positions: Sequence[int], request_key: str) -> ClaimResult:
        """Record that the request ``request_key`` deals ``positions`` of the deck, unless the
        deck is closed or another request dealt one of them (then record nothing). A DEALT
        result carries the deck's record."""
        ...

    async def close_deck(self, deck_id: str) -> bool:
        """Mark the deck closed (idempotent); False when there is no such deck."""
        ...

    async def close(self) -> None: ...


@dataclass
class _Ledger:
    dealt: dict[int, str] = field(default_factory=dict)
    closed: bool = False


class InMemorySeedStore:
    """A dict with expiry, for unit tests (forgets everything when the process ends)."""

    def __init__(
        self,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._records: dict[str, tuple[DeckRecord, float]] = {}
        self._hands: dict[str, str] = {}  # hand_digest -> deck_id
        self._ledgers: dict[str, _Ledger] = {}

    async def create(self, record: DeckRecord) -> DeckRecord:
        hand = hand_digest(record.table_id, record.hand_id)
        deck_id = self._hands.get(hand)
        existing = None if deck_id is None else await self.get(deck_id)
        if existing is not None:
            return existing
        self._records[record.deck_id] = (record, self.clock() + self.ttl_seconds)
        self._hands[hand] = record.deck_id
        return record

    async def get(self, deck_id: str) -> DeckRecord | None:
        entry = self._records.get(deck_id)
        if entry is None:
            return None
        record, expires_at = entry
        if expires_at <= self.clock():
            del self._records[deck_id]
            self._ledgers.pop(deck_id, None)
            return None
        return record

    async def claim(self, deck_id: str, positions: Sequence[int], request_key: str) -> ClaimResult:
        record = await self.get(deck_id)
        if record is None:
            return ClaimResult(Claim.MISSING)
        ledger = self._ledgers.setdefault(deck_id, _Ledger())
        if ledger.closed:
            return ClaimResult(Claim.CLOSED)
        for position in positions:
            if ledger.dealt.get(position, request_key) != request_key:
                return ClaimResult(Claim.TAKEN, position)
        for position in positions:
            ledger.dealt[position] = request_key
        return ClaimResult(Claim.DEALT, record=record)

    async def close_deck(self, deck_id: str) -> bool:
        if await self.get(deck_id) is None:
            return False
        self._ledgers.setdefault(deck_id, _Ledger()).closed = True
        return True

    async def close(self) -> None:
        return None


def _encode(record: DeckRecord) -> str:
    return json.dumps(
        {
            "v": 1,
            "deck_id": record.deck_id,
            "table_id": record.table_id,
            "hand_id": record.hand_id,
            "idempotency_key": record.idempotency_key,
            "seed": record.seed.hex(),
            "algorithm": record.algorithm,
        },
        separators=(",", ":"),
    )


def _decode(deck_id: str, raw: str | bytes) -> DeckRecord:
    doc = json.loads(raw)
    return DeckRecord(
        deck_id=doc.get("deck_id", deck_id),
        table_id=doc["table_id"],
        hand_id=doc["hand_id"],
        idempotency_key=doc["idempotency_key"],
        seed=bytes.fromhex(doc["seed"]),
        algorithm=doc["algorithm"],
    )


# KEYS: hand, record. ARGV: the record (JSON), TTL ms -> the hand's record (JSON): the one
# stored before, or this one, stored under the hand and under its deck id.
_CREATE = """
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
"""

# KEYS: record, ledger. ARGV: request key, positions... -> {"dealt", record} |
# {"taken", position} | {"closed"} | {"missing"}. The ledger expires with the record.
_CLAIM = """
local record = redis.call('GET', KEYS[1])
if not record then return {'missing'} end
local ttl = redis.call('PTTL', KEYS[1])
if redis.call('HEXISTS', KEYS[2], 'closed') == 1 then return {'closed'} end
for i = 2, #ARGV do
  local previous = redis.call('HGET', KEYS[2], ARGV[i])
  if previous and previous ~= ARGV[1] then return {'taken', ARGV[i]} end
end
for i = 2, #ARGV do redis.call('HSET', KEYS[2], ARGV[i], ARGV[1]) end
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return {'dealt', record}
"""

# KEYS: record, ledger -> 1 (closed now or before) | 0 (no such deck).
_CLOSE = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return 0 end
redis.call('HSET', KEYS[2], 'closed', '1')
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisSeedStore:
    """Seeds in Redis, so a restarted dealer (or another replica) deals the same decks."""

    def __init__(
        self,
        client: aioredis.Redis,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        key_prefix: str = KEY_PREFIX,
    ) -> None:
        self.client = client
        self.ttl_ms = max(int(ttl_seconds * 1000), 1)
        self.key_prefix = key_prefix
        self._create = client.register_script(_CREATE)
        self._claim = client.register_script(_CLAIM)
        self._close = client.register_script(_CLOSE)

    @classmethod
    def from_url(
        cls,
        url: str,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        options: dict[str, Any] | None = None,
    ) -> RedisSeedStore:
        """``options`` go to redis-py (TLS: ``libs.platform.tls.redis_options``)."""
        # Short socket timeouts: a call should fail UNAVAILABLE well inside the caller's deadline.
        client = aioredis.Redis.from_url(
            url, socket_connect_timeout=2, socket_timeout=2, **(options or {})
        )
        return cls(client, ttl_seconds)

    def key(self, deck_id: str) -> str:
        return f"{self.key_prefix}deck:{deck_id}"

    def ledger_key(self, deck_id: str) -> str:
        return f"{self.key_prefix}dealt:{deck_id}"

    def hand_key(self, table_id: str, hand_id: str) -> str:
        return f"{self.key_prefix}hand:{hand_digest(table_id, hand_id)}"

    async def create(self, record: DeckRecord) -> DeckRecord:
        keys = [self.hand_key(record.table_id, record.hand_id), self.key(record.deck_id)]
        try:
            raw = await self._create(keys=keys, args=[_encode(record), self.ttl_ms])
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise SeedStoreUnavailable(f"seed store unavailable: {exc}") from exc
        return _decode(record.deck_id, raw)

    async def get(self, deck_id: str) -> DeckRecord | None:
        try:
            raw = await self.client.get(self.key(deck_id))
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise SeedStoreUnavailable(f"seed store unavailable: {exc}") from exc
        return None if raw is None else _decode(deck_id, raw)

    async def claim(self, deck_id: str, positions: Sequence[int], request_key: str) -> ClaimResult:
        keys = [self.key(deck_id), self.ledger_key(deck_id)]
        try:
            reply = await self._claim(keys=keys, args=[request_key, *map(str, positions)])
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise SeedStoreUnavailable(f"seed store unavailable: {exc}") from exc
        outcome = Claim(_text(reply[0]))
        if outcome is Claim.TAKEN:
            return ClaimResult(outcome, position=int(_text(reply[1])))
        if outcome is Claim.DEALT:
            return ClaimResult(outcome, record=_decode(deck_id, reply[1]))
        return ClaimResult(outcome)

    async def close_deck(self, deck_id: str) -> bool:
        try:
            closed = await self._close(keys=[self.key(deck_id), self.ledger_key(deck_id)])
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise SeedStoreUnavailable(f"seed store unavailable: {exc}") from exc
        return bool(closed)

    async def close(self) -> None:
        await self.client.aclose()
