"""The tournament calls of ``GatewayClient`` (docs/tournaments.md, "Players through the
gateway"): the tournaments, one with its standings, registering and unregistering, rebuys and the
add-on (each keyed: a retry with the key pays once), and ``watch_tournament``, the clock, the
field and the caller's seat as they change, reopened after a dropped connection (each update is
whole, so nothing is lost by reopening). A mixin: ``GatewayClient`` supplies the stub, the token
and the retries."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Any, TypeVar

import grpc
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.tournament.v1 import tournament_pb2

from libs.client.errors import GatewayError
from libs.client.retry import RESUMABLE, RetryPolicy

R = TypeVar("R")


class TournamentCalls:
    _stub: gateway_pb2_grpc.GatewayServiceAsyncStub
    retry: RetryPolicy
    resumes: int

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        raise NotImplementedError

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        raise NotImplementedError

    async def tournaments(
        self, statuses: Sequence[str] = ()
    ) -> list[tournament_pb2.TournamentSummary]:
        """Every tournament (in one of ``statuses``: registering, running, finished,
        cancelled)."""
        response = await self._call(
            self._stub.ListTournaments, gateway_pb2.ListTournamentsRequest(statuses=statuses)
        )
        return list(response.tournaments)

    async def tournament(self, tournament_id: str) -> tournament_pb2.Tournament:
        """The tournament now: its summary (clock, field, prizes), every entrant's standing,
        its settings."""
        response = await self._call(
            self._stub.GetTournament, gateway_pb2.GetTournamentRequest(tournament_id=tournament_id)
        )
        return response.tournament

    async def register_tournament(
        self, tournament_id: str, *, key: str | None = None
    ) -> tournament_pb2.TournamentSummary:
        """The buy-in from the caller's wallet, and the caller is in."""
        request = gateway_pb2.RegisterTournamentRequest(
            tournament_id=tournament_id, idempotency_key=key or uuid.uuid4().hex
        )
        return (await self._call(self._stub.RegisterTournament, request)).tournament

    async def unregister_tournament(
        self, tournament_id: str, *, key: str | None = None
    ) -> gateway_pb2.UnregisterTournamentResponse:
        """Out again before the start; the answer's ``refund`` comes back to the wallet."""
        request = gateway_pb2.UnregisterTournamentRequest(
            tournament_id=tournament_id, idempotency_key=key or uuid.uuid4().hex
        )
        return await self._call(self._stub.UnregisterTournament, request)

    async def rebuy(
        self, tournament_id: str, *, key: str | None = None
    ) -> gateway_pb2.TournamentPurchaseResponse:
        request = gateway_pb2.TournamentPurchaseRequest(
            tournament_id=tournament_id, idempotency_key=key or uuid.uuid4().hex
        )
        return await self._call(self._stub.RebuyTournament, request)

    async def add_on(
        self, tournament_id: str, *, key: str | None = None
    ) -> gateway_pb2.TournamentPurchaseResponse:
        request = gateway_pb2.TournamentPurchaseRequest(
            tournament_id=tournament_id, idempotency_key=key or uuid.uuid4().hex
        )
        return await self._call(self._stub.AddOnTournament, request)

    async def watch_tournament(
        self, tournament_id: str, *, max_attempts: int | None = None
    ) -> AsyncIterator[gateway_pb2.TournamentUpdate]:
        """The tournament as it changes, for the caller (``update.me``: their table and seat,
        ``moved_from_table_id`` after a move). Reopened after a resumable failure; ends when
        the server ends the stream (the tournament finished or was cancelled)."""
        failures = 0
        delays: Iterator[float] = self.retry.delays()
        while True:
            call = self._stub.WatchTournament(
                gateway_pb2.WatchTournamentRequest(tournament_id=tournament_id),
                metadata=self._metadata(),
            )
            try:
                async for update in call:
                    failures, delays = 0, self.retry.delays()
                    yield update
                return
            except grpc.aio.AioRpcError as error:
                if error.code() not in RESUMABLE:
                    raise GatewayError.from_rpc(error) from None
                failures += 1
                if max_attempts is not None and failures > max_attempts:
                    raise GatewayError.from_rpc(error) from None
                self.resumes += 1
            finally:
                call.cancel()
            await asyncio.sleep(next(delays))
