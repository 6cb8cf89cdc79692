"""The seat view: a player's own cards and the public history, never another player's cards."""

from __future__ import annotations

from dataclasses import fields, is_dataclass

import pytest

from libs.ai import Move, SeatView, seat_view
from libs.poker import BettingStructure, Card, Variant
from tests.ai.spots import BB, Hand

NL, PL, FL = BettingStructure.NO_LIMIT, BettingStructure.POT_LIMIT, BettingStructure.FIXED_LIMIT


def cards_in(value: object) -> set[Card]:
    """Every Card object anywhere in a view (stacks and amounts are plain ints)."""
    if type(value) is Card:
        return {value}
    if is_dataclass(value) and not isinstance(value, type):
        return set().union(*(cards_in(getattr(value, f.name)) for f in fields(value)))
    if isinstance(value, tuple | list):
        return set().union(set(), *(cards_in(v) for v in value))
    return set()


def test_a_view_holds_its_own_hole_cards_and_the_board_only() -> None:
    hand = Hand(Variant.HOLDEM, NL, ["AsKs", "QdQh", "7c2d", "9h9c", "Tc8c", "5d4d"])
    hand.call().call().call().call().call().check().board("2h7h9d")
    view = hand.view()
    others = {c for p, hole in enumerate(hand.state.hole) if p != view.me for c in hole}
    assert view.hole == hand.state.hole[view.me]
    assert cards_in(view) == set(view.hole) | set(view.board)
    assert not cards_in(view) & others


def test_the_history_records_forced_bets_and_actions_by_street() -> None:
    hand = Hand(Variant.HOLDEM, NL, ["AsKs", "QdQh", "7c2d"])
    hand.raise_to(300).call().fold().board("2h7h9d")
    actions = hand.view().actions
    assert [(a.position, a.street, a.move) for a in actions] == [
        (0, 0, Move.BLIND),
        (1, 0, Move.BLIND),
        (2, 0, Move.RAISE),
        (0, 0, Move.CALL),
        (1, 0, Move.FOLD),
    ]
    assert actions[2].to == 300 and actions[3].amount == 300 - BB // 2


def test_starting_stacks_and_pot_follow_from_the_view() -> None:
    hand = Hand(Variant.OMAHA_HI_LO, PL, ["AsKs2c3d", "QdQhJdTh", "7c2d8h9s"], [5_000, 9_000, 700])
    hand.raise_to(350).call()
    view = hand.view()
    assert view.starting_stacks == (5_000, 9_000, 700)
    assert view.pot == hand.state.pot + sum(hand.state.bets) == sum(p.amount for p in view.pots)
    assert view.to_call == 250 and view.options.can_call


def test_only_the_player_to_act_gets_a_view() -> None:
    hand = Hand(Variant.HOLDEM, FL, ["AsKs", "QdQh", "7c2d"])
    with pytest.raises(ValueError, match="is to act"):
        seat_view(hand.state, 0, hand.actions)


def test_in_position_and_effective_stack() -> None:
    hand = Hand(Variant.HOLDEM, NL, ["AsKs", "QdQh"], [3_000, 10_000])
    hand.call().check().board("2h7h9d")  # heads-up: the big blind (position 0) acts first
    view: SeatView = hand.view()
    assert view.me == 0 and not view.in_position
    assert view.effective_stack == 3_000 - BB
