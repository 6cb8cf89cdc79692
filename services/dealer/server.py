"""Dealer gRPC servicer (holdem.dealer.v1.DealerService)."""

from __future__ import annotations

from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

from libs.platform.errors import NotImplementedYet
from libs.platform.server import Context, Endpoint, Mount
from services.dealer.app import NOT_YET
from services.dealer.config import DealerConfig

SERVICE_NAME = dealer_pb2.DESCRIPTOR.services_by_name["DealerService"].full_name


class DealerServiceServicer(dealer_pb2_grpc.DealerServiceServicer):
    async def StartDeck(
        self, request: dealer_pb2.StartDeckRequest, context: Context
    ) -> dealer_pb2.StartDeckResponse:
        raise NotImplementedYet("DealerService.StartDeck", NOT_YET)

    async def DealCards(
        self, request: dealer_pb2.DealCardsRequest, context: Context
    ) -> dealer_pb2.DealCardsResponse:
        raise NotImplementedYet("DealerService.DealCards", NOT_YET)

    async def RevealSeed(
        self, request: dealer_pb2.RevealSeedRequest, context: Context
    ) -> dealer_pb2.RevealSeedResponse:
        raise NotImplementedYet("DealerService.RevealSeed", NOT_YET)


async def build(config: DealerConfig) -> Mount:
    servicer = DealerServiceServicer()
    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: dealer_pb2_grpc.add_DealerServiceServicer_to_server(servicer, s),
            )
        ]
    )
