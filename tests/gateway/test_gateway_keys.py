"""A client's idempotency key is its own: two players reusing one key, and one player reusing a
key for calls of other kinds, each get the outcome of their own call.

The table looks a command's key up alone (per table, whoever sent it), so the gateway scopes a
client's key by the player and the kind of call before the table sees it, and the lobby scopes
its sagas' keys by the player. Every other test sends a fresh uuid4 key, so a key scoped without
the player (the second player gets the first's outcome: a seeded bug the suite once missed)
went unnoticed; here two players send every call with one and the same key."""

from __future__ import annotations

import time
from collections.abc import Callable

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import CONFIG, GatewayStack, bearer, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

KEY = "one-key-for-everything"
OUT = common_pb2.SEAT_STATUS_SITTING_OUT
CHECK, CALL = common_pb2.ACTION_TYPE_CHECK, common_pb2.ACTION_TYPE_CALL


def statuses(stack: GatewayStack, table_id: str) -> dict[str, common_pb2.SeatStatus.ValueType]:
    return {s.player_id: s.status for s in stack.view(table_id).seats}


def eventually(check: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.05)


def test_two_players_reusing_one_key_for_every_call_each_get_their_own_outcome(
    gateway_stack: GatewayStack,
) -> None:
    stack = gateway_stack
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        logins = {
            who: gw.GuestLogin(gateway_pb2.GuestLoginRequest(display_name=who), timeout=30)
            for who in ("ann", "bob")
        }
        meta = {who: bearer(login.token) for who, login in logins.items()}
        ids = {who: login.player.player_id for who, login in logins.items()}
        table_id = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="one key", config=CONFIG),
            metadata=meta["ann"],
            timeout=30,
        ).table.table_id

        # each joins (the lobby's buy-in saga) and sits out at once, so no hand starts yet
        joined, sat_out = {}, {}
        for who in ("ann", "bob"):
            joined[who] = gw.JoinTable(
                gateway_pb2.JoinTableRequest(table_id=table_id, buy_in=200, idempotency_key=KEY),
                metadata=meta[who],
                timeout=30,
            )
            sat_out[who] = gw.SitOut(
                gateway_pb2.SitOutRequest(table_id=table_id, idempotency_key=KEY),
                metadata=meta[who],
                timeout=30,
            )
        assert joined["ann"].seat != joined["bob"].seat
        assert sat_out["ann"].sequence != sat_out["bob"].sequence
        assert statuses(stack, table_id) == {ids["ann"]: OUT, ids["bob"]: OUT}

        # both sit in again, with the key they sat out with: the hand starts
        sat_in = {
            who: gw.SitIn(
                gateway_pb2.SitInRequest(table_id=table_id, idempotency_key=KEY),
                metadata=meta[who],
                timeout=30,
            )
            for who in ("ann", "bob")
        }
        assert sat_in["ann"].sequence not in (sat_out["ann"].sequence, sat_in["bob"].sequence)
        eventually(
            lambda: stack.view(table_id).HasField("acting_seat"),
            f"no hand started: {statuses(stack, table_id)}",
        )

        # heads-up pre-flop: the button calls, the big blind checks, each with the one key
        acted = []
        for _ in range(2):
            view = stack.view(table_id)
            actor = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
            who = next(w for w, p in ids.items() if p == actor)
            legal = stack.view(table_id, actor).legal_actions
            action = (
                common_pb2.ACTION_TYPE_CHECK if legal.can_check else common_pb2.ACTION_TYPE_CALL
            )
            acted.append(
                gw.Act(
                    gateway_pb2.ActRequest(
                        table_id=table_id, hand_id=view.hand_id, action=action, idempotency_key=KEY
                    ),
                    metadata=meta[who],
                    timeout=30,
                )
            )
        assert acted[0].sequence < acted[1].sequence, "the second action got the first's outcome"
        eventually(
            lambda: stack.view(table_id).street == common_pb2.STREET_FLOP,
            "the big blind's check never closed the pre-flop round",
        )
