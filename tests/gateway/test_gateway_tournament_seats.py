"""Tournament seats through the gateway, with real processes (nats-server, redis-server, the table,
lobby, tournament and gateway services; tests/gateway/tournament_stack.py):

- four players on two tables of two, each shoving every hand: when a table breaks its player is
  moved, their WatchTournament stream says from where to where, and their table stream, opened
  on the new table, shows them seated there;
- an away player (sat out through the gateway) keeps their seat: dealt into every hand, posting
  their blinds, folded for at once (never on the clock); they sit in and act again; a
  tournament table refuses their cash-table calls (a top-up, leaving with a cash-out) and
  changes nothing; and the tournament finishes with them placed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from dataclasses import dataclass, field

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.client import GatewayClient, GatewayError
from libs.client.view import is_my_turn, is_showdown_turn
from tests.gateway.tournament_stack import BUY_IN, Stack, stack

__all__ = ["stack"]  # fixture

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@dataclass
class Seen:
    """What one player saw: their tournament updates, and each table whose stream showed them
    seated there."""

    updates: list[gateway_pb2.TournamentUpdate] = field(default_factory=list)
    seated_at: set[str] = field(default_factory=set)


async def _shove(client: GatewayClient, table_id: str, seen: Seen) -> None:
    """Watch ``table_id`` (again while it is not open or the stream is refused) and go all in
    whenever it is the player's turn, until the table closes or the task is cancelled."""
    acted = 0
    while True:
        try:
            async for update in client.watch(table_id):
                view = update.view
                if view.HasField("viewer_seat"):
                    seen.seated_at.add(table_id)
                if view.sequence < acted or not is_my_turn(view):
                    continue
                try:
                    if is_showdown_turn(view):
                        reply = await client.show(table_id, hand_id=view.hand_id)
                        acted = reply.sequence
                        continue
                    shove = common_pb2.ACTION_TYPE_ALL_IN
                    acted = (await client.act(table_id, shove, hand_id=view.hand_id)).sequence
                except GatewayError:
                    continue  # a stale view: the next one tells
            return
        except GatewayError:
            await asyncio.sleep(0.2)


async def _player(address: str, tid: str, name: str) -> Seen:
    """A player registered through the gateway, following WatchTournament from table to table."""
    seen = Seen()
    async with GatewayClient(address) as client:
        await client.guest_login(name)
        await client.register_tournament(tid)
        table, playing = "", None
        try:
            async for update in client.watch_tournament(tid):
                seen.updates.append(update)
                if update.me.table_id != table:
                    if playing is not None:
                        playing.cancel()
                    table = update.me.table_id
                    playing = asyncio.create_task(_shove(client, table, seen)) if table else None
        finally:
            if playing is not None:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError, GatewayError):
                    await playing
    return seen


def test_a_moved_player_is_told_where_and_their_table_stream_follows(stack: Stack) -> None:
    tid = stack.create(name="moves", max_entrants=4, seats_per_table=2, starting_stack=100)

    async def everyone() -> list[Seen]:
        names = [f"mover{i}" for i in range(4)]
        return list(await asyncio.gather(*(_player(stack.gateway.address, tid, n) for n in names)))

    players = asyncio.run(asyncio.wait_for(everyone(), 400))
    finals = [p.updates[-1] for p in players]
    assert {f.tournament.status for f in finals} == {"finished"}
    assert sorted(f.me.place for f in finals) == [1, 2, 3, 4]
    assert sum(f.me.prize for f in finals) == 4 * BUY_IN
    moves = 0
    for player in players:
        tables = [u.me for u in player.updates if u.me.table_id]
        for before, after in itertools.pairwise(tables):
            if after.table_id == before.table_id:
                continue
            moves += 1
            assert after.moved_from_table_id == before.table_id  # told from where
            assert after.table_id in player.seated_at  # and their table stream followed
    # two tables of two: after a bust at each, one table breaks and its player moves
    assert moves >= 1, [[u.me.table_id for u in p.updates] for p in players]


async def _seated(client: GatewayClient, table: str) -> None:
    """Until the table seats the player (the tournament's books name the table first; the
    director opens it and seats them a moment later)."""
    while True:
        try:
            async for update in client.watch(table):
                if update.view.HasField("viewer_seat"):
                    return
        except GatewayError:
            await asyncio.sleep(0.2)  # not open yet


async def _away(stack: Stack, tid: str) -> tuple[gateway_pb2.TournamentUpdate, dict[str, int]]:
    """Sit out once seated; watch two hands dealt without a turn; try the cash-table calls; sit
    in and act once; sit out again and wait for the end."""
    facts: dict[str, int] = {}
    async with GatewayClient(stack.gateway.address) as client:
        await client.guest_login("away")
        await client.register_tournament(tid)
        table = ""
        async for news in client.watch_tournament(tid):
            table = news.me.table_id
            if table:
                break
        facts["wallet"] = int((await client.wallet()).balance)
        await _seated(client, table)
        await client.sit_out(table)
        dealt: set[int] = set()
        turns = 0
        async for update in client.watch(table):
            view = update.view
            turns += is_my_turn(view)
            mine = [s for s in view.seats if s.player_id == client.player_id]
            if mine and mine[0].hole_card_count and view.hand_number:
                dealt.add(view.hand_number)
            if len(dealt) >= 2 or (view.seats and not mine):
                break
        facts["dealt_away"], facts["turns_away"] = len(dealt), turns
        for call in (client.top_up(table, 50), client.leave_table(table)):
            with pytest.raises(GatewayError) as refused:
                await call
            facts.setdefault("refusals", 0)
            facts["refusals"] += refused.value.status is not grpc.StatusCode.OK
        facts["wallet_after"] = int((await client.wallet()).balance)
        if len(dealt) >= 2:  # still in: come back and act once
            await client.sit_in(table)
            async for update in client.watch(table):
                view = update.view
                if view.seats and not any(s.player_id == client.player_id for s in view.seats):
                    break  # busted meanwhile
                if is_my_turn(view) and not is_showdown_turn(view):
                    fold = common_pb2.ACTION_TYPE_FOLD
                    check = view.legal_actions.can_check
                    action = common_pb2.ACTION_TYPE_CHECK if check else fold
                    with contextlib.suppress(GatewayError):
                        await client.act(table, action, hand_id=view.hand_id)
                        facts["acted"] = 1
                        break
            with contextlib.suppress(GatewayError):
                await client.sit_out(table)
        final = None
        async for news in client.watch_tournament(tid):
            final = news
        assert final is not None
        return final, facts


def test_an_away_player_is_blinded_off_keeps_their_seat_and_comes_back(stack: Stack) -> None:
    tid = stack.create(name="away", max_entrants=3, seats_per_table=3, starting_stack=400)
    for i in range(2):
        bot = stack.lobby.register(bot=True).player_id
        request = tpb.RegisterRequest(
            tournament_id=tid,
            player_id=bot,
            idempotency_key=f"b{i}",
            is_bot=True,
            bot_level=common_pb2.BOT_DIFFICULTY_EASY,
        )
        stack.tools("Register", request)
    final, facts = asyncio.run(asyncio.wait_for(_away(stack, tid), 400))
    assert facts["turns_away"] == 0, facts  # never on the clock while away
    assert facts["refusals"] == 2 and facts["wallet_after"] == facts["wallet"]
    assert facts["dealt_away"] >= 2  # dealt in (their blinds posted) while away
    assert facts.get("acted") == 1  # back in, they acted
    assert final.tournament.status == "finished" and final.me.place >= 1
    assert final.tournament.prize_pool == 3 * BUY_IN
