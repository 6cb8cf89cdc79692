"""``next_due``: what a table needs next without a player's decision, in priority order."""

from __future__ import annotations

from libs.poker.cards import DECK
from libs.poker.commands import DealHoleCards
from libs.poker.dealing import DealLayout
from libs.table import TableConfig, TableState, step_table
from libs.table import commands as tc
from libs.table.automation import (
    BoardDue,
    BotTurn,
    ClockDue,
    HandDue,
    HoleCardsDue,
    RevealDue,
    next_due,
)
from libs.table.commands import PlayerAction


def table(*, bots: bool, players: int = 3) -> TableState:
    state = TableState()
    config = TableConfig(seats=6, action_seconds=10, time_bank_seconds=0)
    commands: list[tc.TableCommand] = [
        tc.OpenTable("t", config, 0.0),
        *(tc.SitDown(f"p{i}", i, 100, is_bot=bots) for i in range(players)),
    ]
    for command in commands:
        state, _ = step_table(state, command)
    return state


def dealt(state: TableState, now: float) -> TableState:
    assert state.hand is not None
    n, k = state.hand.player_count, state.hand.config.variant.hole_card_count
    deals = tuple(DealHoleCards(p, tuple(DECK[p * k : p * k + k])) for p in range(n))
    return step_table(state, tc.Deal(deals, now))[0]


def test_a_table_ready_to_play_starts_its_next_hand_and_deals_the_hole_cards() -> None:
    state = table(bots=True)
    assert next_due(state, 1.0) == HandDue("1")
    state, _ = step_table(state, tc.StartHand("1", "c", 1.0, "deck-1"))
    layout = DealLayout(3, 2)
    assert next_due(state, 1.0) == HoleCardsDue("deck-1", tuple(layout.hole(p) for p in range(3)))


def test_a_bot_to_act_is_due_with_its_options_a_player_only_when_the_clock_ran_out() -> None:
    bots = dealt(step_table(table(bots=True), tc.StartHand("1", "c", 1.0, "d"))[0], 1.0)
    due = next_due(bots, 1.0)
    assert isinstance(due, BotTurn) and due.options is not None
    assert due.player_id == bots.seats[bots.hand_seats[2]].player_id
    people = dealt(step_table(table(bots=False), tc.StartHand("1", "c", 1.0, "d"))[0], 1.0)
    assert people.deadline == 11.0
    assert next_due(people, 10.9) is None  # the player still has time
    assert next_due(people, 11.0) == ClockDue(people.hand_seats[2])


def test_the_board_is_due_after_a_betting_round_and_the_seed_after_the_hand() -> None:
    state = dealt(step_table(table(bots=False), tc.StartHand("1", "c", 1.0, "d"))[0], 1.0)
    for seat, action in zip(
        (state.hand_seats[2], state.hand_seats[0], state.hand_seats[1]),
        (PlayerAction.CALL, PlayerAction.CALL, PlayerAction.CHECK),
        strict=True,
    ):
        state, _ = step_table(state, tc.Act(f"p{seat}", action, now=2.0))
    layout = DealLayout(3, 2)
    assert next_due(state, 2.0) == BoardDue("d", 1, layout.burn(1), layout.board(1))
    state, _ = step_table(state, tc.VoidCurrentHand("test", 3.0))
    assert next_due(state, 3.0) == RevealDue("1", "d")  # before the next hand may start
    state, _ = step_table(state, tc.RevealSeed("1", "00", 3.0))
    assert next_due(state, 3.0) == HandDue("2")


def test_nothing_is_due_at_a_closed_or_unopened_table() -> None:
    assert next_due(TableState(), 0.0) is None
    state, _ = step_table(table(bots=True), tc.CloseTable("done"))
    assert next_due(state, 0.0) is None
