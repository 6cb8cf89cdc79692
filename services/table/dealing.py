"""Where the table gets its cards: the dealer service (gRPC), or an in-process dealer with the same
algorithm for tests and tools. Either way cards come by deck position
(libs.poker.dealing.DealLayout), so asking again returns the same cards and a restarted table
continues the same deck."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import grpc

from libs.fairdeck import ALGORITHM, commitment, deck_from_seed, new_seed
from libs.fairdeck.errors import DECK_CLOSED
from libs.platform.errors import error_code_of


class DeckLost(Exception):
    """The dealer no longer knows this hand's deck (e.g. its store was wiped), or no longer deals
    from it (its seed was revealed): the hand cannot be completed and is voided by rule.

    A revealed deck with a hand still in play: the table asks for the seed just before it appends
    the commit that ends the hand; if that append never lands (the process is killed, or another
    writer got there first), the step is decided again, and a bot's or the clock's new decision
    may keep the hand going. The dealer refuses to deal from a deck whose seed is out
    (``DECK_CLOSED``), so the hand is voided rather than left waiting for cards for good."""


class DealerPort(Protocol):
    async def start_deck(self, table_id: str, hand_id: str) -> tuple[str, str]:
        """A fresh deck for the hand: (deck_id, commitment)."""
        ...

    async def deal(self, deck_id: str, indexes: Sequence[int]) -> list[int]:
        """The cards (0..51) at these deck positions."""
        ...

    async def reveal(self, deck_id: str) -> str:
        """The deck's seed, hex."""
        ...


_DECKS_KEPT = 64  # shuffled decks a LocalDealer keeps (hands in play at its tables)


class LocalDealer:
    """The dealer's algorithm in-process (seeds kept in memory)."""

    algorithm = ALGORITHM

    def __init__(self) -> None:
        self._seeds: dict[str, bytes] = {}
        # the decks of the latest seeds, each shuffled once (a shuffle is 14 HMACs, and a hand
        # asks for cards four times)
        self._decks: dict[bytes, tuple[int, ...]] = {}

    async def start_deck(self, table_id: str, hand_id: str) -> tuple[str, str]:
        deck_id = f"{table_id}:{hand_id}"
        seed = self._seeds.setdefault(deck_id, new_seed())
        return deck_id, commitment(seed)

    async def deal(self, deck_id: str, indexes: Sequence[int]) -> list[int]:
        seed = self._seed(deck_id)
        deck = self._decks.get(seed)
        if deck is None:
            if len(self._decks) >= _DECKS_KEPT:
                del self._decks[next(iter(self._decks))]  # the oldest
            deck = self._decks[seed] = deck_from_seed(seed)
        return [deck[i] for i in indexes]

    async def reveal(self, deck_id: str) -> str:
        return self._seed(deck_id).hex()

    def _seed(self, deck_id: str) -> bytes:
        try:
            return self._seeds[deck_id]
        except KeyError:
            raise DeckLost(deck_id) from None


class GrpcDealer:
    """The dealer service over gRPC (holdem.dealer.v1.DealerService)."""

    def __init__(self, channel: Any) -> None:
        from holdem.dealer.v1 import dealer_pb2_grpc

        self._stub = dealer_pb2_grpc.DealerServiceStub(channel)

    async def start_deck(self, table_id: str, hand_id: str) -> tuple[str, str]:
        from holdem.dealer.v1 import dealer_pb2

        reply = await self._stub.StartDeck(
            dealer_pb2.StartDeckRequest(
                table_id=table_id, hand_id=hand_id, idempotency_key=f"{table_id}:{hand_id}"
            )
        )
        return reply.deck_id, reply.commitment

    async def deal(self, deck_id: str, indexes: Sequence[int]) -> list[int]:
        from holdem.dealer.v1 import dealer_pb2

        try:
            reply = await self._stub.DealCards(
                dealer_pb2.DealCardsRequest(deck_id=deck_id, indexes=list(indexes))
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                raise DeckLost(deck_id) from exc
            if (
                exc.code() == grpc.StatusCode.FAILED_PRECONDITION
                and error_code_of(exc) == DECK_CLOSED
            ):
                raise DeckLost(f"{deck_id} was revealed") from exc
            raise
        return [(card.rank - 2) * 4 + (card.suit - 1) for card in reply.cards]

    async def reveal(self, deck_id: str) -> str:
        from holdem.dealer.v1 import dealer_pb2

        try:
            reply = await self._stub.RevealSeed(dealer_pb2.RevealSeedRequest(deck_id=deck_id))
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.NOT_FOUND:
                raise DeckLost(deck_id) from exc
            raise
        return str(reply.seed)
