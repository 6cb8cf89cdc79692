"""Ai gRPC servicer (holdem.ai.v1.AiService)."""

from __future__ import annotations

from holdem.ai.v1 import ai_pb2, ai_pb2_grpc

from libs.platform.errors import NotImplementedYet
from libs.platform.server import Context, Endpoint, Mount
from services.ai.app import NOT_YET
from services.ai.config import AiConfig

SERVICE_NAME = ai_pb2.DESCRIPTOR.services_by_name["AiService"].full_name


class AiServiceServicer(ai_pb2_grpc.AiServiceServicer):
    async def Decide(
        self, request: ai_pb2.DecideRequest, context: Context
    ) -> ai_pb2.DecideResponse:
        raise NotImplementedYet("AiService.Decide", NOT_YET)


async def build(config: AiConfig) -> Mount:
    servicer = AiServiceServicer()
    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: ai_pb2_grpc.add_AiServiceServicer_to_server(servicer, s),
            )
        ]
    )
