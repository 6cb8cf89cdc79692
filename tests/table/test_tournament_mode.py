"""A tournament's table (``TableConfig.tournament``): it deals only the hand the tournament
released, at that hand's blinds; it takes any stack; a newcomer (a moved player) is dealt in at
once; and leaving, busting or closing pays nothing to a wallet (events marked ``tournament``)."""

from __future__ import annotations

import pytest

from libs.poker.errors import IllegalAction
from libs.table import TableConfig, step_table
from libs.table import commands as tc
from libs.table import errors as TE
from libs.table.automation import HandDue, next_due
from libs.table.codec import decode, encode
from libs.table.config import TableConfigError
from libs.table.events import HandBegan, HandReleased, PlayerLeft, PlayerSatOut, TableClosed
from libs.table.planning import start_hand_refusal
from tests.table.table_steps import given, when

CONFIG = TableConfig(seats=6, small_blind=10, big_blind=20, tournament=True)


def test_it_deals_only_a_released_hand_at_that_hands_blinds() -> None:
    state = given(*(tc.SitDown(f"p{i}", i, 1500) for i in range(3)), config=CONFIG)
    assert next_due(state, 1.0) is None
    refusal = start_hand_refusal(state, 1.0)
    assert refusal is not None and refusal.code == TE.NOT_RELEASED
    state, events = when(state, tc.ReleaseHand(1, 25, 50, 5, 1.0))
    assert events == [HandReleased(1, 25, 50, 5)]
    assert next_due(state, 1.0) == HandDue("1")
    state, events = when(state, tc.StartHand("h1", "c", 1.0))
    began = events[0]
    assert isinstance(began, HandBegan)
    assert state.hand is not None and state.hand.config.antes == (5, 5, 5)
    assert sorted(state.hand.config.blinds) == [0, 25, 50]
    state, _ = when(state, tc.VoidCurrentHand("test"))
    assert next_due(state, 2.0) is None  # hand 2 is not released yet


def test_a_release_repeated_changes_nothing_and_one_out_of_turn_is_refused() -> None:
    state = given(*(tc.SitDown(f"p{i}", i, 1500) for i in range(2)), config=CONFIG)
    state, _ = when(state, tc.ReleaseHand(1, 10, 20, 0))
    assert when(state, tc.ReleaseHand(1, 10, 20, 0))[1] == []
    with pytest.raises(IllegalAction) as refused:
        when(state, tc.ReleaseHand(3, 10, 20, 0))
    assert refused.value.code == TE.NO_HAND
    state, _ = when(state, tc.StartHand("h1", "c", 1.0))
    with pytest.raises(IllegalAction):  # during the hand
        when(state, tc.ReleaseHand(2, 10, 20, 0))
    with pytest.raises(TableConfigError):  # blinds the table cannot play
        when(given(config=CONFIG), tc.ReleaseHand(1, 30, 20, 0))


def test_a_cash_table_refuses_a_release() -> None:
    state = given(*(tc.SitDown(f"p{i}", i, 100) for i in range(2)))
    with pytest.raises(IllegalAction) as refused:
        when(state, tc.ReleaseHand(1, 1, 2, 0))
    assert refused.value.code == TE.NOT_A_TOURNAMENT_TABLE


def test_any_stack_sits_and_a_newcomer_is_dealt_in_at_once() -> None:
    state = given(tc.SitDown("p0", 0, 1), tc.SitDown("p1", 1, 10**9), config=CONFIG)
    state, _ = when(state, tc.ReleaseHand(1, 10, 20, 0))
    state, _ = when(state, tc.StartHand("h1", "c", 1.0))
    state, _ = when(state, tc.VoidCurrentHand("test"))
    state, events = when(state, tc.SitDown("p2", 4, 3000))  # moved here from another table
    assert not state.seats[4].waiting_for_big_blind and not state.seats[4].entry_due
    state, _ = when(state, tc.ReleaseHand(2, 10, 20, 0))
    state, events = when(state, tc.StartHand("h2", "c", 2.0))
    began = events[0]
    assert isinstance(began, HandBegan) and 4 in began.seats


def test_leaving_busting_and_closing_pay_no_wallet() -> None:
    state = given(tc.SitDown("p0", 0, 100), tc.SitDown("p1", 1, 100), config=CONFIG)
    state, events = when(state, tc.Leave("p1"))
    assert events == [PlayerLeft(1, "p1", 100, tournament=True)]
    state, events = when(state, tc.CloseTable("over"))
    assert events == [TableClosed("over", ((0, "p0", 100),), tournament=True)]
    for event in (*events, PlayerSatOut(0, "no chips", "p0", tournament=True)):
        assert decode(encode(event)) == event


def test_a_tournament_table_config_takes_any_stack_and_no_person_rule() -> None:
    assert (CONFIG.min_buy_in, CONFIG.max_buy_in) == (1, 10**12)
    with pytest.raises(TableConfigError):
        TableConfig(tournament=True, needs_a_person=True)
    state = given(config=CONFIG)
    state, _ = step_table(state, tc.SitDown("p0", 0, 7))
    assert state.seats[0].stack == 7


def test_the_lobby_credits_no_wallet_from_a_tournament_table() -> None:
    from libs.lobby.cashouts import money_of

    cash = money_of([PlayerLeft(1, "p1", 100), TableClosed("x", ((0, "p0", 50),))])
    assert cash.credits == [("p1", 100), ("p0", 50)]
    tournament = money_of(
        [
            PlayerLeft(1, "p1", 100, tournament=True),
            PlayerSatOut(2, "no chips", "p2", tournament=True),
            TableClosed("x", ((0, "p0", 50),), tournament=True),
        ]
    )
    assert not tournament.relevant
