"""Playing through the gateway, for the tests that do: watchers of WatchTable (``Watch``,
``follow``, resumable), a driver that plays every kind of call until the table closes
(``drive``), the privacy check of what a watcher got, and the table's own stream as the truth
to check against."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
import nats
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2

from libs.devstack.tablestub import aio_table_as
from libs.eventstore.jetstream import JetStreamEventStore
from libs.poker.cards import DECK
from libs.poker.events import HandShown
from libs.table.events import Event, HandBegan
from libs.tableproto.envelope import decode_commit
from tests.gateway.stack import GatewayStack, bearer

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
            if view.HasField("showdown"):  # a showdown turn: asked only for a beaten hand
                used["asked"] = used.get("asked", 0) + 1
                request = gateway_pb2.MuckRequest(
                    table_id=table_id, hand_id=view.hand_id, idempotency_key=key
                )
                try:
                    if used.get("show") and rng.random() < 0.5:  # shows the first time
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
