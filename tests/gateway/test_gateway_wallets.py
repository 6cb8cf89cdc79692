"""Accounts and money through the gateway, with real processes: people register (or come as
guests), buy in through the lobby's saga, play, leave, and their wallets end exactly right; a
retried join moves chips once; logout revokes the token at once."""

from __future__ import annotations

import time
import uuid

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import CONFIG, GatewayStack, bearer, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

PASSWORD = "correct horse battery"


def account(gw, name: str) -> str:  # type: ignore[no-untyped-def]
    gw.Register(gateway_pb2.RegisterRequest(username=name, password=PASSWORD), timeout=30)
    return str(
        gw.Login(gateway_pb2.LoginRequest(username=name, password=PASSWORD), timeout=30).token
    )


def wallet(gw, token: str) -> gateway_pb2.Wallet:  # type: ignore[no-untyped-def]
    response = gw.GetWallet(gateway_pb2.GetWalletRequest(), metadata=bearer(token), timeout=10)
    return response.wallet  # type: ignore[no-any-return]


def fold_hands(stack: GatewayStack, gw, table_id: str, tokens: dict[str, str], hands: int) -> None:  # type: ignore[no-untyped-def]
    """Whoever is to act folds (through the gateway) until ``hands`` hands ended."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = stack.view(table_id)
        if view.hand_number > hands or (view.hand_number == hands and not view.hand_id):
            return
        if not view.HasField("acting_seat"):
            time.sleep(0.02)
            continue
        player = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
        mine = stack.view(table_id, player)
        if mine.HasField("showdown"):  # a showdown turn
            gw.Show(
                gateway_pb2.ShowRequest(table_id=table_id, idempotency_key=uuid.uuid4().hex),
                metadata=bearer(tokens[player]),
            )
            continue
        can_fold = mine.legal_actions.can_fold
        action = common_pb2.ACTION_TYPE_FOLD if can_fold else common_pb2.ACTION_TYPE_CHECK
        gw.Act(
            gateway_pb2.ActRequest(
                table_id=table_id,
                hand_id=mine.hand_id,
                action=action,
                idempotency_key=uuid.uuid4().hex,
            ),
            metadata=bearer(tokens[player]),
        )
    raise AssertionError("the hands never ended")


def test_buy_in_play_leave_and_the_wallets_end_exactly_right(gateway_stack: GatewayStack) -> None:
    stack = gateway_stack
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        suffix = uuid.uuid4().hex[:6]
        names = {"ann": f"ann{suffix}", "bob": f"bob{suffix}"}
        tokens = {who: account(gw, name) for who, name in names.items()}
        grant = wallet(gw, tokens["ann"]).balance
        assert grant > 0 and wallet(gw, tokens["bob"]).balance == grant

        table = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="wallets", config=CONFIG),
            metadata=bearer(tokens["ann"]),
            timeout=30,
        ).table
        buy_ins = {"ann": 200, "bob": 300}
        joined = {}
        for who, amount in buy_ins.items():
            request = gateway_pb2.JoinTableRequest(
                table_id=table.table_id, buy_in=amount, idempotency_key=f"join-{who}"
            )
            joined[who] = gw.JoinTable(request, metadata=bearer(tokens[who]), timeout=30)
            again = gw.JoinTable(request, metadata=bearer(tokens[who]), timeout=30)
            assert (again.seat, again.sequence) == (joined[who].seat, joined[who].sequence)
            after = wallet(gw, tokens[who])
            assert after.balance == grant - amount, (who, after)
        ids = {s.player_id for s in stack.view(table.table_id).seats}
        assert len(ids) == 2
        by_player = {
            s.player_id: who
            for s in stack.view(table.table_id).seats
            for who in buy_ins
            if s.seat == joined[who].seat
        }
        fold_hands(
            stack, gw, table.table_id, {pid: tokens[who] for pid, who in by_player.items()}, 2
        )
        answers = {}
        for who in buy_ins:
            answers[who] = gw.LeaveTable(
                gateway_pb2.LeaveTableRequest(table_id=table.table_id, idempotency_key="bye"),
                metadata=bearer(tokens[who]),
                timeout=30,
            )
        cash = {}
        for who, amount in buy_ins.items():  # (in a third hand already: credited when it ends)
            deadline = time.monotonic() + 60
            while wallet(gw, tokens[who]).on_tables:
                assert time.monotonic() < deadline, f"{who} was never cashed out"
                time.sleep(0.05)
            cash[who] = wallet(gw, tokens[who]).balance - (grant - amount)
            left = answers[who]
            assert left.cash_out == (0 if left.leaving else cash[who]), (who, left, cash)
        assert sum(cash.values()) == sum(buy_ins.values())
        for who, amount in buy_ins.items():
            end = wallet(gw, tokens[who])
            assert end.balance == grant - amount + cash[who], (who, end)
            assert end.on_tables == 0 and end.reserved == 0
            ledger = gw.ListLedger(
                gateway_pb2.ListLedgerRequest(), metadata=bearer(tokens[who]), timeout=10
            ).entries
            kinds = [e.kind for e in ledger]
            assert gateway_pb2.LEDGER_ENTRY_KIND_GRANT in kinds
            assert ledger[-1].balance_after == end.balance


def test_guests_play_money_and_logout_revokes_the_token(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        guest = gw.GuestLogin(gateway_pb2.GuestLoginRequest(display_name="Visitor"), timeout=30)
        assert wallet(gw, guest.token).balance > 0
        gw.Logout(gateway_pb2.LogoutRequest(), metadata=bearer(guest.token), timeout=10)
        with pytest.raises(grpc.RpcError) as refused:
            wallet(gw, guest.token)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_leave_during_a_hand_is_answered_at_once_and_cashed_out_at_its_end(
    gateway_stack: GatewayStack,
) -> None:
    """LeaveTable by a player dealt into the hand in play answers at once (``leaving``, nothing
    cashed out yet) while the hand goes on; the player folds at their turn and the chips reach
    the wallet when the hand ends. (It used to block until the hand ended or the lobby's wait ran
    out, so a client waiting for the answer missed its own turns.)"""
    stack = gateway_stack
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        suffix = uuid.uuid4().hex[:6]
        tokens = {who: account(gw, f"{who}{suffix}") for who in ("cat", "dan")}
        grant = wallet(gw, tokens["cat"]).balance
        table = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="leave mid-hand", config=CONFIG),
            metadata=bearer(tokens["cat"]),
            timeout=30,
        ).table
        seats = {}
        for who in tokens:
            seats[who] = gw.JoinTable(
                gateway_pb2.JoinTableRequest(
                    table_id=table.table_id, buy_in=200, idempotency_key=f"join-{who}"
                ),
                metadata=bearer(tokens[who]),
                timeout=30,
            ).seat
        deadline = time.monotonic() + 60
        view = stack.view(table.table_id)
        while not (view.hand_id and view.HasField("acting_seat")):
            assert time.monotonic() < deadline, f"no hand started: {view}"
            time.sleep(0.05)
            view = stack.view(table.table_id)
        actor = next(who for who, seat in seats.items() if seat == view.acting_seat)
        leaver = next(who for who in seats if who != actor)
        leave = gateway_pb2.LeaveTableRequest(table_id=table.table_id, idempotency_key="mid-hand")
        left = gw.LeaveTable(leave, metadata=bearer(tokens[leaver]), timeout=30)
        assert left.leaving and left.cash_out == 0, left
        during = stack.view(table.table_id)
        assert during.hand_id == view.hand_id, "the answer waited for the hand's end"
        assert any(s.seat == seats[leaver] and s.player_id for s in during.seats)
        again = gw.LeaveTable(leave, metadata=bearer(tokens[leaver]), timeout=30)
        assert again.leaving and again.sequence == left.sequence, again

        hand = during.hand_id  # the actor folds: the leaver wins the blinds, then leaves
        gw.Act(
            gateway_pb2.ActRequest(
                table_id=table.table_id,
                hand_id=hand,
                action=common_pb2.ACTION_TYPE_FOLD,
                idempotency_key=uuid.uuid4().hex,
            ),
            metadata=bearer(tokens[actor]),
            timeout=30,
        )
        deadline = time.monotonic() + 60
        end = wallet(gw, tokens[leaver])
        while end.on_tables:
            assert time.monotonic() < deadline, f"never cashed out: {end}"
            time.sleep(0.05)
            end = wallet(gw, tokens[leaver])
        after = stack.view(table.table_id)
        assert not any(s.player_id for s in after.seats if s.seat == seats[leaver])
        remaining = sum(s.stack for s in after.seats if s.player_id)
        assert end.balance + remaining + wallet(gw, tokens[actor]).balance == 2 * grant
        assert end.balance > grant - 200, end  # won the actor's blind before leaving
        done = gw.LeaveTable(leave, metadata=bearer(tokens[leaver]), timeout=30)
        assert not done.leaving and done.cash_out == end.balance - (grant - 200), done
