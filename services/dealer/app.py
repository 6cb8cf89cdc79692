"""Dealer use cases: start a hand's deck (fresh CSPRNG seed, published commitment), deal cards by
deck position, reveal the seed after the hand.

The deck follows from the seed by ``libs.fairdeck`` (algorithm ``holdem-deck-v1``, documented
there), so dealing is a pure lookup: position ``i`` of a deck is always the same card. Hence:

- ``deal`` is idempotent by position: asking again for a position returns the same card (a table
  retrying a call, or restarted mid-hand, continues the same deck). The dealer does not track
  which positions were dealt; the table's event stream is the record of that.
- ``reveal`` does not close the deck: after it, ``deal`` still answers with the same cards. That
  reveals nothing new (the seed is public by then), and keeps every call a harmless repeat. The
  table calls ``reveal`` only once its hand has ended.
- A deck is identified by its table and hand: ``deck_id`` is derived from them (``deck_id_for``),
  so ``start_deck`` repeated with the same table, hand and idempotency key returns the same deck
  and commitment, also after a dealer restart (seeds live in the ``SeedStore``: Redis). The same
  table and hand with a *different* idempotency key is refused (ALREADY_EXISTS): a second hand
  reusing a hand id must never get a deck whose seed may already be public.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from libs import fairdeck
from libs.platform.errors import AlreadyExists, InvalidArgument, NotFound
from services.dealer.store import DeckRecord, SeedStore

# Error codes.
INVALID_TABLE_ID = "INVALID_TABLE_ID"
INVALID_HAND_ID = "INVALID_HAND_ID"
INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"
INVALID_DECK_ID = "INVALID_DECK_ID"
INVALID_CARD_INDEX = "INVALID_CARD_INDEX"
HAND_HAS_DECK = "HAND_HAS_DECK"
DECK_NOT_FOUND = "DECK_NOT_FOUND"

DECK_SIZE = 52
MAX_ID_LENGTH = 128
DECK_ID = re.compile(r"^[0-9a-f]{32}$")
_DECK_ID_TAG = b"holdem-deck-id-v1\x00"


@dataclass(frozen=True, slots=True)
class StartedDeck:
    deck_id: str
    commitment: str  # hex SHA-256 of the seed
    algorithm: str
    deck_size: int


@dataclass(frozen=True, slots=True)
class RevealedSeed:
    seed: bytes
    commitment: str
    algorithm: str


def deck_id_for(table_id: str, hand_id: str) -> str:
    """The deck id of a table's hand: 32 hex digits of SHA-256 over both ids (NUL-separated;
    ids never contain control characters, so different pairs never collide by concatenation)."""
    digest = hashlib.sha256(
        _DECK_ID_TAG + table_id.encode() + b"\x00" + hand_id.encode()
    ).hexdigest()
    return digest[:32]


@functools.lru_cache(maxsize=4096)
def _deck(seed: bytes) -> tuple[int, ...]:
    # Live hands deal the same deck a dozen times; deriving it costs ~80 us.
    return fairdeck.deck_from_seed(seed)


def _id_problem(field: str, value: str, *, required: bool = True) -> str | None:
    """What is wrong with an id, or None."""
    if required and not value:
        return f"{field} is required"
    if len(value) > MAX_ID_LENGTH or not value.isprintable():
        return f"{field} must be at most {MAX_ID_LENGTH} printable characters"
    return None


def _check_deck_id(deck_id: str) -> None:
    if not deck_id:
        raise InvalidArgument(INVALID_DECK_ID, "deck_id is required")
    if not DECK_ID.match(deck_id):
        raise InvalidArgument(
            INVALID_DECK_ID, f"deck_id {deck_id[:40]!r} is not a deck id (32 hex digits)"
        )


class Dealer:
    def __init__(self, store: SeedStore, new_seed: Callable[[], bytes] = fairdeck.new_seed):
        self.store = store
        self.new_seed = new_seed

    async def start_deck(self, table_id: str, hand_id: str, idempotency_key: str) -> StartedDeck:
        """The hand's deck, drawn on the first call (an empty idempotency key is a valid key)."""
        if problem := _id_problem("table_id", table_id):
            raise InvalidArgument(INVALID_TABLE_ID, problem)
        if problem := _id_problem("hand_id", hand_id):
            raise InvalidArgument(INVALID_HAND_ID, problem)
        if problem := _id_problem("idempotency_key", idempotency_key, required=False):
            raise InvalidArgument(INVALID_IDEMPOTENCY_KEY, problem)
        wanted = DeckRecord(
            deck_id=deck_id_for(table_id, hand_id),
            table_id=table_id,
            hand_id=hand_id,
            idempotency_key=idempotency_key,
            seed=self.new_seed(),
            algorithm=fairdeck.ALGORITHM,
        )
        stored = await self.store.create(wanted)
        if stored.idempotency_key != idempotency_key:
            raise AlreadyExists(
                HAND_HAS_DECK,
                f"hand {hand_id!r} of table {table_id!r} already has deck {stored.deck_id}, "
                "started with another idempotency key",
            )
        return StartedDeck(
            deck_id=stored.deck_id,
            commitment=fairdeck.commitment(stored.seed),
            algorithm=stored.algorithm,
            deck_size=DECK_SIZE,
        )

    async def deal(self, deck_id: str, indexes: Sequence[int]) -> tuple[int, ...]:
        """The cards (0..51, rank * 4 + suit) at the given deck positions, in request order."""
        _check_deck_id(deck_id)
        if not indexes:
            raise InvalidArgument(INVALID_CARD_INDEX, "indexes must name at least one position")
        if len(indexes) > DECK_SIZE:
            raise InvalidArgument(
                INVALID_CARD_INDEX, f"at most {DECK_SIZE} positions per call, not {len(indexes)}"
            )
        bad = [i for i in indexes if not 0 <= i < DECK_SIZE]
        if bad:
            raise InvalidArgument(
                INVALID_CARD_INDEX,
                f"deck positions are 0..{DECK_SIZE - 1}; got {', '.join(map(str, bad[:5]))}",
            )
        record = await self._record(deck_id)
        deck = _deck(record.seed)
        return tuple(deck[i] for i in indexes)

    async def reveal(self, deck_id: str) -> RevealedSeed:
        """The seed, for the hand-end event (call only once the hand is over)."""
        _check_deck_id(deck_id)
        record = await self._record(deck_id)
        return RevealedSeed(record.seed, fairdeck.commitment(record.seed), record.algorithm)

    async def _record(self, deck_id: str) -> DeckRecord:
        record = await self.store.get(deck_id)
        if record is None:
            raise NotFound(
                DECK_NOT_FOUND, f"no deck {deck_id} (never started, or expired after its TTL)"
            )
        return record
