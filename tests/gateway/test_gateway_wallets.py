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
        if not mine.HasField("legal_actions"):
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
        cash = {}
        for who in buy_ins:
            left = gw.LeaveTable(
                gateway_pb2.LeaveTableRequest(table_id=table.table_id, idempotency_key="bye"),
                metadata=bearer(tokens[who]),
                timeout=30,
            )
            cash[who] = left.cash_out
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
