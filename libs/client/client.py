"""``GatewayClient``: the typed asyncio client of holdem.gateway.v1 (people, bots, tests, load).

- Tokens: ``login``/``guest_login`` keep the token and send it as ``authorization: Bearer`` on
  every later call.
- Idempotency: every call that takes a key gets a fresh one unless the caller passes one, and a
  retry reuses it, so a retried Act is applied once.
- Retries: a call that may be repeated safely (reads, keyed writes, login) is retried with
  exponential backoff on UNAVAILABLE; calls that would create something twice (Register,
  GuestLogin, CreateTable) are not.
- ``watch``: the WatchTable stream, resumed from the last sequence seen whenever it drops
  (UNAVAILABLE, a slow-consumer cut-off, a gateway restart), with no update repeated.
- Each feature's calls are a mixin of its own module (libs/client/): chat, private (private
  tables, waiting lists), runit (run it twice, rabbit), bomb, seatopts, stats, tournaments.
Errors are :class:`~libs.client.errors.GatewayError` (status, server message, error code).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, TypeAlias, TypeVar

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.client.bomb import BombPotCalls
from libs.client.channel import gateway_channel
from libs.client.chat import ChatCalls
from libs.client.errors import GatewayError
from libs.client.private import PrivateTableCalls
from libs.client.retry import RESUMABLE, RETRYABLE, RetryPolicy
from libs.client.runit import RunItCalls
from libs.client.seatopts import SeatOptionCalls
from libs.client.stats import StatsCalls
from libs.client.tournaments import TournamentCalls

R = TypeVar("R")

ActionType: TypeAlias = common_pb2.ActionType.ValueType
BotDifficulty: TypeAlias = common_pb2.BotDifficulty.ValueType


def new_key() -> str:
    """A fresh idempotency key (32 hex characters, valid as a KEY field)."""
    return uuid.uuid4().hex


class GatewayClient(
    ChatCalls,
    PrivateTableCalls,
    RunItCalls,
    StatsCalls,
    TournamentCalls,
    BombPotCalls,
    SeatOptionCalls,
):
    """One connection to the gateway, acting as at most one player (the last login)."""

    def __init__(
        self,
        target: str,
        *,
        token: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: float = 15.0,
        channel: grpc.aio.Channel | None = None,
        tls: bool | bytes = False,
    ) -> None:
        self.target = target
        self.token = token
        self.player: gateway_pb2.Player | None = None
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        self._owns_channel = channel is None
        self._channel = channel or gateway_channel(target, tls)
        self._stub = gateway_pb2_grpc.GatewayServiceStub(self._channel)
        # Counters for tests and the terminal client: calls retried, watch streams resumed.
        self.retries = 0
        self.resumes = 0

    async def __aenter__(self) -> GatewayClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._owns_channel:
            await self._channel.close()

    @property
    def player_id(self) -> str:
        return self.player.player_id if self.player is not None else ""

    # -- plumbing ---------------------------------------------------------------------------

    def _metadata(self) -> tuple[tuple[str, str], ...]:
        if self.token:
            return (("authorization", f"Bearer {self.token}"),)
        return ()

    async def _call(
        self, method: Callable[..., Awaitable[R]], request: Any, *, retry: bool = True
    ) -> R:
        attempts = self.retry.attempts if retry else 1
        delays = self.retry.delays()
        for attempt in range(1, attempts + 1):
            try:
                return await method(request, metadata=self._metadata(), timeout=self.timeout)
            except grpc.aio.AioRpcError as error:
                if error.code() not in RETRYABLE or attempt == attempts:
                    raise GatewayError.from_rpc(error) from None
            self.retries += 1
            await asyncio.sleep(next(delays))
        raise AssertionError("unreachable")  # pragma: no cover

    # -- accounts ---------------------------------------------------------------------------

    async def register(
        self, username: str, password: str, display_name: str = ""
    ) -> gateway_pb2.Player:
        response = await self._call(
            self._stub.Register,
            gateway_pb2.RegisterRequest(
                username=username, password=password, display_name=display_name
            ),
            retry=False,
        )
        return response.player

    async def login(self, username: str, password: str) -> gateway_pb2.Player:
        response = await self._call(
            self._stub.Login, gateway_pb2.LoginRequest(username=username, password=password)
        )
        self.token, self.player = response.token, response.player
        return response.player

    async def guest_login(self, display_name: str) -> gateway_pb2.Player:
        response = await self._call(
            self._stub.GuestLogin,
            gateway_pb2.GuestLoginRequest(display_name=display_name),
            retry=False,
        )
        self.token, self.player = response.token, response.player
        return response.player

    async def logout(self) -> None:
        await self._call(self._stub.Logout, gateway_pb2.LogoutRequest())
        self.token = None

    # -- wallet -----------------------------------------------------------------------------

    async def wallet(self) -> gateway_pb2.Wallet:
        response = await self._call(self._stub.GetWallet, gateway_pb2.GetWalletRequest())
        return response.wallet

    async def ledger(self, page_size: int = 100) -> list[gateway_pb2.LedgerEntry]:
        """Every entry of the caller's ledger, oldest first (all pages)."""
        entries: list[gateway_pb2.LedgerEntry] = []
        token = ""
        while True:
            response = await self._call(
                self._stub.ListLedger,
                gateway_pb2.ListLedgerRequest(page_size=page_size, page_token=token),
            )
            entries.extend(response.entries)
            token = response.next_page_token
            if not token:
                return entries

    # -- tables -----------------------------------------------------------------------------

    async def list_tables(
        self,
        variant: common_pb2.Variant.ValueType = common_pb2.VARIANT_UNSPECIFIED,
        betting_structure: common_pb2.BettingStructure.ValueType = (
            common_pb2.BETTING_STRUCTURE_UNSPECIFIED
        ),
        *,
        include_closed: bool = False,
    ) -> list[common_pb2.TableSummary]:
        """Every table of the catalogue that matches (all pages, oldest first). A room may
        hold tens of thousands: a screen shows ``tables_page`` instead."""
        tables: list[common_pb2.TableSummary] = []
        token = ""
        while True:
            page, token = await self.tables_page(
                variant, betting_structure, include_closed=include_closed, page_token=token
            )
            tables.extend(page)
            if not token:
                return tables

    async def tables_page(
        self,
        variant: common_pb2.Variant.ValueType = common_pb2.VARIANT_UNSPECIFIED,
        betting_structure: common_pb2.BettingStructure.ValueType = (
            common_pb2.BETTING_STRUCTURE_UNSPECIFIED
        ),
        *,
        include_closed: bool = False,
        page_token: str = "",
        newest_first: bool = False,
        page_size: int = 0,
    ) -> tuple[list[common_pb2.TableSummary], str]:
        """One page of the matching tables (``page_size`` of them, 0: the gateway's default)
        and the next page's token ("" on the last)."""
        response = await self._call(
            self._stub.ListTables,
            gateway_pb2.ListTablesRequest(
                variant=variant,
                betting_structure=betting_structure,
                include_closed=include_closed,
                page_token=page_token,
                newest_first=newest_first,
                page_size=page_size,
            ),
        )
        return list(response.tables), response.next_page_token

    async def create_table(
        self,
        config: common_pb2.TableConfig,
        name: str = "",
        bots: Sequence[BotDifficulty] = (),
    ) -> common_pb2.TableSummary:
        response = await self._call(
            self._stub.CreateTable,
            gateway_pb2.CreateTableRequest(name=name, config=config, bots=list(bots)),
            retry=False,
        )
        return response.table

    async def close_table(self, table_id: str) -> common_pb2.TableSummary:
        """Close a table this player created (during a hand: at its end); everyone seated is
        cashed out."""
        response = await self._call(
            self._stub.CloseTable, gateway_pb2.CloseTableRequest(table_id=table_id)
        )
        return response.table

    async def join_table(
        self,
        table_id: str,
        buy_in: int,
        *,
        seat: int | None = None,
        wait_for_big_blind: bool = False,
        key: str | None = None,
    ) -> gateway_pb2.JoinTableResponse:
        request = gateway_pb2.JoinTableRequest(
            table_id=table_id,
            buy_in=buy_in,
            wait_for_big_blind=wait_for_big_blind,
            idempotency_key=key or new_key(),
        )
        if seat is not None:
            request.seat = seat
        return await self._call(self._stub.JoinTable, request)

    async def leave_table(
        self, table_id: str, *, key: str | None = None
    ) -> gateway_pb2.LeaveTableResponse:
        """Leave. ``cash_out``: the chips credited; or, when dealt into the hand in play,
        ``leaving`` at once: the player folds at their turn and is cashed out when it ends."""
        return await self._call(
            self._stub.LeaveTable,
            gateway_pb2.LeaveTableRequest(table_id=table_id, idempotency_key=key or new_key()),
        )

    async def top_up(self, table_id: str, amount: int, *, key: str | None = None) -> int:
        """More chips to the caller's seat; returns the stack after it."""
        response = await self._call(
            self._stub.TopUp,
            gateway_pb2.TopUpRequest(
                table_id=table_id, amount=amount, idempotency_key=key or new_key()
            ),
        )
        return response.stack

    # -- play -------------------------------------------------------------------------------

    async def act(
        self,
        table_id: str,
        action: ActionType,
        amount: int = 0,
        *,
        hand_id: str = "",
        key: str | None = None,
    ) -> gateway_pb2.ActResponse:
        """One action; ``amount`` is the "to" amount of a BET or RAISE. A refusal (not your turn,
        amount out of bounds, stale hand) raises GatewayError with the server's reason."""
        return await self._call(
            self._stub.Act,
            gateway_pb2.ActRequest(
                table_id=table_id,
                hand_id=hand_id,
                action=action,
                amount=amount,
                idempotency_key=key or new_key(),
            ),
        )

    async def show(
        self, table_id: str, *, hand_id: str = "", key: str | None = None
    ) -> gateway_pb2.ShowResponse:
        return await self._call(
            self._stub.Show,
            gateway_pb2.ShowRequest(
                table_id=table_id, hand_id=hand_id, idempotency_key=key or new_key()
            ),
        )

    async def muck(
        self, table_id: str, *, hand_id: str = "", key: str | None = None
    ) -> gateway_pb2.MuckResponse:
        return await self._call(
            self._stub.Muck,
            gateway_pb2.MuckRequest(
                table_id=table_id, hand_id=hand_id, idempotency_key=key or new_key()
            ),
        )

    async def hand_history(
        self, table_id: str, *, hand_id: str = "", limit: int = 0
    ) -> list[gateway_pb2.HandRecord]:
        response = await self._call(
            self._stub.GetHandHistory,
            gateway_pb2.GetHandHistoryRequest(table_id=table_id, hand_id=hand_id, limit=limit),
        )
        return list(response.hands)

    async def watch(
        self,
        table_id: str,
        *,
        from_sequence: int = 0,
        max_attempts: int | None = None,
        on_resume: Callable[[GatewayError], None] | None = None,
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        """Every update of the table for the caller, in order, across dropped connections.

        After a resumable failure (see ``RESUMABLE``) the stream is reopened with
        ``from_sequence`` = the last sequence seen, after a backoff; ``on_resume`` is told why.
        Commits at or below that sequence are skipped, so nothing is repeated. ``max_attempts``
        bounds consecutive failed reopenings (None = keep trying). The iterator ends when the
        server ends the stream normally (the table closed)."""
        last = from_sequence
        failures = 0
        delays = self.retry.delays()
        while True:
            call = self._stub.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=last),
                metadata=self._metadata(),
            )
            try:
                async for update in call:
                    if update.HasField("commit") and update.sequence <= last:
                        continue
                    last = max(last, update.sequence)
                    if failures:
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
                if on_resume is not None:
                    on_resume(GatewayError.from_rpc(error))
            finally:
                call.cancel()
            await asyncio.sleep(next(delays))


def configs(
    variants: Iterable[common_pb2.Variant.ValueType],
    structures: Iterable[common_pb2.BettingStructure.ValueType],
    **fields: Any,
) -> list[common_pb2.TableConfig]:
    """One TableConfig per variant x structure (the same other fields)."""
    return [
        common_pb2.TableConfig(variant=v, betting_structure=s, **fields)
        for v in variants
        for s in structures
    ]
