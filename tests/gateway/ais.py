"""What the AI tests through the gateway share: people and their tokens, calls to the lobby as
an operator (the audit, a ledger), a table's snapshot and its AIs' levels, playing hands with a
chosen move, and waiting for a condition."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.devstack.identity import channel_as
from libs.eventstore.projection import read_public
from libs.platform.natsconn import connect_nats
from libs.table.config import BotDifficulty
from libs.table.events import PlayerSeated
from libs.tableproto.public import decode_public
from tests.gateway.stack import GatewayStack, bearer

PASSWORD = "correct horse battery"
EASY, NORMAL, HARD = (
    common_pb2.BOT_DIFFICULTY_EASY,
    common_pb2.BOT_DIFFICULTY_NORMAL,
    common_pb2.BOT_DIFFICULTY_HARD,
)
Choose = Callable[[common_pb2.LegalActions], Any]


def person(gw, name: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A registered player: (player id, token)."""
    name = f"{name}{uuid.uuid4().hex[:6]}"
    player = gw.Register(
        gateway_pb2.RegisterRequest(username=name, password=PASSWORD, display_name=name.title()),
        timeout=30,
    ).player
    token = gw.Login(gateway_pb2.LoginRequest(username=name, password=PASSWORD), timeout=30).token
    return str(player.player_id), str(token)


def lobby(stack: GatewayStack, method: str, request: object) -> object:
    with channel_as(stack.lobby.address) as channel:
        return getattr(lobby_pb2_grpc.LobbyServiceStub(channel), method)(request, timeout=60)


def audit(stack: GatewayStack) -> lobby_pb2.AuditChipsResponse:
    found = lobby(stack, "AuditChips", lobby_pb2.AuditChipsRequest())
    assert isinstance(found, lobby_pb2.AuditChipsResponse)
    return found


def ledger(stack: GatewayStack, player_id: str) -> list[lobby_pb2.LedgerEntry]:
    found = lobby(stack, "ListLedger", lobby_pb2.ListLedgerRequest(player_id=player_id))
    assert isinstance(found, lobby_pb2.ListLedgerResponse)
    return list(found.entries)


def snapshot(gw, table_id: str, token: str) -> common_pb2.PlayerView:  # type: ignore[no-untyped-def]
    """The caller's view as WatchTable's first update sends it."""
    stream = gw.WatchTable(
        gateway_pb2.WatchTableRequest(table_id=table_id), metadata=bearer(token), timeout=30
    )
    try:
        first = next(stream)
    finally:
        stream.cancel()
    assert first.HasField("snapshot")
    return first.snapshot  # type: ignore[no-any-return]


def seated_levels(stack: GatewayStack, table_id: str) -> dict[str, BotDifficulty | None]:
    async def read() -> dict[str, BotDifficulty | None]:
        nc = await connect_nats(stack.nats_url)
        try:
            commits = [decode_public(p) for p in await read_public(nc, table_id)]
        finally:
            await nc.close()
        return {
            e.player_id: e.bot_difficulty
            for c in commits
            for e in c.events
            if isinstance(e, PlayerSeated)
        }

    return asyncio.run(read())


def call_or_check(legal: common_pb2.LegalActions) -> Any:
    return common_pb2.ACTION_TYPE_CHECK if legal.can_check else common_pb2.ACTION_TYPE_CALL


def shove(legal: common_pb2.LegalActions) -> Any:
    if legal.can_bet_or_raise:
        return common_pb2.ACTION_TYPE_ALL_IN
    return common_pb2.ACTION_TYPE_CALL if legal.can_call else common_pb2.ACTION_TYPE_CHECK


def play(  # type: ignore[no-untyped-def]
    stack: GatewayStack,
    gw,
    table_id: str,
    tokens: dict[str, str],
    choose: Choose,
    done: Callable[[common_pb2.PlayerView], bool],
    seconds: float = 180,
) -> common_pb2.PlayerView:
    """People (``tokens``: player id -> token) act through the gateway whenever it is their turn
    (the AIs by themselves) until ``done(table view)``; that view."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = stack.view(table_id)
        if done(view):
            return view
        actor = next((s.player_id for s in view.seats if s.seat == view.acting_seat), "")
        if not view.HasField("acting_seat") or actor not in tokens:
            time.sleep(0.02)
            continue
        mine = stack.view(table_id, actor)
        try:
            if mine.HasField("showdown"):  # a showdown turn
                gw.Show(
                    gateway_pb2.ShowRequest(
                        table_id=table_id, hand_id=mine.hand_id, idempotency_key=uuid.uuid4().hex
                    ),
                    metadata=bearer(tokens[actor]),
                    timeout=30,
                )
                continue
            gw.Act(
                gateway_pb2.ActRequest(
                    table_id=table_id,
                    hand_id=mine.hand_id,
                    action=choose(mine.legal_actions),
                    idempotency_key=uuid.uuid4().hex,
                ),
                metadata=bearer(tokens[actor]),
                timeout=30,
            )
        except grpc.RpcError as exc:  # the turn moved on meanwhile (the clock, a race)
            if exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                # the player's call rate (a person shoving every hand against a fast AI): wait
                # as told, like any client, and look again
                time.sleep(0.1)
                continue
            if exc.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
    raise AssertionError("the table never got there")


def assert_ais_cashed_out(stack: GatewayStack, table_id: str, ais: list[str]) -> None:
    """Every AI seated at the (closed) table got its chips back: its entries for the table end
    with a cash-out, and together the AIs' entries there are what they won or lost."""

    def cashed_out() -> bool:
        for ai in ais:
            mine = [e for e in ledger(stack, ai) if e.table_id == table_id]
            if mine[-1].kind != lobby_pb2.LEDGER_ENTRY_KIND_CASH_OUT:
                return False
        return True

    eventually(cashed_out)
    checked = audit(stack)
    assert checked.holds and checked.open_sagas == 0, checked
    assert all(t.on_table == 0 for t in checked.tables if t.table_id == table_id), checked


def eventually(check, seconds: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {check.__name__}")
