"""Dealer gRPC servicer (holdem.dealer.v1.DealerService): translates messages to and from the use
cases in app.py. Seeds are kept in Redis (``HOLDEM_REDIS_URL``), connected lazily: the service
starts without Redis and answers UNAVAILABLE (``DEPENDENCY_DOWN``, the store's own error) until
it can reach it.

Every call first asks the servicer's caller policy (``libs.platform.callers``) whether its caller
may make it: ``DEALER_CALLERS`` (StartDeck, DealCards and RevealSeed for the authenticated table
service only; the server's identity layer refuses others before this, from the same
policy)."""

from __future__ import annotations

from holdem.common.v1 import common_pb2
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

from libs.platform.callers import DEALER_CALLERS, CallerPolicy, authorize
from libs.platform.probe import Probe
from libs.platform.server import Context, Endpoint, Mount
from libs.platform.tls import redis_options
from services.dealer.app import Dealer
from services.dealer.config import DealerConfig
from services.dealer.store import RedisSeedStore

SERVICE_NAME = dealer_pb2.DESCRIPTOR.services_by_name["DealerService"].full_name


def card_to_proto(card: int) -> common_pb2.Card:
    """Card index (rank * 4 + suit, ranks 2..A, suits c d h s) -> Card (RANK_TWO = 2, SUIT_CLUBS
    = 1, ...)."""
    return common_pb2.Card(
        rank=common_pb2.Rank.ValueType((card >> 2) + 2),
        suit=common_pb2.Suit.ValueType((card & 3) + 1),
    )


def card_from_proto(card: common_pb2.Card) -> int:
    return (int(card.rank) - 2) * 4 + int(card.suit) - 1


class DealerServicer(dealer_pb2_grpc.DealerServiceServicer):
    def __init__(self, dealer: Dealer, policy: CallerPolicy | None = None) -> None:
        self.dealer = dealer
        self.policy: CallerPolicy = policy or DEALER_CALLERS

    async def StartDeck(
        self, request: dealer_pb2.StartDeckRequest, context: Context
    ) -> dealer_pb2.StartDeckResponse:
        authorize(self.policy, context, "StartDeck")
        deck = await self.dealer.start_deck(
            request.table_id, request.hand_id, request.idempotency_key
        )
        return dealer_pb2.StartDeckResponse(
            deck_id=deck.deck_id,
            commitment=deck.commitment,
            shuffle_algorithm=deck.algorithm,
            deck_size=deck.deck_size,
        )

    async def DealCards(
        self, request: dealer_pb2.DealCardsRequest, context: Context
    ) -> dealer_pb2.DealCardsResponse:
        authorize(self.policy, context, "DealCards")
        cards = await self.dealer.deal(request.deck_id, list(request.indexes))
        return dealer_pb2.DealCardsResponse(cards=[card_to_proto(c) for c in cards])

    async def RevealSeed(
        self, request: dealer_pb2.RevealSeedRequest, context: Context
    ) -> dealer_pb2.RevealSeedResponse:
        authorize(self.policy, context, "RevealSeed")
        revealed = await self.dealer.reveal(request.deck_id)
        return dealer_pb2.RevealSeedResponse(
            seed=revealed.seed.hex(),
            commitment=revealed.commitment,
            shuffle_algorithm=revealed.algorithm,
        )


async def build(config: DealerConfig) -> Mount:
    platform = config.platform
    store = RedisSeedStore.from_url(
        platform.redis_url, options=redis_options(platform.redis_url, platform.tls)
    )
    servicer = DealerServicer(Dealer(store))
    # the seeds live in Redis: without it no deck can be started, dealt or revealed
    redis_probe = Probe("Redis", store.client.ping)
    redis_probe.start()

    async def cleanup() -> None:
        await redis_probe.stop()
        await store.close()

    return Mount(
        policy=DEALER_CALLERS,
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: dealer_pb2_grpc.add_DealerServiceServicer_to_server(servicer, s),
            )
        ],
        cleanups=[cleanup],
        readiness=lambda: redis_probe.reason,
    )
