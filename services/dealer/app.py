"""Dealer use cases: start a hand's deck (fresh CSPRNG seed, published commitment), deal cards by
deck position, reveal the seed after the hand.

The deck follows from the seed by ``libs.fairdeck`` (algorithm ``holdem-deck-v1``, documented
there): position ``i`` of a deck is always the same card. What the dealer guards is who gets to
see it, and when:

- Each position is dealt once. ``deal`` records, per deck, which request dealt each position
  (the ledger in the ``SeedStore``). The same request again (same deck, same positions in the same
  order) is a retry and gets the same cards: a table that crashed after the dealer answered and
  before it committed asks again with exactly that request (its deal steps are deterministic:
  ``DealLayout``) and continues the hand. Any other request naming a dealt position is refused
  (FAILED_PRECONDITION ``POSITION_DEALT``) and deals nothing; so is a request repeating a
  position (INVALID_ARGUMENT).
- ``reveal`` closes the deck first, then returns the seed: from then on ``deal`` refuses every
  request (``DECK_CLOSED``), retries included. The dealer cannot know when a hand ended; the
  table's reveal call is that signal, so only the table may make it. Restricting ``DealCards``
  and ``RevealSeed`` to the table service is the servicer's caller policy
  (``libs.platform.callers``), effective once services authenticate each other.
- A hand has one deck: ``start_deck`` repeated with the same table, hand and idempotency key
  returns the same deck and commitment, also after a dealer restart (seeds live in the
  ``SeedStore``: Redis, which keeps the hand's deck under the table and hand). The same table and
  hand with a *different* idempotency key is refused (ALREADY_EXISTS): a second hand reusing a
  hand id must never get a deck whose seed may already be public.
- ``deck_id`` is derived from the table, the hand *and the deck's commitment*
  (``deck_id_for``): if the store loses a deck (Redis wiped) and the hand's deck is drawn again,
  the new deck has another id. A table that committed the first deck's commitment then deals
  by the first id, finds no deck (NOT_FOUND) and voids the hand, instead of being dealt cards
  from a seed that does not match what it committed.

Ids and keys reach these use cases checked by the platform's request validation (the rules in
dealer.proto: ids of ``[A-Za-z0-9_-]``, keys of printable ASCII); the deck positions are checked
here too, as the dealer's own rules.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from libs import fairdeck
from libs.errors import AlreadyExists, InvalidArgument, NotFound, PreconditionFailed
from libs.fairdeck.errors import DECK_CLOSED
from libs.platform.metrics import dealer as metrics
from services.dealer.store import Claim, DeckRecord, SeedStore

# Error codes.
INVALID_DECK_ID = "INVALID_DECK_ID"
INVALID_CARD_INDEX = "INVALID_CARD_INDEX"
DUPLICATE_CARD_INDEX = "DUPLICATE_CARD_INDEX"
HAND_HAS_DECK = "HAND_HAS_DECK"
DECK_NOT_FOUND = "DECK_NOT_FOUND"
POSITION_DEALT = "POSITION_DEALT"

DECK_SIZE = 52
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


def deck_id_for(table_id: str, hand_id: str, commitment: str) -> str:
    """The id of one deck of a table's hand: 32 hex digits of SHA-256 over both ids and the
    deck's commitment (NUL-separated; ids never contain control characters, so different
    triples never collide by concatenation). Another seed for the same hand, another id."""
    digest = hashlib.sha256(
        _DECK_ID_TAG
        + table_id.encode()
        + b"\x00"
        + hand_id.encode()
        + b"\x00"
        + commitment.encode()
    ).hexdigest()
    return digest[:32]


@functools.lru_cache(maxsize=4096)
def _deck(seed: bytes) -> tuple[int, ...]:
    # Live hands deal the same deck a dozen times; deriving it costs ~80 us.
    return fairdeck.deck_from_seed(seed)


def _check_deck_id(deck_id: str) -> None:
    if not DECK_ID.match(deck_id):
        raise InvalidArgument(INVALID_DECK_ID, "deck_id must be 32 lower-case hex digits")


def _check_positions(indexes: Sequence[int]) -> None:
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
    if len(set(indexes)) != len(indexes):
        raise InvalidArgument(DUPLICATE_CARD_INDEX, "a position appears twice in the request")


def request_key(indexes: Sequence[int]) -> str:
    """What makes two deal requests of one deck the same request: the positions, in order."""
    return ",".join(map(str, indexes))


class Dealer:
    def __init__(self, store: SeedStore, new_seed: Callable[[], bytes] = fairdeck.new_seed):
        self.store = store
        self.new_seed = new_seed

    async def start_deck(self, table_id: str, hand_id: str, idempotency_key: str) -> StartedDeck:
        """The hand's deck, drawn on the first call (an empty idempotency key is a valid key)."""
        seed = self.new_seed()
        wanted = DeckRecord(
            deck_id=deck_id_for(table_id, hand_id, fairdeck.commitment(seed)),
            table_id=table_id,
            hand_id=hand_id,
            idempotency_key=idempotency_key,
            seed=seed,
            algorithm=fairdeck.ALGORITHM,
        )
        stored = await self.store.create(wanted)
        if stored.idempotency_key != idempotency_key:
            raise AlreadyExists(
                HAND_HAS_DECK,
                f"hand {hand_id!r} of table {table_id!r} already has deck {stored.deck_id}, "
                "started with another idempotency key",
            )
        if stored.seed == wanted.seed:  # a fresh CSPRNG seed: ours, so this call drew the deck
            metrics.DECKS_DEALT.inc()
        return StartedDeck(
            deck_id=stored.deck_id,
            commitment=fairdeck.commitment(stored.seed),
            algorithm=stored.algorithm,
            deck_size=DECK_SIZE,
        )

    async def deal(self, deck_id: str, indexes: Sequence[int]) -> tuple[int, ...]:
        """The cards (0..51, rank * 4 + suit) at the given deck positions, in request order:
        once per position (the same request again gets the same cards), never after reveal."""
        _check_deck_id(deck_id)
        _check_positions(indexes)
        claimed = await self.store.claim(deck_id, indexes, request_key(indexes))
        if claimed.outcome is Claim.MISSING:
            raise _not_found(deck_id)
        if claimed.outcome is Claim.CLOSED:
            raise PreconditionFailed(
                DECK_CLOSED, f"deck {deck_id} was revealed: it deals no more cards"
            )
        if claimed.outcome is Claim.TAKEN:
            raise PreconditionFailed(
                POSITION_DEALT,
                f"position {claimed.position} of deck {deck_id} was dealt by another request "
                "(only the same request again gets the same cards)",
            )
        if claimed.record is None:
            raise _not_found(deck_id)
        deck = _deck(claimed.record.seed)
        metrics.CARDS_DEALT.inc(len(indexes))
        return tuple(deck[i] for i in indexes)

    async def reveal(self, deck_id: str) -> RevealedSeed:
        """The seed, for the hand-end event; the deck is closed before it is returned."""
        _check_deck_id(deck_id)
        record = await self._record(deck_id)
        if not await self.store.close_deck(deck_id):
            raise _not_found(deck_id)
        metrics.SEEDS_REVEALED.inc()
        return RevealedSeed(record.seed, fairdeck.commitment(record.seed), record.algorithm)

    async def _record(self, deck_id: str) -> DeckRecord:
        record = await self.store.get(deck_id)
        if record is None:
            raise _not_found(deck_id)
        return record


def _not_found(deck_id: str) -> NotFound:
    return NotFound(DECK_NOT_FOUND, f"no deck {deck_id} (never started, or expired after its TTL)")
