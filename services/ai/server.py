"""Ai gRPC servicer (holdem.ai.v1.AiService): proto <-> ``libs.ai`` through ``libs.aiproto``.

The decision runs in a worker thread so the event loop keeps answering health checks (and other
calls) meanwhile; an inconsistent request is refused with INVALID_ARGUMENT and a message that
says what is wrong (``libs.aiproto.errors.InvalidRequest``).
"""

from __future__ import annotations

import asyncio

from holdem.ai.v1 import ai_pb2, ai_pb2_grpc

from libs.aiproto.policy import policy_response, read_policy_request
from libs.aiproto.reading import read_request
from libs.aiproto.requests import response_from_decision
from libs.platform.callers import AI_CALLERS
from libs.platform.server import Context, Endpoint, Mount
from services.ai import app
from services.ai.config import AiConfig

SERVICE_NAME = ai_pb2.DESCRIPTOR.services_by_name["AiService"].full_name


class AiServiceServicer(ai_pb2_grpc.AiServiceServicer):
    async def Decide(
        self, request: ai_pb2.DecideRequest, context: Context
    ) -> ai_pb2.DecideResponse:
        checked = read_request(request)
        decision = await asyncio.to_thread(app.choose, checked, context.time_remaining())
        return response_from_decision(decision)

    async def Policy(
        self, request: ai_pb2.PolicyRequest, context: Context
    ) -> ai_pb2.PolicyResponse:
        query = read_policy_request(request)
        shares = await asyncio.to_thread(app.policy_of, query, context.time_remaining())
        return policy_response(query.holdings, shares)


async def build(config: AiConfig) -> Mount:
    await asyncio.to_thread(app.warm_up)
    servicer = AiServiceServicer()
    return Mount(
        policy=AI_CALLERS,
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: ai_pb2_grpc.add_AiServiceServicer_to_server(servicer, s),
            )
        ],
    )
