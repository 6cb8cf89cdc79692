"""The director's wallets (``ports.Wallets``) and the registration saga's payments: the lobby's
PayTournament and CreditTournament, each once by key (the wallet remembers the keys it took). A
lobby that does not answer is asked again; a refusal is raised as the lobby's error (its kind
and code), so a caller answers it as the lobby did."""

from __future__ import annotations

import asyncio

import grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.errors import (
    AlreadyExists,
    Conflict,
    DomainError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PreconditionFailed,
    Unavailable,
)
from libs.platform.errors import error_code_of
from libs.tournament import events as E

ATTEMPTS = 40
RETRY_SECONDS = 0.25
LOBBY_UNAVAILABLE = "LOBBY_UNAVAILABLE"
_TRANSIENT = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
)
_REFUSALS: dict[grpc.StatusCode, type[DomainError]] = {
    grpc.StatusCode.FAILED_PRECONDITION: PreconditionFailed,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
}


class LobbyWallets:
    def __init__(self, channel: grpc.aio.Channel, timeout: float = 5.0) -> None:
        self.stub = lobby_pb2_grpc.LobbyServiceStub(channel)
        self.timeout = timeout

    async def _call(self, method: str, request: object) -> int:
        for _ in range(ATTEMPTS):
            try:
                response = await getattr(self.stub, method)(request, timeout=self.timeout)
                return int(response.balance)
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in _TRANSIENT:
                    kind = _REFUSALS.get(exc.code(), Conflict)
                    raise kind(error_code_of(exc) or exc.code().name, exc.details() or "") from None
            await asyncio.sleep(RETRY_SECONDS)
        raise Unavailable(LOBBY_UNAVAILABLE, "the lobby did not answer: retry")

    async def pay(self, player_id: str, tournament_id: str, amount: int, key: str) -> int:
        """The buy-in from the player's wallet (once by ``key``); the balance after."""
        request = lobby_pb2.PayTournamentRequest(
            player_id=player_id, tournament_id=tournament_id, amount=amount, idempotency_key=key
        )
        return await self._call("PayTournament", request)

    async def credit(self, payment: E.Payment) -> None:
        """``ports.Wallets``: the payment to the player's wallet, once by its key."""
        tournament_id = payment.key.split(":", 1)[0]
        request = lobby_pb2.CreditTournamentRequest(
            player_id=payment.player_id,
            tournament_id=tournament_id,
            amount=payment.amount,
            idempotency_key=payment.key,
            reason=payment.reason.value,
        )
        await self._call("CreditTournament", request)
