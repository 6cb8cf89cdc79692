"""libs.client over the wire against the stand-in gateway (a real grpc.aio server): logins,
tables, play, idempotent retries on UNAVAILABLE, and WatchTable resumed after a cut."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import grpc
import pytest
from holdem.common.v1 import common_pb2 as pb

from libs.client import GatewayClient, GatewayError, RetryPolicy
from libs.client.view import bet_sizes, cards_text, is_my_turn
from tests.client import fake_accounts, fake_gateway

FAST = RetryPolicy(attempts=4, initial_delay=0.001, max_delay=0.01)
NLHE = pb.TableConfig(
    variant=pb.VARIANT_HOLDEM,
    betting_structure=pb.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
)


def run(test: Callable[[fake_gateway.Server], Awaitable[None]]) -> None:
    async def main() -> None:
        server = await fake_gateway.start()
        try:
            await asyncio.wait_for(test(server), 30)
        finally:
            await server.server.stop(None)

    asyncio.run(main())


def test_guest_creates_a_table_with_bots_joins_and_sees_its_cards() -> None:
    async def body(server: fake_gateway.Server) -> None:
        async with GatewayClient(server.address, retry=FAST) as me:
            player = await me.guest_login("Alice")
            assert me.player_id == player.player_id and me.token
            table = await me.create_table(NLHE, "mine", [pb.BOT_DIFFICULTY_EASY] * 2)
            assert [t.table_id for t in await me.list_tables()] == [table.table_id]
            joined = await me.join_table(table.table_id, 200, seat=0)
            assert joined.seat == 0 and joined.stack == 200
            wallet = await me.wallet()
            assert wallet.balance == fake_accounts.GRANT - 200 and wallet.on_tables == 200
            async for update in me.watch(table.table_id):
                mine = [s for s in update.view.seats if s.seat == 0]
                if mine and len(mine[0].hole_cards) == 2:
                    assert len(cards_text(list(mine[0].hole_cards)).split()) == 2
                    others = [s for s in update.view.seats if s.seat != 0]
                    assert all(not s.hole_cards for s in others)
                    break

    run(body)


def test_refusals_carry_status_reason_and_code() -> None:
    async def body(server: fake_gateway.Server) -> None:
        async with GatewayClient(server.address, retry=FAST) as me:
            with pytest.raises(GatewayError) as caught:
                await me.wallet()
            assert caught.value.status == grpc.StatusCode.UNAUTHENTICATED
            await me.guest_login("Bob")
            with pytest.raises(GatewayError) as caught:
                await me.join_table("nope", 100)
            assert caught.value.status == grpc.StatusCode.NOT_FOUND
            assert caught.value.code == "TABLE_NOT_FOUND"
            assert "TABLE_NOT_FOUND" in str(caught.value)

    run(body)


def test_unavailable_is_retried_and_a_lost_reply_never_acts_twice() -> None:
    async def body(server: fake_gateway.Server) -> None:
        gateway = server.gateway
        async with GatewayClient(server.address, retry=FAST) as me:
            await me.guest_login("Carol")
            table = await me.create_table(NLHE, "", [pb.BOT_DIFFICULTY_NORMAL])
            gateway.faults.unavailable_before["JoinTable"] = 2
            await me.join_table(table.table_id, 200)
            assert gateway.calls["JoinTable"] == 3 and me.retries == 2
            async for update in me.watch(table.table_id):
                if is_my_turn(update.view):
                    view = update.view
                    break
            before = gateway.tables[table.table_id].sequence
            gateway.faults.unavailable_after["Act"] = 1  # applied, reply lost
            action = pb.ACTION_TYPE_CALL if view.legal_actions.can_call else pb.ACTION_TYPE_CHECK
            reply = await me.act(table.table_id, action, hand_id=view.hand_id)
            assert gateway.calls["Act"] == 2
            assert gateway.applied["Act"] == 1  # the retry was answered from the first
            assert reply.sequence == before + 1

    run(body)


def test_creating_calls_are_not_retried() -> None:
    async def body(server: fake_gateway.Server) -> None:
        server.gateway.faults.unavailable_before["GuestLogin"] = 1
        async with GatewayClient(server.address, retry=FAST) as me:
            with pytest.raises(GatewayError) as caught:
                await me.guest_login("Dan")
            assert caught.value.status == grpc.StatusCode.UNAVAILABLE
            assert server.gateway.calls["GuestLogin"] == 1

    run(body)


def test_watch_resumes_after_a_cut_without_gap_or_repeat() -> None:
    async def body(server: fake_gateway.Server) -> None:
        async with GatewayClient(server.address, retry=FAST) as me:
            await me.guest_login("Eve")
            config = pb.TableConfig()
            config.CopyFrom(NLHE)
            config.hand_limit = 3
            # two bots play the table's three hands at once; the watch replays them from the start
            table = await me.create_table(config, "", [pb.BOT_DIFFICULTY_EASY] * 2)
            resumed: list[GatewayError] = []
            server.gateway.faults.cut_watch_after = 4
            sequences: list[int] = []
            async for update in me.watch(table.table_id, from_sequence=1, on_resume=resumed.append):
                sequences.append(update.sequence)
            assert len(resumed) == 1 and resumed[0].status == grpc.StatusCode.RESOURCE_EXHAUSTED
            last = server.gateway.tables[table.table_id].sequence
            # every commit after the first exactly once, in order; the stream ends at the close
            assert sequences == list(range(2, last + 1)) and last > 20

    run(body)


def test_watch_resumes_across_a_gateway_restart() -> None:
    async def body(server: fake_gateway.Server) -> None:
        gateway = server.gateway
        patient = RetryPolicy(attempts=50, initial_delay=0.01, max_delay=0.2)
        async with GatewayClient(server.address, retry=patient) as me:
            await me.guest_login("Fay")
            table = await me.create_table(NLHE, "", [pb.BOT_DIFFICULTY_EASY])
            port = int(server.address.rsplit(":", 1)[1])
            seen: list[int] = []
            resumes: list[GatewayError] = []

            async def watch() -> None:
                async for update in me.watch(table.table_id, on_resume=resumes.append):
                    seen.append(update.sequence)
                    if update.view.hand_number >= 1 and update.view.HasField("acting_seat"):
                        return

            await server.server.stop(None)  # the gateway goes away
            task = asyncio.create_task(watch())
            while not resumes:
                await asyncio.sleep(0.01)
            replacement = grpc.aio.server()
            from holdem.gateway.v1 import gateway_pb2_grpc

            gateway_pb2_grpc.add_GatewayServiceServicer_to_server(gateway, replacement)
            replacement.add_insecure_port(f"127.0.0.1:{port}")
            await replacement.start()
            await me.join_table(table.table_id, 200)
            await task
            assert seen == sorted(set(seen)) and me.resumes >= 1
            await replacement.stop(None)

    run(body)


def test_bet_sizes_are_within_the_bounds() -> None:
    view = pb.PlayerView(viewer_seat=0, acting_seat=0)
    view.legal_actions.CopyFrom(
        pb.LegalActions(can_bet_or_raise=True, min_raise_to=4, max_raise_to=200, can_call=True)
    )
    view.seats.add(seat=0, committed=1, stack=199)
    view.seats.add(seat=1, committed=2, stack=198)
    sizes = bet_sizes(view)
    # pot 3, call 1 -> pot after call 4: pot raise to 2 + 4 = 6, half pot 2 + 2 = 4
    assert sizes == {"min": 4, "half": 4, "pot": 6, "all_in": 200}
    view.ClearField("legal_actions")
    assert bet_sizes(view) == {}
