"""Bot seats in the table service (services/table/bots.py), in-process with stand-in deciders:
the decider gets the acting bot's view at its seat's level; no answer in time, a failure or an
illegal answer becomes the clock rule (check, else fold), counted; and a table of bots played
through ``TableApp`` conserves chips with the views carrying the hand's public history."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from holdem.common.v1 import common_pb2

from libs.ai import Decision, Level, SeatView
from libs.aiproto.requests import TableContext
from libs.eventstore import InMemoryEventStore, InMemorySnapshotStore
from libs.poker.cards import DECK
from libs.poker.commands import DealHoleCards
from libs.poker.config import BettingStructure, Variant
from libs.poker.errors import IllegalAction
from libs.poker.events import ActionKind
from libs.poker.history import Move
from libs.table import BotDifficulty, TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from services.table.app import TableApp
from services.table.bots import AiUnavailable, Bots, LocalDecider
from services.table.dealing import LocalDealer
from services.table.views import player_view


def _bot_to_act(
    levels: tuple[BotDifficulty | None, ...] = (None, BotDifficulty.HARD),
) -> TableState:
    """Two bots dealt in, the first to act preflop."""
    state = TableState()
    commands: list[tc.TableCommand] = [
        tc.OpenTable("t", TableConfig(seats=4), 0.0),
        *(
            tc.SitDown(f"bot{i}", i, 100, is_bot=True, bot_difficulty=level)
            for i, level in enumerate(levels)
        ),
        tc.StartHand("1", "commitment", 1.0),
        *(tc.Deal((DealHoleCards(p, (DECK[2 * p], DECK[2 * p + 1])),)) for p in range(2)),
    ]
    for command in commands:
        state, _ = step_table(state, command)
    return state


class Recording:
    def __init__(self, answer: Decision | Exception | None = None, delay: float = 0.0) -> None:
        self.answer = answer
        self.delay = delay
        self.calls: list[tuple[SeatView, Level, TableContext]] = []

    async def decide(
        self, view: SeatView, level: Level, context: TableContext, timeout: float
    ) -> Decision:
        self.calls.append((view, level, context))
        await asyncio.sleep(self.delay)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer or Decision(ActionKind.CALL)


def _actor(state: TableState) -> tuple[str, int]:
    seat = state.acting_seat()
    assert seat is not None and state.hand is not None and state.hand.actor is not None
    return state.seats[seat].player_id, state.hand.actor


def test_the_decider_gets_the_seats_view_and_level_and_its_answer_is_played() -> None:
    state = _bot_to_act()
    player, position = _actor(state)
    decider = Recording(Decision(ActionKind.RAISE, 6))
    bots = Bots(decider, timeout=1.0)
    act = asyncio.run(bots.act("t", state, player))
    assert (act.player_id, act.action, act.amount, act.hand_id) == (
        player,
        PlayerAction.RAISE,
        6,
        "1",
    )
    ((view, level, context),) = decider.calls
    assert state.hand is not None
    assert view.me == position and view.hole == state.hand.hole[position]
    expected = state.seats[state.hand_seats[position]].bot_difficulty
    assert level.value == (expected or BotDifficulty.NORMAL).value
    assert context.seats == state.hand_seats and context.hand_id == "1"
    assert [a.move for a in view.actions] == [Move.BLIND, Move.BLIND]
    assert bots.fallbacks == 0 and bots.decisions == 1


@pytest.mark.parametrize(
    "decider",
    [
        Recording(AiUnavailable("UNAVAILABLE: connection refused")),
        Recording(RuntimeError("a bug")),
        Recording(Decision(ActionKind.CHECK)),  # not allowed: there is a bet to call
        Recording(Decision(ActionKind.RAISE, 10_000)),  # above the stack
        Recording(Decision(ActionKind.CALL), delay=1.0),  # too late
    ],
    ids=["unavailable", "failure", "illegal-check", "illegal-amount", "late"],
)
def test_no_legal_answer_in_time_is_the_clock_rule(decider: Recording) -> None:
    state = _bot_to_act()
    player, _ = _actor(state)
    bots = Bots(decider, timeout=0.05)
    act = asyncio.run(bots.act("t", state, player))
    assert act.action is PlayerAction.FOLD  # facing the big blind: no free check
    assert bots.fallbacks == 1


def test_the_clock_rule_checks_when_checking_is_free() -> None:
    state = _bot_to_act()
    player, _ = _actor(state)  # heads-up the small blind acts first: it calls
    state, _ = step_table(state, tc.Act(player, PlayerAction.CALL))
    player, _ = _actor(state)
    act = asyncio.run(Bots(Recording(AiUnavailable("down")), timeout=0.05).act("t", state, player))
    assert act.action is PlayerAction.CHECK


async def play_out(app: TableApp, table_id: str, reason: str) -> None:
    """Drive ``table_id`` until it has closed: by its hand limit, or here, with ``reason``, once
    it stands open with nothing due and nothing driving it (bots went broke: no hand can start).
    A drive that commits nothing proves little while the background driver plays on (it took
    the steps, and may close the table by its limit meanwhile: a CloseTable sent then was
    refused TABLE_CLOSED), so the table is settled first and looked at again."""
    while not (await app.state(table_id)).closed:
        if await app.drive(table_id) > 0:
            continue
        if app.driver.driving(table_id):  # the background driver plays on: let it
            await asyncio.sleep(0.01)
            continue
        if not (await app.state(table_id)).closed:  # settled, open, and nothing is due
            await app.execute(table_id, tc.CloseTable(reason), "close")


def test_a_table_of_bots_at_every_level_plays_in_process() -> None:
    asyncio.run(_a_table_of_bots())


async def _a_table_of_bots() -> None:
    app = TableApp(
        InMemoryEventStore(),
        InMemorySnapshotStore(),
        LocalDealer(),
        bots=Bots(LocalDecider(), timeout=5.0),  # no fallback on a loaded machine,
    )
    config = TableConfig(seats=3, hand_limit=6, min_players_to_start=3, max_buy_in=10_000)
    await app.execute("b", tc.OpenTable("b", config, 0.0), "open")
    for i, level in enumerate(BotDifficulty):
        command = tc.SitDown(f"bot{i}", i, 10_000, is_bot=True, bot_difficulty=level)
        await app.execute("b", command, f"seat-{i}")
    await play_out(app, "b", "a bot is broke")
    state = await app.state("b")
    assert state.hands_started >= 1 and app.ai_fallbacks == 0
    assert state.total_chips() == 0  # every stack went back with the closing (TableClosed)
    await app.stop()


def test_views_carry_the_public_history_of_the_hand() -> None:
    state = _bot_to_act()
    player, _ = _actor(state)
    state, _ = step_table(state, tc.Act(player, PlayerAction.RAISE, 6))
    view = player_view("t", state, 9, "bot0")
    assert [(a.seat, a.kind, a.amount, a.to) for a in view.actions] == [
        (state.hand_seats[0], common_pb2.PUBLIC_ACTION_KIND_BLIND, 2, 2),
        (state.hand_seats[1], common_pb2.PUBLIC_ACTION_KIND_BLIND, 1, 1),
        (state.seat_of(player), common_pb2.PUBLIC_ACTION_KIND_RAISE, 5, 6),
    ]


class WireRoundTrip:
    """Builds the very request the table sends, reads it back as the ai service does (which
    refuses anything inconsistent) and plays a random legal action from what it read."""

    def __init__(self) -> None:
        self.requests = 0

    async def decide(
        self, view: SeatView, level: Level, context: TableContext, timeout: float
    ) -> Decision:
        from libs.ai import decide
        from libs.aiproto.reading import read_request
        from libs.aiproto.requests import decide_request

        checked = read_request(decide_request(view, level, 1, 500, context))
        self.requests += 1
        assert checked.view.hole == view.hole and checked.view.options == view.options
        return decide(checked.view, Level.RANDOM, self.requests)


@pytest.mark.parametrize("variant", list(Variant))
def test_every_request_the_table_builds_is_one_the_ai_service_accepts(variant: Variant) -> None:
    asyncio.run(_round_trips(variant))


async def _round_trips(variant: Variant) -> None:
    decider = WireRoundTrip()
    app = TableApp(
        InMemoryEventStore(), InMemorySnapshotStore(), LocalDealer(), bots=Bots(decider, 1.0)
    )
    structure = {
        Variant.HOLDEM: BettingStructure.NO_LIMIT,
        Variant.OMAHA: BettingStructure.POT_LIMIT,
        Variant.OMAHA_HI_LO: BettingStructure.FIXED_LIMIT,
    }[variant]
    if structure is BettingStructure.FIXED_LIMIT:
        config = TableConfig.fixed_limit(2, variant=variant, seats=6, hand_limit=40, ante=1)
    else:
        config = TableConfig(variant, structure, seats=6, hand_limit=40, ante=1)
    config = dataclasses.replace(config, max_buy_in=config.min_buy_in)  # short: all-ins, busts
    await app.execute("w", tc.OpenTable("w", config, 0.0), "open")
    for i in range(6):
        command = tc.SitDown(f"bot{i}", i, config.max_buy_in, is_bot=True)
        try:
            await app.execute("w", command, f"seat-{i}")  # players join hands in progress
        except IllegalAction as refused:  # the first bots played all 40 hands meanwhile
            assert refused.code == "TABLE_CLOSED", refused
            break
    await play_out(app, "w", "everyone but one is broke")
    assert decider.requests >= 20 and app.ai_fallbacks == 0
    await app.stop()
