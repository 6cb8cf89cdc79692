"""The table service's peers: the dealer, the evaluator and the ai, each a gRPC service or run
in-process, as the service's config says (docs/tables.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import grpc

from libs.platform.clients import connect_peer
from services.table.bots import Decider, GrpcDecider, LocalDecider
from services.table.config import TableServiceConfig
from services.table.dealing import DealerPort, GrpcDealer, LocalDealer
from services.table.ranking import GrpcRanker


@dataclass
class Peers:
    dealer: DealerPort
    #: None: the aggregate's own evaluator ranks showdowns in the same step.
    ranker: GrpcRanker | None
    decider: Decider
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close()


def connect_peers(config: TableServiceConfig) -> Peers:
    channels: list[grpc.aio.Channel] = []

    def channel(service: str) -> grpc.aio.Channel:
        channels.append(connect_peer(config.platform, service))
        return channels[-1]

    dealer: DealerPort = (
        GrpcDealer(channel("dealer")) if config.dealer == "service" else LocalDealer()
    )
    ranker = GrpcRanker(channel("evaluator")) if config.evaluator == "service" else None
    decider: Decider = GrpcDecider(channel("ai")) if config.ai == "service" else LocalDecider()
    return Peers(dealer, ranker, decider, channels)
