"""People play through the gateway, with real processes (nats-server, redis-server, table, lobby,
gateway): every action, showdown choices, sitting out and in, Act retries, a watcher that drops
and resumes mid-hand with from_sequence, hand histories, chips conserved, and every message the
gateway sends each watcher checked for cards that watcher may not see."""

from __future__ import annotations

import asyncio
from typing import cast

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from pokerkit.notation import HandHistory as PokerKitHistory

from libs.poker.events import HoleCardsDealt
from libs.poker.phh import replay_text
from libs.table.events import HandBegan, PlayerSeated, TableClosed
from tests.gateway.play import BUY_IN, HANDS, PLAYERS, Watch, check_privacy, drive, follow, truth
from tests.gateway.stack import CONFIG, GatewayStack, bearer, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]


def test_people_play_hands_through_the_gateway(gateway_stack: GatewayStack) -> None:
    stack = gateway_stack
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.hand_limit = HANDS
    config.min_players_to_start = 2
    table_id = stack.open_table(config)
    tokens = {p: stack.token(p) for p in PLAYERS}
    for player in PLAYERS:
        stack.seat(table_id, player, BUY_IN)

    answers: dict[str, Watch] = {}

    async def run() -> tuple[dict[str, Watch], Watch, dict[str, int], int]:
        done = asyncio.Event()
        watches = {p: Watch(p) for p in PLAYERS}
        spectator = Watch("someone")
        async with grpc.aio.insecure_channel(stack.gateway.address) as channel:
            gw = gateway_pb2_grpc.GatewayServiceStub(channel)

            async def resuming(watch: Watch) -> int:
                """Drops after 25 updates (mid-hand), then resumes where it was."""
                last = await follow(gw, tokens[watch.player], table_id, watch, done, stop_after=25)
                watch.resumed_from = last
                return await follow(gw, tokens[watch.player], table_id, watch, done, last)

            tasks = [
                asyncio.create_task(resuming(watches["ann"])),
                asyncio.create_task(follow(gw, tokens["ben"], table_id, watches["ben"], done)),
                asyncio.create_task(follow(gw, tokens["cat"], table_id, watches["cat"], done)),
                asyncio.create_task(follow(gw, stack.token("someone"), table_id, spectator, done)),
            ]
            await asyncio.sleep(0)
            used = await drive(stack, table_id, tokens, answers)
            done.set()
            lasts = await asyncio.gather(*tasks)
        return watches, spectator, used, min(lasts)

    watches, spectator, used, _ = asyncio.run(run())
    sequences, shown, events = asyncio.run(truth(stack.nats_url, table_id))

    # every action was used, through the gateway
    for name in ("ACTION_TYPE_FOLD", "ACTION_TYPE_CHECK", "ACTION_TYPE_CALL", "retry"):
        assert used.get(name), (name, used)
    # a player is asked at showdown only with a beaten hand (the cards decide whether one was);
    # the first time, they show
    assert bool(used.get("asked")) == bool(used.get("show")), used
    assert used.get("ACTION_TYPE_BET") or used.get("ACTION_TYPE_RAISE"), used
    assert used.get("sit_out") and used.get("sit_in"), used

    # chips: what the table closed with is exactly what was bought in
    closed = [e for e in events if isinstance(e, TableClosed)]
    assert len(closed) == 1
    assert sum(stack_ for _, _, stack_ in closed[0].stacks) == BUY_IN * len(PLAYERS)
    assert {e.player_id for e in events if isinstance(e, PlayerSeated)} == set(PLAYERS)

    # every stream: a snapshot, then exactly the table's commits after it, in order, once each
    for watch in (*watches.values(), spectator):
        first = watch.updates[0]
        assert first.HasField("snapshot")
        commits = [u.sequence for u in watch.updates if u.HasField("commit")]
        expected = [s for s in sequences if first.sequence < s <= commits[-1]]
        assert commits == expected, watch.player
        for before, update in zip(watch.updates, watch.updates[1:], strict=False):
            if update.HasField("commit"):
                assert update.previous == before.sequence, watch.player
        check_privacy(watch, shown)
        assert any(u.view.HasField("legal_actions") for u in watch.updates) == (
            watch.player in PLAYERS
        )
    for answered in answers.values():  # what Act, Show and Muck answered each player
        check_privacy(answered, shown)
    assert set(answers) == set(PLAYERS)
    ann = watches["ann"]
    assert ann.resumed_from and ann.resumed_from in [u.sequence for u in ann.updates]
    # a player's own hole cards reach them
    dealt = [e for e in events if isinstance(e, HoleCardsDealt)]
    assert dealt
    for watch in watches.values():
        own = [
            s
            for u in watch.updates
            for s in u.view.seats
            if s.player_id == watch.player and s.hole_cards
        ]
        assert own, watch.player

    # hand histories: the player's own hands, PHH that replays, text PokerKit parses, no secrets
    async def histories() -> dict[str, list[gateway_pb2.HandRecord]]:
        async with grpc.aio.insecure_channel(stack.gateway.address) as channel:
            gw = gateway_pb2_grpc.GatewayServiceStub(channel)
            out = {}
            for player in PLAYERS:
                response = await gw.GetHandHistory(
                    gateway_pb2.GetHandHistoryRequest(table_id=table_id, limit=100),
                    metadata=bearer(tokens[player]),
                )
                out[player] = list(response.hands)
            return out

    records = asyncio.run(histories())
    hole: dict[str, dict[int, str]] = {}
    hand_id, seats = "", cast(tuple[int, ...], ())
    for event in events:
        if isinstance(event, HandBegan):
            hand_id, seats = event.hand_id, event.seats
        elif isinstance(event, HoleCardsDealt):
            hole.setdefault(hand_id, {})[seats[event.player]] = "".join(str(c) for c in event.cards)
    for player, hands in records.items():
        assert hands, player
        my_seat = PLAYERS.index(player)
        for record in hands:
            assert replay_text(record.phh).status == "matched", record.phh
            parsed = PokerKitHistory.from_pokerstars(record.pokerstars, error_status=True)
            assert len(list(parsed)) == 1
            for seat, cards in hole.get(record.hand_id, {}).items():
                if seat == my_seat or seat in shown.get(record.hand_id, {}):
                    continue
                spaced = " ".join(cards[i : i + 2] for i in range(0, len(cards), 2))
                assert cards not in record.phh and spaced not in record.pokerstars

    # pages: one hand each, by next_page_token, back to the oldest; one hand by its id; a token
    # the gateway never gave is refused
    async def pages(player: str) -> tuple[list[str], list[str], grpc.StatusCode | None]:
        async with grpc.aio.insecure_channel(stack.gateway.address) as channel:
            gw = gateway_pb2_grpc.GatewayServiceStub(channel)
            auth = bearer(tokens[player])
            walked, token = [], ""
            while True:
                page = await gw.GetHandHistory(
                    gateway_pb2.GetHandHistoryRequest(table_id=table_id, limit=1, page_token=token),
                    metadata=auth,
                )
                assert len(page.hands) == 1 and page.hands[0].table_id == table_id
                walked.append(page.hands[0].hand_id)
                token = page.next_page_token
                if not token:
                    break
            oldest = await gw.GetHandHistory(
                gateway_pb2.GetHandHistoryRequest(table_id=table_id, hand_id=walked[-1]),
                metadata=auth,
            )
            try:
                await gw.GetHandHistory(
                    gateway_pb2.GetHandHistoryRequest(table_id=table_id, page_token="not-a-page"),
                    metadata=auth,
                )
                refused = None
            except grpc.aio.AioRpcError as exc:
                refused = exc.code()
            return walked, [h.hand_id for h in oldest.hands], refused

    walked, oldest, refused = asyncio.run(pages("ann"))
    assert walked == [r.hand_id for r in records["ann"]]
    assert oldest == walked[-1:]
    assert refused == grpc.StatusCode.INVALID_ARGUMENT

    async def decks(player: str) -> list[gateway_pb2.Deck]:
        """Every finished hand's deck, walked page by page as a client would."""
        async with grpc.aio.insecure_channel(stack.gateway.address) as channel:
            gw = gateway_pb2_grpc.GatewayServiceStub(channel)
            found: list[gateway_pb2.Deck] = []
            token = ""
            while True:
                page = await gw.GetDecks(
                    gateway_pb2.GetDecksRequest(table_id=table_id, limit=2, page_token=token),
                    metadata=bearer(tokens[player]),
                )
                found.extend(page.decks)
                token = page.next_page_token
                if not token:
                    return found

    # the table's decks: a commitment for every hand, no seed before its disclosure time (the
    # stack's default: a day after the hand)
    listed = asyncio.run(decks("ann"))
    assert {d.hand_id for d in listed} >= set(walked)
    assert all(len(d.commitment) == 64 and not d.seed for d in listed)
    assert all(d.disclosed_at.seconds - d.ended_at.seconds == 86400 for d in listed)
