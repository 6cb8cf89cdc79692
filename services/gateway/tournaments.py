"""The gateway's tournament calls (docs/tournaments.md, "Players through the gateway"): listing and
reading tournaments, registering and unregistering, rebuys and the add-on - each one call to the
tournament service for the authenticated caller (the player is the token's, never the request's;
the service takes these calls from the gateway's identity) - and WatchTournament.

Idempotency keys: a client's key is its own, so two players' "k1" must not meet in the
tournament (which refuses a key used for another player) and a registration's key must not be an
unregistration's. The key sent on is a digest of the player, the call and the client's key.

WatchTournament reads the tournament every ``HOLDEM_GATEWAY_TOURNAMENT_POLL_SECONDS`` (the
tournament service publishes nothing a gateway could subscribe to, and one read gives the
clock, the field and every seat) - one read for all its watchers in this gateway
(tournament_feeds.py) - and sends an update when anything but the countdown changed,
or after ``HEARTBEAT_SECONDS`` without one; the caller's table and seat come with it, and the
table they left when they were moved. It ends (OK) after the update that shows the tournament
finished or cancelled. Its streams count against ``HOLDEM_GATEWAY_WATCHES_PER_PLAYER`` with
WatchTable's."""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import AsyncIterator

from holdem.gateway.v1 import gateway_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.errors import ResourceExhausted, Unavailable
from libs.platform.clients import call_timeout
from libs.platform.server import Context
from services.gateway.base import GatewayBase
from services.gateway.tournament_feeds import OVER, TournamentFeeds

NO_TOURNAMENTS = "NO_TOURNAMENT_SERVICE"
TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
#: An update at least this often, changed or not (the client sees the countdown move on).
HEARTBEAT_SECONDS = 15.0


def tournament_key(player_id: str, call: str, key: str) -> str:
    """The key the tournament service gets for ``player_id``'s ``call`` with their ``key``."""
    digest = hashlib.sha256(f"{player_id}\x00{call}\x00{key}".encode()).hexdigest()
    return f"gw-{digest[:40]}"


def my_seat(
    tournament: tpb.Tournament, player_id: str, table_before: str
) -> gateway_pb2.TournamentSeat:
    """``player_id``'s place in ``tournament``; ``table_before``: their table in the previous
    update ("" for none), to tell a move."""
    for standing in tournament.standings:
        if standing.player_id == player_id:
            moved = table_before and standing.table_id and standing.table_id != table_before
            return gateway_pb2.TournamentSeat(
                registered=True,
                table_id=standing.table_id,
                seat=standing.seat if standing.table_id else 0,
                stack=standing.stack,
                place=standing.place,
                prize=standing.prize,
                moved_from_table_id=table_before if moved else "",
            )
    return gateway_pb2.TournamentSeat()


def _fingerprint(update: gateway_pb2.TournamentUpdate) -> bytes:
    """The update less its countdown: what makes it worth sending."""
    copy = gateway_pb2.TournamentUpdate()
    copy.CopyFrom(update)
    copy.tournament.clock.seconds_left = 0
    return copy.SerializeToString(deterministic=True)


class TournamentCalls(GatewayBase):
    @functools.cached_property
    def tournament_feeds(self) -> TournamentFeeds:
        """The gateway's one poll loop per watched tournament."""
        return TournamentFeeds(self._read_tournament, lambda: self.config.tournament_poll_seconds)

    async def _read_tournament(self, tournament_id: str) -> tpb.Tournament:
        ask = tpb.GetTournamentRequest(tournament_id=tournament_id)
        answer = await self._tournament_service().GetTournament(ask, timeout=self.rpc_timeout)
        return answer.tournament

    def _tournament_service(self) -> tournament_pb2_grpc.TournamentServiceAsyncStub:
        if self.tournaments is None:
            raise Unavailable(NO_TOURNAMENTS, "this gateway has no tournament service")
        return self.tournaments

    async def ListTournaments(
        self, request: gateway_pb2.ListTournamentsRequest, context: Context
    ) -> gateway_pb2.ListTournamentsResponse:
        await self.admission.caller(context)
        answer = await self._tournament_service().ListTournaments(
            tpb.ListTournamentsRequest(statuses=request.statuses), timeout=self._timeout(context)
        )
        return gateway_pb2.ListTournamentsResponse(tournaments=answer.tournaments)

    async def GetTournament(
        self, request: gateway_pb2.GetTournamentRequest, context: Context
    ) -> gateway_pb2.GetTournamentResponse:
        await self.admission.caller(context)
        answer = await self._tournament_service().GetTournament(
            tpb.GetTournamentRequest(tournament_id=request.tournament_id),
            timeout=self._timeout(context),
        )
        return gateway_pb2.GetTournamentResponse(tournament=answer.tournament)

    async def RegisterTournament(
        self, request: gateway_pb2.RegisterTournamentRequest, context: Context
    ) -> gateway_pb2.RegisterTournamentResponse:
        who = (await self.admission.caller(context)).player_id
        answer = await self._tournament_service().Register(
            tpb.RegisterRequest(
                tournament_id=request.tournament_id,
                player_id=who,
                idempotency_key=tournament_key(who, "register", request.idempotency_key),
            ),
            timeout=call_timeout(context, 2 * self.rpc_timeout),  # the saga calls the lobby
        )
        return gateway_pb2.RegisterTournamentResponse(tournament=answer.tournament)

    async def UnregisterTournament(
        self, request: gateway_pb2.UnregisterTournamentRequest, context: Context
    ) -> gateway_pb2.UnregisterTournamentResponse:
        who = (await self.admission.caller(context)).player_id
        answer = await self._tournament_service().Unregister(
            tpb.UnregisterRequest(
                tournament_id=request.tournament_id,
                player_id=who,
                idempotency_key=tournament_key(who, "unregister", request.idempotency_key),
            ),
            timeout=self._timeout(context),
        )
        return gateway_pb2.UnregisterTournamentResponse(
            tournament=answer.tournament, refund=answer.refund
        )

    async def RebuyTournament(
        self, request: gateway_pb2.TournamentPurchaseRequest, context: Context
    ) -> gateway_pb2.TournamentPurchaseResponse:
        return await self._purchase("Rebuy", request, context)

    async def AddOnTournament(
        self, request: gateway_pb2.TournamentPurchaseRequest, context: Context
    ) -> gateway_pb2.TournamentPurchaseResponse:
        return await self._purchase("AddOn", request, context)

    async def _purchase(
        self, call: str, request: gateway_pb2.TournamentPurchaseRequest, context: Context
    ) -> gateway_pb2.TournamentPurchaseResponse:
        who = (await self.admission.caller(context)).player_id
        stub = self._tournament_service()
        answer = await getattr(stub, call)(
            tpb.PurchaseRequest(
                tournament_id=request.tournament_id,
                player_id=who,
                idempotency_key=tournament_key(who, call, request.idempotency_key),
            ),
            timeout=call_timeout(context, 2 * self.rpc_timeout),  # the saga calls the lobby
        )
        return gateway_pb2.TournamentPurchaseResponse(
            tournament=answer.tournament, chips=answer.chips, cost=answer.cost, stack=answer.stack
        )

    async def WatchTournament(
        self, request: gateway_pb2.WatchTournamentRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.TournamentUpdate]:
        who = (await self.admission.caller(context)).player_id
        self._tournament_service()  # UNAVAILABLE at once without one
        # the slot is taken before anything is awaited: parallel calls cannot all pass the check
        if not self.watches.try_acquire(who):
            raise ResourceExhausted(
                TOO_MANY_WATCHES,
                f"at most {self.config.watches_per_player} watch streams per player",
            )
        began = self.clock()
        try:
            sent, sent_at, table = b"", 0.0, ""
            reads = self.tournament_feeds.watch(request.tournament_id)
            async with contextlib.aclosing(reads):
                async for tournament in reads:
                    update = gateway_pb2.TournamentUpdate(
                        tournament=tournament.summary, me=my_seat(tournament, who, table)
                    )
                    fingerprint, now = _fingerprint(update), self.clock()
                    over = tournament.summary.status in OVER
                    if fingerprint != sent or now - sent_at >= HEARTBEAT_SECONDS or over:
                        yield update
                        sent, sent_at = fingerprint, now
                        table = update.me.table_id or table
        finally:
            self.watches.release(who, self.clock() - began)
