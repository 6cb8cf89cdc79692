"""Table gRPC servicer (holdem.table.v1.TableService)."""

from __future__ import annotations

from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.platform.errors import NotImplementedYet
from libs.platform.server import Context, Endpoint, Mount
from services.table.app import error_mapper
from services.table.config import TableServiceConfig

NOT_YET = "the table service's gRPC surface arrives with the rest of issue 4"

SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name


class TableServiceServicer(table_pb2_grpc.TableServiceServicer):
    async def SubmitCommand(
        self, request: table_pb2.SubmitCommandRequest, context: Context
    ) -> table_pb2.SubmitCommandResponse:
        raise NotImplementedYet("TableService.SubmitCommand", NOT_YET)

    async def SubmitAction(
        self, request: table_pb2.SubmitActionRequest, context: Context
    ) -> table_pb2.SubmitActionResponse:
        raise NotImplementedYet("TableService.SubmitAction", NOT_YET)

    async def GetTableState(
        self, request: table_pb2.GetTableStateRequest, context: Context
    ) -> table_pb2.GetTableStateResponse:
        raise NotImplementedYet("TableService.GetTableState", NOT_YET)

    async def GetPlayerView(
        self, request: table_pb2.GetPlayerViewRequest, context: Context
    ) -> table_pb2.GetPlayerViewResponse:
        raise NotImplementedYet("TableService.GetPlayerView", NOT_YET)


async def build(config: TableServiceConfig) -> Mount:
    servicer = TableServiceServicer()
    return Mount(
        endpoints=[
            Endpoint(
                SERVICE_NAME,
                lambda s: table_pb2_grpc.add_TableServiceServicer_to_server(servicer, s),
            )
        ],
        error_mapper=error_mapper(),
    )
