"""Lobby gRPC servicer: holdem.lobby.v1 requests to the use cases (app.py, sagas.py, audit.py) and
their answers back, through wire.py's translations; a failing NATS, JetStream or Redis answers
UNAVAILABLE (libs.platform.unavailable). The service's wiring is in wiring.py (``build``)."""

from __future__ import annotations

from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from nats.aio.client import Client as NATS
from redis.exceptions import RedisError

from libs.errors import ErrorKind, Unavailable
from libs.eventstore import StoreError
from libs.lobby.catalogue import Listing
from libs.platform.callers import caller_of, client_address
from libs.platform.errors import ErrorMapper
from libs.platform.server import Context
from libs.platform.unavailable import DEPENDENCY_FAILURES, unavailable_on_failure
from libs.table.errors import TABLE_NOT_FOUND
from libs.tableproto.config import STRUCTURES, VARIANTS
from services.lobby import stats_wire, tournament_money, wire
from services.lobby.accounts import Session
from services.lobby.app import Lobby
from services.lobby.audit import audit_chips
from services.lobby.cashout import CashOuts
from services.lobby.gate import Gate, GateUnavailable
from services.lobby.player_stats import PlayerStats
from services.lobby.private_seats import private_settings
from services.lobby.sagas import Seating
from services.lobby.tables import TableRefusal

LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"]
SERVICE_NAME = LOBBY_SERVICE.full_name

AUDIT_UNAVAILABLE = "AUDIT_UNAVAILABLE"
#: What the lobby's stores raise when NATS, JetStream or Redis fail under a call (besides the
#: platform's list): any Redis error, and the event store's uncoded errors (a read cut short).
STORE_FAILURES: tuple[type[BaseException], ...] = (*DEPENDENCY_FAILURES, RedisError, StoreError)
STORES_DOWN = "storage is not reachable: retry"


@unavailable_on_failure(LOBBY_SERVICE.methods_by_name, STORES_DOWN, STORE_FAILURES)
class LobbyServicer(lobby_pb2_grpc.LobbyServiceServicer):
    def __init__(
        self,
        lobby: Lobby,
        seating: Seating,
        cashouts: CashOuts,
        gate: Gate,
        nc: NATS,
        stats: PlayerStats,
    ) -> None:
        self.stats = stats
        self.lobby = lobby
        self.seating = seating
        self.cashouts = cashouts
        self.gate = gate
        self.nc = nc

    def _table(self, listing: Listing) -> common_pb2.TableSummary:
        return wire.table_to_proto(listing, self.lobby.config_of(listing))

    def _login_response(self, session: Session) -> lobby_pb2.LoginResponse:
        return lobby_pb2.LoginResponse(
            token=session.token,
            expires_at=wire.timestamp(session.claims.expires_at),
            player=wire.player_to_proto(session.player),
        )

    async def RegisterPlayer(
        self, request: lobby_pb2.RegisterPlayerRequest, context: Context
    ) -> lobby_pb2.RegisterPlayerResponse:
        player = await self.lobby.register(
            request.username,
            request.password,
            request.display_name,
            peer=client_address(context),
            bot=request.is_bot,
            client=caller_of(context).service == "gateway",
        )
        return lobby_pb2.RegisterPlayerResponse(player=wire.player_to_proto(player))

    async def Login(
        self, request: lobby_pb2.LoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        session = await self.lobby.login(
            request.username, request.password, client_address(context)
        )
        return self._login_response(session)

    async def GuestLogin(
        self, request: lobby_pb2.GuestLoginRequest, context: Context
    ) -> lobby_pb2.LoginResponse:
        session = await self.lobby.guest(request.display_name, client_address(context))
        return self._login_response(session)

    async def Logout(
        self, request: lobby_pb2.LogoutRequest, context: Context
    ) -> lobby_pb2.LogoutResponse:
        await self.lobby.logout(request.token)
        return lobby_pb2.LogoutResponse()

    async def Authenticate(
        self, request: lobby_pb2.AuthenticateRequest, context: Context
    ) -> lobby_pb2.AuthenticateResponse:
        player = await self.lobby.authenticate(request.token)
        return lobby_pb2.AuthenticateResponse(player=wire.player_to_proto(player))

    async def GetPlayer(
        self, request: lobby_pb2.GetPlayerRequest, context: Context
    ) -> lobby_pb2.GetPlayerResponse:
        player = await self.lobby.player(request.player_id)
        return lobby_pb2.GetPlayerResponse(player=wire.player_to_proto(player))

    async def GetWallet(
        self, request: lobby_pb2.GetWalletRequest, context: Context
    ) -> lobby_pb2.GetWalletResponse:
        player = await self.lobby.player(request.player_id)
        return lobby_pb2.GetWalletResponse(wallet=wire.wallet_to_proto(player))

    async def ListLedger(
        self, request: lobby_pb2.ListLedgerRequest, context: Context
    ) -> lobby_pb2.ListLedgerResponse:
        entries, next_token = await self.lobby.ledger(
            request.player_id, request.page_size, request.page_token
        )
        return lobby_pb2.ListLedgerResponse(
            entries=[wire.entry_to_proto(e) for e in entries], next_page_token=next_token
        )

    async def JoinTable(
        self, request: lobby_pb2.JoinTableRequest, context: Context
    ) -> lobby_pb2.JoinTableResponse:
        await self.lobby.admit(
            request.table_id, request.player_id, request.password, request.invite_code
        )
        await self.lobby.wait_turn(request.table_id, request.player_id)
        outcome = await self.seating.join(
            request.player_id,
            request.table_id,
            request.seat if request.HasField("seat") else None,
            request.buy_in,
            request.wait_for_big_blind,
            request.idempotency_key,
        )
        await self.lobby.took_seat(request.table_id, request.player_id)
        return lobby_pb2.JoinTableResponse(
            seat=outcome.seat, stack=outcome.stack, sequence=outcome.sequence
        )

    async def TopUp(
        self, request: lobby_pb2.TopUpRequest, context: Context
    ) -> lobby_pb2.TopUpResponse:
        outcome = await self.seating.top_up(
            request.player_id, request.table_id, request.amount, request.idempotency_key
        )
        return lobby_pb2.TopUpResponse(stack=outcome.stack, sequence=outcome.sequence)

    async def LeaveTable(
        self, request: lobby_pb2.LeaveTableRequest, context: Context
    ) -> lobby_pb2.LeaveTableResponse:
        left = await self.seating.leave(
            request.player_id, request.table_id, request.idempotency_key
        )
        return lobby_pb2.LeaveTableResponse(
            cash_out=left.cash_out, sequence=left.sequence, leaving=left.leaving
        )

    async def CreateTable(
        self, request: lobby_pb2.CreateTableRequest, context: Context
    ) -> lobby_pb2.CreateTableResponse:
        # a client's table (asked through the gateway) deals a hand only with a person in it
        table = wire.new_table(
            request.config, needs_a_person=caller_of(context).service == "gateway"
        )
        levels = wire.ai_level_names(request.bots)
        private = await private_settings(request.private, request.password, request.approve_seats)
        listing = await self.lobby.create_table(
            request.name, table, request.created_by_player_id, levels, private
        )
        if levels:
            config = self.lobby.config_of(listing)
            await self.seating.seat_ais(listing.table_id, levels, self.lobby.ai_buy_in(config))
            listing = await self.lobby.table(listing.table_id)
        return lobby_pb2.CreateTableResponse(
            table=self._table(listing), invite_code=listing.invite_code
        )

    async def ListTables(
        self, request: lobby_pb2.ListTablesRequest, context: Context
    ) -> lobby_pb2.ListTablesResponse:
        tables, next_token = self.lobby.list_tables(
            variant=VARIANTS.get(request.variant),
            betting_structure=STRUCTURES.get(request.betting_structure),
            include_closed=request.include_closed,
            page_size=request.page_size,
            page_token=request.page_token,
            newest_first=request.newest_first,
        )
        return lobby_pb2.ListTablesResponse(
            tables=[self._table(t) for t in tables], next_page_token=next_token
        )

    async def GetTable(
        self, request: lobby_pb2.GetTableRequest, context: Context
    ) -> lobby_pb2.GetTableResponse:
        listing = await self.lobby.table(request.table_id)
        return lobby_pb2.GetTableResponse(table=self._table(listing))

    async def CloseTable(
        self, request: lobby_pb2.CloseTableRequest, context: Context
    ) -> lobby_pb2.CloseTableResponse:
        listing = await self.lobby.close_table(request.table_id, request.requested_by_player_id)
        return lobby_pb2.CloseTableResponse(table=self._table(listing))

    async def DecideSeat(
        self, request: lobby_pb2.DecideSeatRequest, context: Context
    ) -> lobby_pb2.DecideSeatResponse:
        waiting = await self.lobby.decide_seat(
            request.table_id,
            request.requested_by_player_id,
            request.seat_player_id,
            request.approved,
        )
        return lobby_pb2.DecideSeatResponse(waiting_player_ids=waiting)

    async def ListSeatRequests(
        self, request: lobby_pb2.ListSeatRequestsRequest, context: Context
    ) -> lobby_pb2.ListSeatRequestsResponse:
        waiting = await self.lobby.seat_requests(request.table_id, request.requested_by_player_id)
        return lobby_pb2.ListSeatRequestsResponse(waiting_player_ids=waiting)

    async def GetWaitlist(
        self, request: lobby_pb2.GetWaitlistRequest, context: Context
    ) -> lobby_pb2.GetWaitlistResponse:
        place = await self.lobby.waitlist_place(request.table_id, request.player_id)
        answer = lobby_pb2.GetWaitlistResponse(position=place.position, waiting=place.waiting)
        if place.offered_until:
            answer.offered_until.CopyFrom(wire.timestamp(place.offered_until))
        return answer

    async def LeaveWaitlist(
        self, request: lobby_pb2.LeaveWaitlistRequest, context: Context
    ) -> lobby_pb2.LeaveWaitlistResponse:
        await self.lobby.leave_waitlist(request.table_id, request.player_id)
        return lobby_pb2.LeaveWaitlistResponse()

    async def GetPlayerStats(
        self, request: lobby_pb2.GetPlayerStatsRequest, context: Context
    ) -> lobby_pb2.GetPlayerStatsResponse:
        return await stats_wire.get_stats(self.stats, request)

    async def SetPlayerNote(
        self, request: lobby_pb2.SetPlayerNoteRequest, context: Context
    ) -> lobby_pb2.SetPlayerNoteResponse:
        return await stats_wire.set_note(self.stats, request)

    async def DeletePlayerNote(
        self, request: lobby_pb2.DeletePlayerNoteRequest, context: Context
    ) -> lobby_pb2.DeletePlayerNoteResponse:
        await self.stats.delete_note(request.viewer_id, request.player_id, request.idempotency_key)
        return lobby_pb2.DeletePlayerNoteResponse()

    async def ListPlayerNotes(
        self, request: lobby_pb2.ListPlayerNotesRequest, context: Context
    ) -> lobby_pb2.ListPlayerNotesResponse:
        return await stats_wire.list_notes(self.stats, request)

    async def AuditChips(
        self, request: lobby_pb2.AuditChipsRequest, context: Context
    ) -> lobby_pb2.AuditChipsResponse:
        try:
            audit = await audit_chips(self.nc, self.lobby, self.seating, self.cashouts, self.gate)
        except GateUnavailable as exc:
            raise Unavailable(AUDIT_UNAVAILABLE, f"{exc}: retry") from None
        except TableRefusal as refusal:  # a table moving to another replica, or down
            raise Unavailable(
                AUDIT_UNAVAILABLE, f"a table did not answer ({refusal}): retry"
            ) from None
        return lobby_pb2.AuditChipsResponse(
            grants=audit.grants,
            wallets=audit.wallets,
            reserved=audit.reserved,
            on_tables=audit.on_tables,
            in_flight=audit.in_flight,
            rake=audit.rake,
            holds=audit.holds,
            tables=[
                lobby_pb2.TableChips(
                    table_id=t.table_id, on_table=t.on_table, rake=t.rake, sequence=t.sequence
                )
                for t in audit.tables
            ],
            open_sagas=audit.open_sagas,
            seated_players=audit.seated_players,
            in_tournaments=audit.in_tournaments,
        )

    async def PayTournament(
        self, request: lobby_pb2.PayTournamentRequest, context: Context
    ) -> lobby_pb2.TournamentMoneyResponse:
        balance = await tournament_money.pay(
            self.lobby,
            self.gate,
            request.player_id,
            request.tournament_id,
            request.amount,
            request.idempotency_key,
        )
        return lobby_pb2.TournamentMoneyResponse(balance=balance)

    async def CreditTournament(
        self, request: lobby_pb2.CreditTournamentRequest, context: Context
    ) -> lobby_pb2.TournamentMoneyResponse:
        balance = await tournament_money.credit(
            self.lobby,
            self.gate,
            request.player_id,
            request.tournament_id,
            request.amount,
            request.reason,
            request.idempotency_key,
        )
        return lobby_pb2.TournamentMoneyResponse(balance=balance)


def error_mapper() -> ErrorMapper:
    mapper = ErrorMapper()
    mapper.register_code(TABLE_NOT_FOUND, ErrorKind.NOT_FOUND)
    return mapper
