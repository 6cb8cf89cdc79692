"""Tournaments through the gateway, with real processes (nats-server, redis-server, the table,
lobby, tournament and gateway services): players list, read, register and unregister with their
wallets checked to the chip; every refusal (an unknown tournament, registering twice,
unregistering when not registered or after the start, too few chips, no rebuys in a freezeout,
not signed in) has its status and changes nothing; a rebuy is paid once and refunded by a
cancellation; ``holdem tournaments`` does the same for a player; and a short tournament of AIs
and one player, who plays their hands through the gateway and follows WatchTournament from table
to table to the end."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
import uuid
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.cli.main import main
from libs.client import GatewayClient, GatewayError
from libs.client.view import is_my_turn, is_showdown_turn
from tests.gateway.tournament_stack import BUY_IN, Player, Stack, eventually, stack

__all__ = ["stack"]  # fixture

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

S = grpc.StatusCode


def test_players_list_read_register_and_unregister_with_exact_wallets(stack: Stack) -> None:
    tid = stack.create()
    alice, bob = Player(stack, "alice"), Player(stack, "bob")
    start = {p.player_id: stack.balance(p.player_id) for p in (alice, bob)}

    listed = alice.call(
        "ListTournaments", gateway_pb2.ListTournamentsRequest(statuses=["registering"])
    )
    assert tid in [t.tournament_id for t in listed.tournaments]
    shown = alice.call("GetTournament", gateway_pb2.GetTournamentRequest(tournament_id=tid))
    assert shown.tournament.summary.entrants == 0 and shown.tournament.config.buy_in == BUY_IN

    registered = alice.call("RegisterTournament", alice.register(tid, "k1"))
    assert registered.tournament.entrants == 1
    assert stack.balance(alice.player_id) == start[alice.player_id] - BUY_IN
    again = alice.call("RegisterTournament", alice.register(tid, "k1"))  # a retry: paid once
    assert again.tournament.entrants == 1
    assert stack.balance(alice.player_id) == start[alice.player_id] - BUY_IN
    bob.call("RegisterTournament", bob.register(tid, "k1"))  # the same client key: his own
    assert stack.summary(tid).entrants == 2
    assert stack.balance(bob.player_id) == start[bob.player_id] - BUY_IN
    standings = alice.call("GetTournament", gateway_pb2.GetTournamentRequest(tournament_id=tid))
    entrants = {s.player_id for s in standings.tournament.standings}
    assert entrants == {alice.player_id, bob.player_id}  # the tokens' players, nobody else

    gone = alice.call("UnregisterTournament", alice.unregister(tid, "u1"))
    assert gone.refund == BUY_IN and gone.tournament.entrants == 1
    repeat = alice.call("UnregisterTournament", alice.unregister(tid, "u1"))
    assert repeat.refund == 0 and repeat.tournament.entrants == 1  # a retry: refunded once
    eventually(lambda: stack.balance(alice.player_id) == start[alice.player_id], "alice's refund")
    time.sleep(1)  # the director pays each refund once: nothing more comes
    assert stack.balance(alice.player_id) == start[alice.player_id]
    assert stack.balance(bob.player_id) == start[bob.player_id] - BUY_IN
    stack.tools("Cancel", tpb.CancelRequest(tournament_id=tid, reason="test over"))
    eventually(lambda: stack.balance(bob.player_id) == start[bob.player_id], "bob's refund")


def test_refusals_have_their_status_and_change_nothing(stack: Stack) -> None:
    tid = stack.create(max_entrants=2, seats_per_table=2)
    alice, bob, carol = Player(stack, "alice"), Player(stack, "bob"), Player(stack, "carol")
    start = {p.player_id: stack.balance(p.player_id) for p in (alice, bob, carol)}

    def unchanged(entrants: int) -> None:
        assert {p.player_id: stack.balance(p.player_id) for p in (alice, bob, carol)} == start
        assert stack.summary(tid).entrants == entrants

    for method, request in (
        ("ListTournaments", gateway_pb2.ListTournamentsRequest()),
        ("GetTournament", gateway_pb2.GetTournamentRequest(tournament_id=tid)),
        ("RegisterTournament", alice.register(tid)),
        ("UnregisterTournament", alice.unregister(tid)),
        (
            "RebuyTournament",
            gateway_pb2.TournamentPurchaseRequest(tournament_id=tid, idempotency_key="b"),
        ),
    ):
        for token in ("", "garbage"):  # not signed in
            assert alice.refused(method, request, token).code() == S.UNAUTHENTICATED, method
    unchanged(0)
    unknown = alice.refused("RegisterTournament", alice.register("nosuchtournament"))
    assert unknown.code() == S.NOT_FOUND
    assert (
        alice.refused(
            "GetTournament", gateway_pb2.GetTournamentRequest(tournament_id="nosuchtournament")
        ).code()
        == S.NOT_FOUND
    )
    unchanged(0)
    not_registered = alice.refused("UnregisterTournament", alice.unregister(tid))
    assert not_registered.code() == S.NOT_FOUND
    unchanged(0)
    rich = stack.create(buy_in=start[carol.player_id] + 1)
    short = carol.refused("RegisterTournament", carol.register(rich))
    assert short.code() == S.FAILED_PRECONDITION  # too few chips in the wallet
    assert stack.summary(rich).entrants == 0
    unchanged(0)

    alice.call("RegisterTournament", alice.register(tid))
    twice = alice.refused("RegisterTournament", alice.register(tid))  # another key
    assert twice.code() == S.ALREADY_EXISTS
    start[alice.player_id] -= BUY_IN
    unchanged(1)
    bob.call("RegisterTournament", bob.register(tid))  # the field is full: it starts
    start[bob.player_id] -= BUY_IN
    eventually(lambda: stack.summary(tid).status == "running", "the start")
    after_start = alice.refused("UnregisterTournament", alice.unregister(tid))
    assert after_start.code() == S.FAILED_PRECONDITION
    late = carol.refused("RegisterTournament", carol.register(tid))
    assert late.code() == S.FAILED_PRECONDITION
    rebuy = gateway_pb2.TournamentPurchaseRequest(tournament_id=tid, idempotency_key="r")
    assert alice.refused("RebuyTournament", rebuy).code() == S.FAILED_PRECONDITION  # freezeout
    assert alice.refused("AddOnTournament", rebuy).code() == S.FAILED_PRECONDITION
    assert carol.refused("RebuyTournament", rebuy).code() in (S.FAILED_PRECONDITION, S.NOT_FOUND)
    unchanged(2)
    stack.tools("Cancel", tpb.CancelRequest(tournament_id=tid, reason="test over"))
    for p in (alice, bob):
        start[p.player_id] += BUY_IN
    eventually(  # the director closes the tables (a hand in play first), then refunds
        lambda: {p.player_id: stack.balance(p.player_id) for p in (alice, bob, carol)} == start,
        "the refunds",
        timeout=240,
    )


def test_holdem_tournaments_for_a_player(
    stack: Stack,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("HOLDEM_STACK_DIR", str(tmp_path / "no-stack"))
    tid = stack.create(name="cli")
    name = f"u{uuid.uuid4().hex[:10]}"
    password = "a long enough password"
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gateway_pb2_grpc.GatewayServiceStub(channel).Register(
            gateway_pb2.RegisterRequest(username=name, password=password), timeout=30
        )
    common = ["--gateway", stack.gateway.address, "--user", name, "--password", password]
    assert main(["tournaments", "list", "--status", "registering", *common]) == 0
    assert tid in capsys.readouterr().out
    assert main(["tournaments", "register", tid, *common]) == 0
    assert "registered" in capsys.readouterr().out
    assert main(["tournaments", "show", tid, "--json", *common]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["summary"]["entrants"] == 1 and len(shown["standings"]) == 1
    assert main(["tournaments", "register", tid, *common]) == 1  # registered already
    assert "ALREADY" in capsys.readouterr().err.upper()
    assert main(["tournaments", "unregister", tid, *common]) == 0
    assert f"{BUY_IN} chips back" in capsys.readouterr().out
    assert main(["tournaments", "unregister", tid, *common]) == 1  # not registered now
    assert main(["tournaments", "show", *common]) == 2  # no id


async def _play_table(client: GatewayClient, table_id: str) -> None:
    """Check or call at ``table_id`` whenever it is the player's turn, until the table closes
    (or the task is cancelled: the player moved or is out). A table not open yet, or a stream
    refused, is watched again a moment later."""
    acted = 0
    while True:
        try:
            async for update in client.watch(table_id):
                view = update.view
                if view.sequence < acted or not is_my_turn(view):
                    continue
                try:
                    if is_showdown_turn(view):
                        reply: Any = await client.show(table_id, hand_id=view.hand_id)
                    else:
                        check = view.legal_actions.can_check
                        action = (
                            common_pb2.ACTION_TYPE_CHECK if check else common_pb2.ACTION_TYPE_CALL
                        )
                        reply = await client.act(table_id, action, hand_id=view.hand_id)
                    acted = reply.sequence
                except GatewayError:
                    continue  # a stale view (the clock or the hand moved on): the next one tells
            return
        except GatewayError:
            await asyncio.sleep(0.2)


async def _follow(address: str, tid: str) -> tuple[list[gateway_pb2.TournamentUpdate], str]:
    """Register a player through the gateway, play their hands wherever WatchTournament says
    they sit, and collect the updates to the end."""
    updates: list[gateway_pb2.TournamentUpdate] = []
    async with GatewayClient(address) as client:
        await client.guest_login("watcher")
        await client.register_tournament(tid)
        table, playing = "", None
        try:
            async for update in client.watch_tournament(tid):
                updates.append(update)
                if update.me.table_id != table:
                    if playing is not None:
                        playing.cancel()
                    table = update.me.table_id
                    playing = asyncio.create_task(_play_table(client, table)) if table else None
        finally:
            if playing is not None:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError, GatewayError):
                    await playing
        return updates, client.player_id


def test_a_short_tournament_watched_through_the_gateway(stack: Stack) -> None:
    tid = stack.create(name="watched", max_entrants=4, seats_per_table=3, starting_stack=150)
    for i in range(3):
        bot = stack.lobby.register(bot=True).player_id
        level = (common_pb2.BOT_DIFFICULTY_EASY, common_pb2.BOT_DIFFICULTY_NORMAL)[i % 2]
        request = tpb.RegisterRequest(
            tournament_id=tid, player_id=bot, idempotency_key=f"b{i}", is_bot=True, bot_level=level
        )
        stack.tools("Register", request)
    began = time.monotonic()
    updates, me = asyncio.run(asyncio.wait_for(_follow(stack.gateway.address, tid), 400))
    seconds = time.monotonic() - began
    final = updates[-1]
    assert final.tournament.status == "finished", [u.tournament.status for u in updates]
    assert final.tournament.players_left == 0 and final.tournament.entrants == 4  # all placed
    assert final.tournament.prize_pool == 4 * BUY_IN
    assert final.me.registered and final.me.place >= 1
    running = [u for u in updates if u.tournament.status == "running"]
    assert running, "no update while it ran"
    assert all(u.tournament.HasField("clock") and u.tournament.clock.big_blind > 0 for u in running)
    assert all(u.me.table_id for u in running if not u.me.place)  # seated while in play
    assert all(u.tournament.average_stack > 0 and u.tournament.largest_stack > 0 for u in running)
    assert max(u.tournament.clock.level for u in running) >= 1
    assert running[0].tournament.players_left == 4
    left = [u.tournament.players_left for u in running]
    assert left == sorted(left, reverse=True)  # the field only shrinks
    # every change of table while in play came with where from
    seen = [u.me for u in updates if u.me.table_id]
    for before, after in itertools.pairwise(seen):
        if after.table_id != before.table_id:
            assert after.moved_from_table_id == before.table_id
    standings = stack.tools("GetTournament", tpb.GetTournamentRequest(tournament_id=tid))
    mine = next(s for s in standings.tournament.standings if s.player_id == me)
    assert (mine.place, mine.prize) == (final.me.place, final.me.prize)
    moves = sum(1 for u in updates if u.me.moved_from_table_id)
    print(f"watched: {len(updates)} updates, {moves} moves of the player, {seconds:.1f} s")


def test_a_rebuy_through_the_gateway_pays_once_and_a_cancellation_refunds_it(
    stack: Stack,
) -> None:
    # any stack may rebuy (hands are being played meanwhile), once
    rule = tpb.RebuyRule(chips=300, cost=50, last_level=3, max_rebuys=1, threshold=100_000)
    tid = stack.create(name="rebuys", max_entrants=2, seats_per_table=2, rebuy=rule)
    alice = Player(stack, "alice")
    before = stack.balance(alice.player_id)
    bot = stack.lobby.register(bot=True).player_id
    early = gateway_pb2.TournamentPurchaseRequest(tournament_id=tid, idempotency_key="early")
    alice.call("RegisterTournament", alice.register(tid))
    assert alice.refused("RebuyTournament", early).code() == S.FAILED_PRECONDITION  # not started
    assert stack.balance(alice.player_id) == before - BUY_IN
    register_bot = tpb.RegisterRequest(
        tournament_id=tid,
        player_id=bot,
        idempotency_key="bot",
        is_bot=True,
        bot_level=common_pb2.BOT_DIFFICULTY_EASY,
    )
    stack.tools("Register", register_bot)
    eventually(lambda: stack.summary(tid).status == "running", "the start")
    buy = gateway_pb2.TournamentPurchaseRequest(tournament_id=tid, idempotency_key="r1")
    bought = alice.call("RebuyTournament", buy)
    assert (bought.chips, bought.cost) == (300, 50) and bought.stack >= 300
    assert alice.call("RebuyTournament", buy).cost == 50  # a retry: bought once
    assert stack.balance(alice.player_id) == before - BUY_IN - 50
    above = gateway_pb2.TournamentPurchaseRequest(tournament_id=tid, idempotency_key="r2")
    assert alice.refused("RebuyTournament", above).code() == S.FAILED_PRECONDITION  # one each
    assert alice.refused("AddOnTournament", above).code() == S.FAILED_PRECONDITION  # none sold
    summary = stack.summary(tid)
    assert summary.prize_pool == 2 * BUY_IN + 50 and summary.chips_in_play == 2 * 200 + 300
    assert stack.balance(alice.player_id) == before - BUY_IN - 50
    stack.tools("Cancel", tpb.CancelRequest(tournament_id=tid, reason="test over"))
    eventually(  # everything alice paid comes back, once
        lambda: stack.balance(alice.player_id) == before, "the refund", timeout=240
    )
    time.sleep(1)
    assert stack.balance(alice.player_id) == before
