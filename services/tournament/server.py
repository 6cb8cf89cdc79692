"""Tournament gRPC servicer: holdem.tournament.v1 requests to the use cases (app.py) and their
answers back through wire.py; a failing NATS, JetStream or Redis answers UNAVAILABLE. Who may
call what is ``TOURNAMENT_CALLERS`` (libs.platform.callers); the wiring is in wiring.py."""

from __future__ import annotations

import uuid

from holdem.tournament.v1 import tournament_pb2 as pb
from holdem.tournament.v1 import tournament_pb2_grpc
from redis.exceptions import RedisError

from libs.errors import ErrorKind
from libs.eventstore import StoreError
from libs.platform.callers import caller_of
from libs.platform.errors import ErrorMapper
from libs.platform.server import Context
from libs.platform.unavailable import DEPENDENCY_FAILURES, unavailable_on_failure
from libs.tournament import errors as TE

from . import wire
from .app import Purchase, TournamentApp

TOURNAMENT_SERVICE = pb.DESCRIPTOR.services_by_name["TournamentService"]
SERVICE_NAME = TOURNAMENT_SERVICE.full_name
STORE_FAILURES: tuple[type[BaseException], ...] = (*DEPENDENCY_FAILURES, RedisError, StoreError)
STORES_DOWN = "storage is not reachable: retry"


@unavailable_on_failure(TOURNAMENT_SERVICE.methods_by_name, STORES_DOWN, STORE_FAILURES)
class TournamentServicer(tournament_pb2_grpc.TournamentServiceServicer):
    def __init__(self, app: TournamentApp) -> None:
        self.app = app

    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: Context
    ) -> pb.CreateTournamentResponse:
        config = wire.config_from_proto(request.config)
        tournament_id = request.tournament_id or f"t{uuid.uuid4().hex[:12]}"
        created_by = request.created_by or caller_of(context).service or "unknown"
        state = await self.app.create(tournament_id, config, created_by, request.idempotency_key)
        return pb.CreateTournamentResponse(
            tournament=wire.tournament_to_proto(state, self.app.clock())
        )

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: Context
    ) -> pb.ListTournamentsResponse:
        found = await self.app.list(list(request.statuses))
        now = self.app.clock()
        return pb.ListTournamentsResponse(
            tournaments=[wire.summary_to_proto(s, now) for s in found]
        )

    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: Context
    ) -> pb.GetTournamentResponse:
        state = await self.app.get(request.tournament_id)
        return pb.GetTournamentResponse(
            tournament=wire.tournament_to_proto(state, self.app.clock())
        )

    async def Register(self, request: pb.RegisterRequest, context: Context) -> pb.RegisterResponse:
        level = wire.bot_level_from_proto(request.is_bot, request.bot_level)
        state = await self.app.register(
            request.tournament_id,
            request.player_id,
            request.idempotency_key,
            request.is_bot,
            level,
        )
        return pb.RegisterResponse(tournament=wire.summary_to_proto(state, self.app.clock()))

    async def Unregister(
        self, request: pb.UnregisterRequest, context: Context
    ) -> pb.UnregisterResponse:
        state, refund = await self.app.unregister(
            request.tournament_id, request.player_id, request.idempotency_key
        )
        return pb.UnregisterResponse(
            tournament=wire.summary_to_proto(state, self.app.clock()), refund=refund
        )

    async def Rebuy(self, request: pb.PurchaseRequest, context: Context) -> pb.PurchaseResponse:
        bought = await self.app.rebuy(
            request.tournament_id, request.player_id, request.idempotency_key
        )
        return self._purchased(bought)

    async def AddOn(self, request: pb.PurchaseRequest, context: Context) -> pb.PurchaseResponse:
        bought = await self.app.add_on(
            request.tournament_id, request.player_id, request.idempotency_key
        )
        return self._purchased(bought)

    def _purchased(self, bought: Purchase) -> pb.PurchaseResponse:
        return pb.PurchaseResponse(
            tournament=wire.summary_to_proto(bought.state, self.app.clock()),
            chips=bought.chips,
            cost=bought.cost,
            stack=bought.stack,
        )

    async def Cancel(self, request: pb.CancelRequest, context: Context) -> pb.CancelResponse:
        state = await self.app.cancel(request.tournament_id, request.reason)
        return pb.CancelResponse(tournament=wire.summary_to_proto(state, self.app.clock()))


def error_mapper() -> ErrorMapper:
    """The tournament's refusals by their kind (libs.errors); a few codes said explicitly."""
    mapper = ErrorMapper()
    mapper.register_code(TE.TOURNAMENT_NOT_FOUND, ErrorKind.NOT_FOUND)
    return mapper
