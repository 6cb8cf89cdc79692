"""People play through the gateway, with real processes (nats-server, redis-server, table, lobby,
gateway): every action, showdown choices, sitting out and in, Act retries, a watcher that drops
and resumes mid-hand with from_sequence, hand histories, chips conserved, and every message the
gateway sends each watcher checked for cards that watcher may not see."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
import nats
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2
from pokerkit.notation import HandHistory as PokerKitHistory

from libs.devstack.tablestub import aio_table_as
from libs.eventstore.jetstream import JetStreamEventStore
from libs.poker.cards import DECK
from libs.poker.events import HandShown, HoleCardsDealt
from libs.poker.phh import replay_text
from libs.table.events import Event, HandBegan, PlayerSeated, TableClosed
from libs.tableproto.envelope import decode_commit
from tests.gateway.stack import CONFIG, GatewayStack, bearer, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

PLAYERS = ("ann", "ben", "cat")
BUY_IN = 200
HANDS = 8
A = common_pb2


@dataclass
class Watch:
    """Everything one WatchTable stream (or its resumptions) delivered."""

    player: str
    updates: list[gateway_pb2.TableUpdate] = field(default_factory=list)
    resumed_from: int = 0


def card_text(card: common_pb2.Card) -> str:
    return str(DECK[(card.rank - 2) * 4 + (card.suit - 1)])


async def follow(
    gw: gateway_pb2_grpc.GatewayServiceAsyncStub,
    token: str,
    table_id: str,
    watch: Watch,
    until: asyncio.Event,
    from_sequence: int = 0,
    stop_after: int = 0,
) -> int:
    """Read one stream until ``until`` is set and the stream is idle, or it ends (its table
    closed), or ``stop_after`` updates; the last sequence seen."""
    last = from_sequence
    call: Any = gw.WatchTable(
        gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=from_sequence),
        metadata=bearer(token),
    )
    count = 0
    try:
        while True:
            try:
                update = await asyncio.wait_for(call.read(), 1.0 if until.is_set() else 30.0)
            except TimeoutError:
                if until.is_set():
                    return last
                raise
            if update is grpc.aio.EOF:  # the gateway ends a stream once its table has closed
                closed = watch.updates[-1].view.table_status if watch.updates else None
                assert closed == common_pb2.TABLE_STATUS_CLOSED, "a stream ended early"
                return last
            watch.updates.append(update)
            last = int(update.sequence)
            count += 1
            if stop_after and count >= stop_after:
                return last
    finally:
        call.cancel()


def choose(
    view: common_pb2.PlayerView, rng: random.Random, all_in: bool = False
) -> tuple[int, int]:
    legal = view.legal_actions
    options: list[tuple[int, int]] = [(A.ACTION_TYPE_FOLD, 0)] if legal.can_fold else []
    if legal.can_check:
        options += [(A.ACTION_TYPE_CHECK, 0)] * 3
    if legal.can_call:
        options += [(A.ACTION_TYPE_CALL, 0)] * 3
    if legal.can_bet_or_raise:
        kind = A.ACTION_TYPE_RAISE if any(s.committed for s in view.seats) else A.ACTION_TYPE_BET
        if view.street != A.STREET_PREFLOP and not any(s.committed for s in view.seats):
            kind = A.ACTION_TYPE_BET
        options += [(kind, legal.min_raise_to)]
    if all_in:
        options = [(A.ACTION_TYPE_ALL_IN, 0)]
    return rng.choice(options)


async def drive(
    stack: GatewayStack,
    table_id: str,
    tokens: dict[str, str],
    answers: dict[str, Watch] | None = None,
) -> dict[str, int]:
    """Play until the table closes (its hand limit); what each kind of call was used.
    ``answers``: each player's Act, Show and Muck answers, as updates, for the privacy check."""
    answers = answers if answers is not None else {}

    def keep(player: str, view: common_pb2.PlayerView) -> None:
        answers.setdefault(player, Watch(player)).updates.append(
            gateway_pb2.TableUpdate(sequence=view.sequence, view=view)
        )

    rng = random.Random(11)
    used: dict[str, int] = {}
    async with (
        grpc.aio.insecure_channel(stack.gateway.address) as gch,
        aio_table_as(stack.table.address) as table,
    ):
        gw = gateway_pb2_grpc.GatewayServiceStub(gch)
        sat_out = False
        for _ in range(5000):
            spectator = (
                await table.GetPlayerView(table_pb2.GetPlayerViewRequest(table_id=table_id))
            ).view
            if spectator.table_status == A.TABLE_STATUS_CLOSED:
                return used
            playing = [s for s in spectator.seats if s.stack > 0 or s.committed > 0]
            if len(playing) < 2 and not spectator.HasField("acting_seat"):  # one player left
                try:
                    await table.SubmitCommand(
                        table_pb2.SubmitCommandRequest(
                            table_id=table_id,
                            idempotency_key="close",
                            close_table=table_pb2.CloseTable(),
                        )
                    )
                except grpc.aio.AioRpcError as error:
                    # the last hand's end (its runout, the showdown) is still being driven:
                    # an action is answered at its own commit, before what it makes due
                    if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    await asyncio.sleep(0.01)
                continue
            if spectator.hand_number == 2 and not sat_out and spectator.HasField("acting_seat"):
                await gw.SitOut(
                    gateway_pb2.SitOutRequest(table_id=table_id), metadata=bearer(tokens["cat"])
                )
                sat_out = True
                used["sit_out"] = 1
            if spectator.hand_number >= 3 and sat_out and "sit_in" not in used:
                await gw.SitIn(
                    gateway_pb2.SitInRequest(table_id=table_id), metadata=bearer(tokens["cat"])
                )
                used["sit_in"] = 1
            if not spectator.HasField("acting_seat"):
                await asyncio.sleep(0.01)  # the table is dealing or between hands
                continue
            seat = next(s for s in spectator.seats if s.seat == spectator.acting_seat)
            player = seat.player_id
            view = (
                await table.GetPlayerView(
                    table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player)
                )
            ).view
            if not view.HasField("acting_seat") or view.acting_seat != seat.seat:
                continue
            key = uuid.uuid4().hex
            if not view.HasField("legal_actions"):  # a showdown turn
                request = gateway_pb2.MuckRequest(
                    table_id=table_id, hand_id=view.hand_id, idempotency_key=key
                )
                try:
                    if rng.random() < 0.5:
                        mucked = await gw.Muck(request, metadata=bearer(tokens[player]))
                        assert mucked.view.viewer_player_id == player
                        keep(player, mucked.view)
                        used["muck"] = used.get("muck", 0) + 1
                        continue
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION
                shown = await gw.Show(
                    gateway_pb2.ShowRequest(
                        table_id=table_id, hand_id=view.hand_id, idempotency_key=key
                    ),
                    metadata=bearer(tokens[player]),
                )
                assert shown.view.viewer_player_id == player
                keep(player, shown.view)
                used["show"] = used.get("show", 0) + 1
                continue
            shove = view.hand_number >= 5 and "ACTION_TYPE_ALL_IN" not in used
            action, amount = choose(view, rng, shove)
            act = gateway_pb2.ActRequest(
                table_id=table_id,
                hand_id=view.hand_id,
                action=action,  # type: ignore[arg-type]
                amount=amount,
                idempotency_key=key,
            )
            first = await gw.Act(act, metadata=bearer(tokens[player]))
            keep(player, first.view)
            name = common_pb2.ActionType.Name(action)  # type: ignore[arg-type]
            used[name] = used.get(name, 0) + 1
            assert first.view.viewer_player_id == player
            if rng.random() < 0.2:  # a retry: applied once, answered with the first outcome
                again = await gw.Act(act, metadata=bearer(tokens[player]))
                assert again.sequence == first.sequence
                used["retry"] = used.get("retry", 0) + 1
    raise AssertionError(f"the table never closed: {used} {spectator}")


def check_privacy(watch: Watch, shown: dict[str, dict[int, list[str]]]) -> None:
    """No update shows ``watch.player`` a hole card of another seat that was not shown."""
    for update in watch.updates:
        views = [update.view] if update.HasField("view") else []
        if update.HasField("snapshot"):
            views.append(update.snapshot)
        for view in views:
            for seat in view.seats:
                if not seat.hole_cards or seat.player_id == watch.player:
                    continue
                cards = sorted(card_text(c) for c in seat.hole_cards)
                assert cards == sorted(shown.get(view.hand_id, {}).get(seat.seat, [])), (
                    watch.player,
                    seat.player_id,
                )
        for recorded in update.commit.recorded:
            data = json.loads(recorded.data)
            if recorded.type == "HoleCardsDealt":
                assert data["cards"] == [], watch.player
            if recorded.type == "StreetDealt":
                assert data.get("burn") is None


Shown = dict[str, dict[int, list[str]]]


async def truth(nats_url: str, table_id: str) -> tuple[list[int], Shown, list[Event]]:
    """The table's stream: commit sequences, cards shown per hand (by seat), and its events."""
    nc = await nats.connect(nats_url)
    try:
        commits = await JetStreamEventStore(nc).read(table_id)
    finally:
        await nc.close()
    sequences = [c.sequence for c in commits]
    shown: dict[str, dict[int, list[str]]] = {}
    events: list[Event] = []
    hand, seats = "", cast(tuple[int, ...], ())
    for commit in commits:
        _, decoded = decode_commit(commit.data)
        for event in decoded:
            events.append(event)
            if isinstance(event, HandBegan):
                hand, seats = event.hand_id, event.seats
            elif isinstance(event, HandShown):
                shown.setdefault(hand, {})[seats[event.player]] = [str(c) for c in event.cards]
    return sequences, shown, events


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
    for name in ("ACTION_TYPE_FOLD", "ACTION_TYPE_CHECK", "ACTION_TYPE_CALL", "retry", "show"):
        assert used.get(name), (name, used)
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
