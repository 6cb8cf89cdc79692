"""KnownValues: a showdown step with values worked out elsewhere (the evaluator service) stops
with HandValueNeeded and changes nothing until the values are there; with them it decides
exactly what the in-process evaluator decides."""

from __future__ import annotations

import pytest

from libs.poker import AllIn, Call, DealBoard, HandEnded, HandState, parse_cards, step
from libs.poker.evaluation import DEFAULT_EVALUATOR
from libs.poker.known_values import HandValueNeeded, KnownValues, high_key, omaha_key
from tests.poker.hand_helpers import deal, holdem, play


def _before_river() -> HandState:
    s = deal(holdem([100, 100, 100]), "AsKs", "QdQh", "9c9d")
    s, _ = play(s, AllIn(2), Call(0), Call(1))
    s, _ = play(s, DealBoard(parse_cards("2c3d9h")), DealBoard(parse_cards("Ts")))
    return s


def test_a_showdown_without_values_asks_for_them_and_changes_nothing() -> None:
    s = _before_river()
    before = s.copy().__dict__
    with pytest.raises(HandValueNeeded) as need:
        step(s, DealBoard(parse_cards("Jd")), KnownValues())
    assert s.__dict__ == before
    holes = [tuple(h) for h in s.hole]
    assert need.value.board_for(holes) == tuple(parse_cards("2c3d9hTsJd"))


def test_with_the_values_the_step_decides_what_the_local_evaluator_decides() -> None:
    s = _before_river()
    river = DealBoard(parse_cards("Jd"))
    board = tuple(parse_cards("2c3d9hTsJd"))
    known = KnownValues(
        highs={high_key(tuple(h) + board): DEFAULT_EVALUATOR.high(tuple(h) + board) for h in s.hole}
    )
    assert step(s, river, known)[1] == step(s, river)[1]


def test_the_awards_follow_the_values_given() -> None:
    s = _before_river()
    board = tuple(parse_cards("2c3d9hTsJd"))
    values = {0: 3, 1: 1, 2: 2}  # made up: position 0 holds the "best" hand
    known = KnownValues(highs={high_key(tuple(s.hole[p]) + board): v for p, v in values.items()})
    events = step(s, DealBoard(parse_cards("Jd")), known)[1]
    end = events[-1]
    assert isinstance(end, HandEnded)
    assert end.stacks == (300, 0, 0)


def test_omaha_values_are_keyed_by_hole_and_board_in_any_order() -> None:
    known = KnownValues(
        omaha_highs={omaha_key((4, 3, 2, 1), (9, 8, 7, 6, 5)): 77},
        omaha_lows={omaha_key((4, 3, 2, 1), (9, 8, 7, 6, 5)): None},
    )
    assert known.omaha_high((1, 2, 3, 4), (5, 6, 7, 8, 9)) == 77
    assert known.omaha_low((1, 2, 3, 4), (5, 6, 7, 8, 9)) is None
    with pytest.raises(HandValueNeeded) as need:
        known.omaha_high((1, 2, 3, 10), (5, 6, 7, 8, 9))
    assert need.value.board_for([]) == (5, 6, 7, 8, 9)
