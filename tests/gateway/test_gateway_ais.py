"""AI opponents and busting, through the gateway with real processes: CreateTable with bots seats
house AIs (bought in from their own wallets by the lobby's saga, played by the table through the
ai levels); people see every seat's display name; a player who loses every chip has their buy-in
closed in the lobby (a cash-out of 0), a busted AI leaves its seat; the chip audit holds."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.cli.house import open_house_table
from libs.table.config import BotDifficulty
from tests.gateway.ais import (
    EASY,
    HARD,
    assert_ais_cashed_out,
    audit,
    call_or_check,
    eventually,
    ledger,
    person,
    play,
    seated_levels,
    shove,
    snapshot,
)
from tests.gateway.stack import CONFIG, GatewayStack, bearer, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]


def test_a_person_plays_ais_created_through_the_gateway_and_every_chip_is_accounted(
    gateway_stack: GatewayStack,
) -> None:
    stack = gateway_stack
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        me, token = person(gw, "ann")
        before = gw.GetWallet(gateway_pb2.GetWalletRequest(), metadata=bearer(token)).wallet
        table = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="vs ais", config=CONFIG, bots=[EASY, HARD, HARD]),
            metadata=bearer(token),
            timeout=60,
        ).table
        # three house AIs seated (they play each other at once: an AI may even have busted and
        # left already), each played at its level, bought in with the max buy-in from its own
        # wallet
        assert seated_levels(stack, table.table_id) == {
            "ai-easy-1": BotDifficulty.EASY,
            "ai-hard-1": BotDifficulty.HARD,
            "ai-hard-2": BotDifficulty.HARD,
        }
        for ai in ("ai-easy-1", "ai-hard-1", "ai-hard-2"):
            buy_ins = [e for e in ledger(stack, ai) if e.table_id == table.table_id]
            assert [(e.kind, e.amount) for e in buy_ins][:1] == [
                (lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN, -CONFIG.max_buy_in)
            ]
        # the creator's wallet paid nothing for them
        after = gw.GetWallet(gateway_pb2.GetWalletRequest(), metadata=bearer(token)).wallet
        assert after == before

        gw.JoinTable(
            gateway_pb2.JoinTableRequest(table_id=table.table_id, buy_in=200, idempotency_key="j"),
            metadata=bearer(token),
            timeout=60,
        )
        # every seat has its display name in what the gateway sends: people's from the lobby,
        # the AIs' by level
        view = snapshot(gw, table.table_id, token)
        names = {s.player_id: s.display_name for s in view.seats if s.player_id}
        ais = {"ai-easy-1": "Easy AI 1", "ai-hard-1": "Hard AI 1", "ai-hard-2": "Hard AI 2"}
        assert names[me].startswith("Ann")
        assert len(names) >= 2
        assert {p: n for p, n in names.items() if p != me}.items() <= ais.items()
        assert seated_levels(stack, table.table_id)[me] is None  # a person, not a bot

        # play three hands with them (calling or checking), then leave
        start = stack.view(table.table_id).hand_number
        play(
            stack,
            gw,
            table.table_id,
            {me: token},
            call_or_check,
            lambda v: (
                v.hand_number >= start + 3
                or any(s.player_id == me and s.stack == 0 for s in v.seats)
            ),
        )
        assert audit(stack).holds
        left = gw.LeaveTable(
            gateway_pb2.LeaveTableRequest(table_id=table.table_id, idempotency_key="bye"),
            metadata=bearer(token),
            timeout=60,
        )
        end = gw.GetWallet(gateway_pb2.GetWalletRequest(), metadata=bearer(token)).wallet
        if left.cash_out or end.on_tables == 0:  # left now (not mid-hand)
            assert end.balance == before.balance - 200 + left.cash_out
        checked = audit(stack)
        assert checked.holds and checked.open_sagas == 0, checked

        # only the creator may close the table (through the gateway)
        _, stranger = person(gw, "zed")
        with pytest.raises(grpc.RpcError) as refused:
            gw.CloseTable(
                gateway_pb2.CloseTableRequest(table_id=table.table_id),
                metadata=bearer(stranger),
                timeout=30,
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert stack.view(table.table_id).table_status == common_pb2.TABLE_STATUS_OPEN

        # the creator closes it (at once, or at the end of a hand in play): the AIs' chips go
        # back to their wallets
        closed = gw.CloseTable(
            gateway_pb2.CloseTableRequest(table_id=table.table_id),
            metadata=bearer(token),
            timeout=30,
        )
        assert closed.table.table_id == table.table_id

        def shut() -> bool:
            return stack.view(table.table_id).table_status == common_pb2.TABLE_STATUS_CLOSED

        eventually(shut)
        assert_ais_cashed_out(stack, table.table_id, ["ai-easy-1", "ai-hard-1", "ai-hard-2"])


def test_make_runs_house_table_is_created_through_the_gateway(gateway_stack: GatewayStack) -> None:
    stack = gateway_stack
    table_id = asyncio.run(
        open_house_table(stack.gateway.address, levels=(EASY, EASY), hand_limit=1)
    )
    assert seated_levels(stack, table_id) == {
        "ai-easy-1": BotDifficulty.EASY,
        "ai-easy-2": BotDifficulty.EASY,
    }
    # a client's table: the AIs do not play each other alone (they would, and cost, forever)
    assert stack.view(table_id).config.needs_a_person
    time.sleep(0.5)  # the AIs had every chance to start a hand by now
    assert stack.view(table_id).hand_number == 0
    # a person sits down: the one hand of its limit is played, the table closes, the AIs are
    # cashed out
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        me, token = person(gw, "sam")
        gw.JoinTable(
            gateway_pb2.JoinTableRequest(table_id=table_id, buy_in=200, idempotency_key="in"),
            metadata=bearer(token),
            timeout=60,
        )
        play(
            stack,
            gw,
            table_id,
            {me: token},
            call_or_check,
            lambda view: view.table_status == common_pb2.TABLE_STATUS_CLOSED,
        )
    assert_ais_cashed_out(stack, table_id, ["ai-easy-1", "ai-easy-2"])


def test_bad_ai_seats_are_refused_and_change_nothing(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        _, token = person(gw, "bea")
        listed = len(
            gw.ListTables(gateway_pb2.ListTablesRequest(include_closed=True), timeout=30).tables
        )
        cases: tuple[tuple[list[Any], str], ...] = (
            ([EASY] * 6, "at most 5 AIs"),  # a 6-seat table: one seat stays free
            ([EASY, 7], "7 is not a BotDifficulty"),
            ([common_pb2.BOT_DIFFICULTY_UNSPECIFIED], "must be one of BOT_DIFFICULTY_EASY"),
        )
        for bots, says in cases:
            with pytest.raises(grpc.RpcError) as refused:
                gw.CreateTable(
                    gateway_pb2.CreateTableRequest(name="bad", config=CONFIG, bots=bots),
                    metadata=bearer(token),
                    timeout=30,
                )
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, bots
            assert says in (refused.value.details() or ""), refused.value.details()
        tables = gw.ListTables(gateway_pb2.ListTablesRequest(include_closed=True), timeout=30)
        assert len(tables.tables) == listed


def test_a_busted_player_has_the_buy_in_closed_and_a_busted_ai_frees_its_seat(
    gateway_stack: GatewayStack,
) -> None:
    stack = gateway_stack
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        # two people at the minimum buy-in go all in every hand until one has nothing left
        (ann, ann_token), (bob, bob_token) = person(gw, "cas"), person(gw, "dov")
        table = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="bust", config=CONFIG),
            metadata=bearer(ann_token),
            timeout=60,
        ).table
        tokens = {ann: ann_token, bob: bob_token}
        for token in tokens.values():
            gw.JoinTable(
                gateway_pb2.JoinTableRequest(
                    table_id=table.table_id, buy_in=CONFIG.min_buy_in, idempotency_key="in"
                ),
                metadata=bearer(token),
                timeout=60,
            )

        def busted(view: common_pb2.PlayerView) -> bool:
            return not view.hand_id and any(s.player_id and s.stack == 0 for s in view.seats)

        view = play(stack, gw, table.table_id, tokens, shove, busted)
        loser = next(s for s in view.seats if s.player_id and s.stack == 0)
        assert loser.status == common_pb2.SEAT_STATUS_SITTING_OUT  # keeps the seat, may top up
        token = tokens[loser.player_id]

        def closed() -> gateway_pb2.Wallet | None:
            wallet = gw.GetWallet(gateway_pb2.GetWalletRequest(), metadata=bearer(token)).wallet
            return wallet if wallet.on_tables == 0 else None

        wallet = eventually(closed)
        assert wallet.reserved == 0
        entries = gw.ListLedger(gateway_pb2.ListLedgerRequest(), metadata=bearer(token)).entries
        last = entries[-1]
        assert (last.kind, last.amount, last.table_id) == (
            gateway_pb2.LEDGER_ENTRY_KIND_CASH_OUT,
            0,
            table.table_id,
        )
        assert last.balance_after == wallet.balance
        left = gw.LeaveTable(
            gateway_pb2.LeaveTableRequest(table_id=table.table_id, idempotency_key="out"),
            metadata=bearer(token),
            timeout=60,
        )
        assert left.cash_out == 0
        assert audit(stack).holds

        # an AI that loses every chip leaves: its seat is free, its buy-in closed with 0. The
        # person goes all in every hand, buying chips again (a top-up of the busted seat, then
        # back in) whenever the AI won them all, until the AI is broke. Two big blinds each,
        # with a big blind's ante: nearly every chip is in before the cards, so each hand is
        # close to a coin flip for everything and the AI is broke within a few hands. (At 20 big
        # blinds against an AI that calls a shove only with good cards, the AI's chips made a
        # walk that outlived the 100 top-ups now and then: a flaky test.)
        short = common_pb2.TableConfig()
        short.CopyFrom(CONFIG)
        short.small_blind, short.big_blind, short.ante = 10, 20, 20
        short.min_buy_in = short.max_buy_in = 40
        me, token = person(gw, "eli")
        ai_table = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="ai bust", config=short, bots=[EASY]),
            metadata=bearer(token),
            timeout=60,
        ).table
        gw.JoinTable(
            gateway_pb2.JoinTableRequest(
                table_id=ai_table.table_id, buy_in=40, idempotency_key="in"
            ),
            metadata=bearer(token),
            timeout=60,
        )

        def someone_broke(view: common_pb2.PlayerView) -> bool:
            ai = [s for s in view.seats if s.player_id == "ai-easy-1"]
            return not ai or (not view.hand_id and any(s.stack == 0 for s in view.seats))

        for rebuy in range(100):
            view = play(stack, gw, ai_table.table_id, {me: token}, shove, someone_broke)
            if not any(s.player_id == me and s.stack == 0 for s in view.seats):
                break
            gw.TopUp(
                gateway_pb2.TopUpRequest(
                    table_id=ai_table.table_id, amount=40, idempotency_key=f"again-{rebuy}"
                ),
                metadata=bearer(token),
                timeout=60,
            )
            gw.SitIn(
                gateway_pb2.SitInRequest(table_id=ai_table.table_id, idempotency_key=f"in-{rebuy}"),
                metadata=bearer(token),
                timeout=60,
            )

        def ai_gone() -> bool:
            return all(s.player_id != "ai-easy-1" for s in stack.view(ai_table.table_id).seats)

        eventually(ai_gone, 90)
        mine = [e for e in ledger(stack, "ai-easy-1") if e.table_id == ai_table.table_id]
        assert mine[0].kind == lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN
        assert mine[-1].kind == lobby_pb2.LEDGER_ENTRY_KIND_CASH_OUT and mine[-1].amount == 0
        assert sum(e.amount for e in mine) == -40  # every chip of it was lost
        assert audit(stack).holds
