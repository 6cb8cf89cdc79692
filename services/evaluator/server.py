"""Evaluator gRPC servicer (holdem.evaluator.v1.EvaluatorService)."""

from __future__ import annotations

from holdem.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc

from libs.platform.errors import NotImplementedYet
from libs.platform.server import Context, Endpoint, Mount
from services.evaluator.app import NOT_YET
from services.evaluator.config import EvaluatorConfig

SERVICE_NAME = evaluator_pb2.DESCRIPTOR.services_by_name["EvaluatorService"].full_name


class EvaluatorServiceServicer(evaluator_pb2_grpc.EvaluatorServiceServicer):
    async def EvaluateBatch(
        self, request: evaluator_pb2.EvaluateBatchRequest, context: Context
    ) -> evaluator_pb2.EvaluateBatchResponse:
        raise NotImplementedYet("EvaluatorService.EvaluateBatch", NOT_YET)

    async def ResolveShowdown(
        self, request: evaluator_pb2.ResolveShowdownRequest, context: Context
    ) -> evaluator_pb2.ResolveShowdownResponse:
        raise NotImplementedYet("EvaluatorService.ResolveShowdown", NOT_YET)

    async def Equity(
        self, request: evaluator_pb2.EquityRequest, context: Context
    ) -> evaluator_pb2.EquityResponse:
        raise NotImplementedYet("EvaluatorService.Equity", NOT_YET)


async def build(config: EvaluatorConfig) -> Mount:
    servicer = EvaluatorServiceServicer()
    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: evaluator_pb2_grpc.add_EvaluatorServiceServicer_to_server(servicer, s),
            )
        ]
    )
