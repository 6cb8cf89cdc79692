"""Pots, showdown, splits, hi-lo, rake and voiding, given-when-then on events."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from libs.poker import (
    AllIn,
    BetOrRaise,
    BettingStructure,
    Call,
    Check,
    DealBoard,
    DealHoleCards,
    Fold,
    HandMucked,
    HandShown,
    HandState,
    IllegalAction,
    InvalidCommand,
    Muck,
    Phase,
    PotAwarded,
    RakeRule,
    RakeTaken,
    Show,
    StreetDealt,
    Variant,
    VoidHand,
    parse_cards,
    showdown_turn,
    step,
)
from libs.poker import errors as E
from libs.poker.pots import build_pots, split_evenly
from tests.poker.hand_helpers import board, deal, events_of, holdem, play

HILO = Variant.OMAHA_HI_LO


def _check_down(s: HandState, players: Sequence[int]) -> HandState:
    for p in players:
        s, _ = step(s, Check(p))
    return s


def test_all_in_runout_turns_hands_face_up_and_deals_without_betting() -> None:
    s = deal(holdem([100, 100]), "AsKs", "QdQh")
    s, events = play(s, AllIn(1), Call(0))
    assert {e.player for e in events_of(events, HandShown)} == {0, 1}
    assert s.phase is Phase.DEALING_BOARD
    s, events = play(s, DealBoard(parse_cards("2c3d4h")), DealBoard(parse_cards("9s")))
    assert s.phase is Phase.DEALING_BOARD and s.actor is None
    s, events = play(s, DealBoard(parse_cards("8d")))
    assert s.is_complete and s.stacks == [0, 200]  # the queens hold


def test_side_pots_pay_only_the_players_who_paid_into_them() -> None:
    # position 2 has the best hand but only 20 chips: wins the main pot only
    s = deal(holdem([100, 100, 20]), "AsKs", "QdQh", "9c9d")
    s, _ = play(s, AllIn(2), Call(0), Call(1))
    s = board(s, "2c3d9h")
    s, _ = play(s, AllIn(0), Call(1))
    s, events = play(s, DealBoard(parse_cards("Jd")), DealBoard(parse_cards("8s")))
    awards = events_of(events, PotAwarded)
    assert [(a.pot, a.amount, a.winners) for a in awards] == [
        (1, 160, ((1, 160),)),  # the last side pot is awarded first
        (0, 60, ((2, 60),)),
    ]
    assert s.stacks == [0, 160, 60]


def test_pots_with_the_same_players_are_one_pot() -> None:
    pots = build_pots([50, 100, 100], [0, 0, 0], [True, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [(150, (0, 1, 2)), (100, (1, 2))]
    pots = build_pots([50, 100, 100], [0, 0, 0], [False, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [(250, (1, 2))]


def test_odd_chips_go_one_each_from_the_first_seat_left_of_the_button() -> None:
    assert split_evenly(11, [2, 0, 1]) == [(0, 4), (1, 4), (2, 3)]
    assert split_evenly(8, [1, 2, 3]) == [(1, 3), (2, 3), (3, 2)]


def test_split_pot_with_odd_chip_in_a_hand() -> None:
    # three players tie with the board's straight; the pot of 3*7 + 2 antes ... keep it simple:
    s = deal(holdem([51, 51, 51], antes=(0, 0, 0)), "2s3s", "2d3d", "2h3h")
    s, _ = play(s, Call(2), Call(0), Check(1))
    s = board(s, "Ts9c8h")
    s = _check_down(s, [0, 1, 2])
    s = board(s, "7d")
    s = _check_down(s, [0, 1, 2])
    s = board(s, "6c")
    s = _check_down(s, [0, 1, 2])
    while showdown_turn(s) is not None:
        turn = showdown_turn(s)
        assert turn is not None
        s, _ = step(s, Show(turn.player))
    assert s.stacks == [51, 51, 51]

    # Now with odd chips: positions 0-2 tie on the board's straight, position 3 (the button)
    # called the blind and folded to the flop bet: a pot of 4 * 2 + 3 * 2 = 14 chips split
    # three ways is 4 each and 2 odd chips, one each from the first seat left of the button
    # (RULES.md): positions 0 and 1, not 2, and not both to one winner.
    s = deal(holdem([100] * 4), "2s3s", "2d3d", "2h3h", "KcQd")
    s, _ = play(s, Call(2), Call(3), Call(0), Check(1))
    s = board(s, "Ts9c8h")
    s, _ = play(s, BetOrRaise(0, 2), Call(1), Call(2), Fold(3))
    for street in ("7d", "6c"):
        s = board(s, street)
        s = _check_down(s, [0, 1, 2])
    s, events = play(s, Show(0), Show(1), Show(2))
    (award,) = events_of(events, PotAwarded)
    assert award.amount == 14
    assert award.winners == ((0, 5), (1, 5), (2, 4))
    assert s.stacks == [101, 101, 100, 98]


def test_showdown_order_starts_with_the_last_river_aggressor() -> None:
    s = deal(holdem([100] * 3), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, Call(2), Call(0), Check(1))
    s = board(s, "2h3h4c")
    s = _check_down(s, [0, 1, 2])
    s = board(s, "9s")
    s = _check_down(s, [0, 1, 2])
    s = board(s, "Jd")
    from libs.poker import BetOrRaise

    s, _ = play(s, Check(0), BetOrRaise(1, 10), Call(2), Call(0))
    turn = showdown_turn(s)
    assert turn is not None and turn.player == 1


def test_showdown_order_without_a_river_bet_starts_left_of_the_button() -> None:
    s = deal(holdem([100] * 3), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, Call(2), Call(0), Check(1))
    for cards in ("2h3h4c", "9s", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1, 2])
    turn = showdown_turn(s)
    assert turn is not None and turn.player == 0


def test_a_losing_hand_may_be_mucked_and_the_winner_must_show() -> None:
    s = deal(holdem([100] * 3), "AsAd", "QdQh", "2c7d")
    s, _ = play(s, Call(2), Call(0), Check(1))
    for cards in ("2h3h4c", "9s", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1, 2])
    s, events = play(s, Show(0), Muck(1))
    assert events_of(events, HandMucked) == [HandMucked(1)]
    turn = showdown_turn(s)
    assert turn is not None and turn.player == 2
    s, events = play(s, Muck(2))
    assert s.is_complete and s.stacks == [104, 98, 98]


def test_the_last_player_left_in_a_pot_cannot_muck() -> None:
    s = deal(holdem([100] * 2), "AsAd", "QdQh")
    s, _ = play(s, Call(1), Check(0))
    for cards in ("2h3h4c", "9s", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1])
    s, _ = play(s, Muck(0))
    assert s.is_complete and s.stacks == [98, 102]  # the other hand wins unshown

    # A side pot: position 2 is all-in for 20; 0 and 1 play on for a side pot only they are in.
    # Position 0 shows first and may muck (1 is still in both pots); once 0 has mucked, 1 is
    # the last player in the side pot and must show to win it: mucking is refused.
    s = deal(holdem([100, 100, 20]), "7c2d", "KsKd", "AsAd")
    s, _ = play(s, AllIn(2), Call(0), Call(1))
    s = board(s, "2h3h4c")
    s, _ = play(s, BetOrRaise(0, 10), Call(1))
    for cards in ("9s", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1])
    turn = showdown_turn(s)
    assert turn is not None and turn.player == 0 and turn.can_muck
    s, _ = play(s, Muck(0))
    turn = showdown_turn(s)
    assert turn is not None and turn.player == 1 and not turn.can_muck
    before = s.copy().__dict__
    with pytest.raises(IllegalAction) as refused:
        step(s, Muck(1))
    assert refused.value.code == E.CANNOT_MUCK
    assert s.__dict__ == before
    s, _ = play(s, Show(1), Show(2))
    assert s.is_complete and s.stacks == [70, 90, 60]  # 2 wins the main pot, 1 the side pot


def test_only_the_cards_dealt_can_be_shown() -> None:
    s = deal(holdem([100] * 2), "AsAd", "QdQh")
    s, _ = play(s, Call(1), Check(0))
    for cards in ("2h3h4c", "9s", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1])
    with pytest.raises(InvalidCommand) as err:
        step(s, Show(0, parse_cards("KsKd")))
    assert err.value.code == E.WRONG_CARDS_SHOWN


def test_omaha_uses_exactly_two_hole_cards() -> None:
    # four spades on board + one spade in hand is no flush in Omaha
    s = deal(
        holdem([100] * 2, variant=Variant.OMAHA, structure=BettingStructure.POT_LIMIT),
        "As2c3d4h",
        "KdKhQcQh",
    )
    s, _ = play(s, Call(1), Check(0))
    for cards in ("5s6s7s", "8s", "2d"):
        s = board(s, cards)
        s = _check_down(s, [0, 1])
    s, _ = play(s, Show(0), Show(1))
    # position 0: A-2 + 5-6-7? no: best is 3-4 + 5-6-7 straight (7 high); position 1: kings
    assert s.stacks == [102, 98]


def test_hi_lo_splits_high_and_low_with_the_odd_chip_to_high() -> None:
    s = deal(
        holdem(
            [101, 101],
            variant=HILO,
            structure=BettingStructure.POT_LIMIT,
            antes=(1, 0),
            dead_antes=True,
        ),
        "AsKs2c3d",
        "QdQhQsJc",
    )
    s, _ = play(s, Call(1), Check(0))
    for cards in ("4h5h8c", "Ts", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1])
    s, events = play(s, Show(0), Show(1))
    awards = events_of(events, PotAwarded)
    assert [(a.share, a.amount, a.winners) for a in awards] == [
        ("high", 3, ((1, 3),)),
        ("low", 2, ((0, 2),)),
    ]


def test_hi_lo_without_a_qualifying_low_the_high_takes_all() -> None:
    s = deal(
        holdem([100, 100], variant=HILO, structure=BettingStructure.POT_LIMIT),
        "AsKs2c3d",
        "QdQhQsJc",
    )
    s, _ = play(s, Call(1), Check(0))
    for cards in ("9hTh9c", "Kc", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1])
    s, events = play(s, Show(0), Show(1))
    assert [(a.share, a.amount) for a in events_of(events, PotAwarded)] == [("whole", 4)]


def test_hi_lo_quartering_when_two_players_share_the_low() -> None:
    s = deal(
        holdem([100] * 3, variant=HILO, structure=BettingStructure.POT_LIMIT),
        "As2cKdKh",
        "Ad2hQcQs",
        "8s8dTcTd",
    )
    s, _ = play(s, Call(2), Call(0), Check(1))
    for cards in ("3h4h8c", "Js", "Jd"):
        s = board(s, cards)
        s = _check_down(s, [0, 1, 2])
    s, events = play(s, Show(0), Show(1), Show(2))
    awards = events_of(events, PotAwarded)
    assert [(a.share, a.amount, a.winners) for a in awards] == [
        ("high", 3, ((2, 3),)),
        ("low", 3, ((0, 2), (1, 1))),
    ]


def test_hi_lo_side_pot_looks_only_at_its_own_players_for_a_low() -> None:
    # position 2 (all-in short) has the only low; the side pot between 0 and 1 has none
    s = deal(
        holdem([100, 100, 6], variant=HILO, structure=BettingStructure.POT_LIMIT),
        "KsKdQcQd",
        "JsJdTcTd",
        "As2c9h9d",
    )
    s, _ = play(s, AllIn(2), Call(0), Call(1))
    s = board(s, "3h4h8c")
    from libs.poker import BetOrRaise

    s, _ = play(s, BetOrRaise(0, 18), Call(1))
    s = board(s, "5s")
    s = _check_down(s, [0, 1])
    s = board(s, "Jh")
    s = _check_down(s, [0, 1])
    s, events = play(s, Show(0), Show(1), Show(2))
    awards = events_of(events, PotAwarded)
    side = [a for a in awards if a.pot == 1]
    assert [(a.share, a.amount, a.winners) for a in side] == [("whole", 36, ((1, 36),))]


def test_rake_takes_a_percentage_up_to_the_cap() -> None:
    s = deal(holdem([100] * 2, rake=RakeRule(percent=10, cap=3)), "AsAd", "QdQh")
    s, _ = play(s, Call(1), Check(0))
    s = board(s, "2h3h4c")
    from libs.poker import BetOrRaise

    s, events = play(s, BetOrRaise(0, 50), Call(1))
    s = board(s, "9s")
    s = _check_down(s, [0, 1])
    s = board(s, "Jd")
    s = _check_down(s, [0, 1])
    s, events = play(s, Show(0), Show(1))
    assert events_of(events, RakeTaken) == [RakeTaken(3)]
    assert s.stacks == [149, 48] and s.rake == 3


def test_no_flop_no_drop() -> None:
    s = deal(holdem([100] * 2, rake=RakeRule(percent=10, cap=3)), "AsAd", "QdQh")
    s, events = play(s, Fold(1))
    assert events_of(events, RakeTaken) == [] and s.stacks == [101, 99]


def test_voiding_a_hand_returns_every_chip() -> None:
    s = deal(holdem([100, 70, 30]), "AsKs", "QdQh", "2c7d")
    s, _ = play(s, AllIn(2), Call(0))
    s, _events = play(s, VoidHand("dealer unreachable"))
    assert s.is_complete and s.stacks == [100, 70, 30]
    with pytest.raises(IllegalAction):
        step(s, VoidHand("again"))


def test_board_cards_come_after_a_burn_when_given() -> None:
    s = deal(holdem([100] * 2), "AsAd", "QdQh")
    s, _ = play(s, Call(1), Check(0))
    s, events = play(s, DealBoard(parse_cards("2h3h4c"), burn=parse_cards("5c")[0]))
    s = _check_down(s, [0, 1])
    assert events_of(events, StreetDealt) == [
        StreetDealt(1, parse_cards("2h3h4c"), parse_cards("5c")[0])
    ]
    with pytest.raises(InvalidCommand) as err:
        step(s, DealBoard(parse_cards("5c")))  # the burn card is gone
    assert err.value.code == E.DUPLICATE_CARD


def test_a_card_cannot_be_dealt_twice() -> None:
    s = holdem([100] * 2)
    s = deal(s, "AsAd")
    with pytest.raises(InvalidCommand) as err:
        step(s, DealHoleCards(1, parse_cards("AsKd")))
    assert err.value.code == E.DUPLICATE_CARD
