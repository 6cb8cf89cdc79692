"""Hand evaluation: every class and kicker in order, Omaha's exactly-two rule, the 8-or-better low.

Random hands are cross-checked against PokerKit's evaluators (a test dependency).
"""

from __future__ import annotations

import itertools
import random

import pytest

from libs.poker import parse_cards
from libs.poker.cards import DECK, format_cards
from libs.poker.hand_values import (
    describe_high,
    describe_low,
    high_value,
    omaha_high_value,
    omaha_low_value,
)

ORDERED = [  # strictly increasing strength, 7 cards each
    "2c3d5h7s9cJdKh",  # high card K
    "2c3d5h7s9cJdAh",  # high card A
    "2c2d5h7s9cJdKh",  # pair of 2s
    "3c3d2h7s9cJdKh",  # pair of 3s, K-J-9 kickers
    "3c3dQh7s9cJdKh",  # pair of 3s, K-Q-J kickers
    "2c2d3h3s9cJdKh",  # two pair 3s and 2s
    "2c2d4h4s3c8dKh",  # two pair 4s and 2s, K kicker
    "2c2d4h4s3c8dAh",  # two pair 4s and 2s, A kicker
    "2c2d2h7s9cJdKh",  # three 2s
    "Ac2d3h4s5cJdKh",  # wheel (5 high straight)
    "2c3d4h5s6cJdKh",  # 6 high straight
    "Tc Jd Qh Ks Ac 2d 3h",  # broadway
    "2h4h6h8hTh Jd Ks",  # flush T high
    "2h4h6h8hKh Jd Qs",  # flush K high
    "2c2d2h3s3c Jd Kh",  # 2s full of 3s
    "3c3d3h2s2c Jd Kh",  # 3s full of 2s
    "2c2d2h2s3c4d5h",  # four 2s, 5 kicker
    "2c2d2h2s3c4dAh",  # four 2s, A kicker
    "Ah2h3h4h5h Kd Qs",  # steel wheel
    "9hThJhQhKh 2d 3s",  # king-high straight flush
    "ThJhQhKhAh 2d 3s",  # royal flush
]


def test_every_hand_class_and_kicker_orders_correctly() -> None:
    values = [high_value(parse_cards(hand)) for hand in ORDERED]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_suits_never_break_ties() -> None:
    a = high_value(parse_cards("AsKd9h7c5s3d2h"))
    b = high_value(parse_cards("AhKc9d7s5h3c2d"))
    assert a == b


def test_only_five_cards_count() -> None:
    # the sixth and seventh cards do not play
    assert high_value(parse_cards("AsKdQhJc9s3d2h")) == high_value(parse_cards("AsKdQhJc9s4d2c"))


def test_best_five_of_seven_may_play_the_board() -> None:
    assert high_value(parse_cards("2c3dThJhQhKhAh")) == high_value(parse_cards("ThJhQhKhAh"))


def test_descriptions() -> None:
    assert describe_high(high_value(parse_cards("3c3d3h2s2cJdKh"))) == "full house, 3s full of 2s"
    assert describe_high(high_value(parse_cards("Ac2d3h4s5cJdKh"))) == "straight, 5 high"
    low = omaha_low_value(parse_cards("As2c9d9h"), parse_cards("3h4h8cKsKd"))
    assert low is not None and describe_low(low) == "8-4-3-2-A low"


def test_omaha_high_uses_exactly_two_hole_and_three_board_cards() -> None:
    # four hearts on board plus one in hand: no flush
    assert omaha_high_value(parse_cards("Ah2c3d4s"), parse_cards("Kh9h7h5hJc")) < (5 << 20)
    # a straight needs two hole cards: 5-6 on board and 7-8-9 in hand is no straight
    value = omaha_high_value(parse_cards("7c8d9sKd"), parse_cards("5h6hAcQdJs"))
    assert value >> 20 == 0
    # but one hole king with three board kings (plus any second hole card) is quads
    value = omaha_high_value(parse_cards("Kc2c3d4s"), parse_cards("KhKdKs5h9c"))
    assert value >> 20 == 7


def test_omaha_low_needs_five_distinct_ranks_eight_or_lower() -> None:
    assert omaha_low_value(parse_cards("As2cKdKh"), parse_cards("3h4h9cTsJd")) is None
    assert omaha_low_value(parse_cards("AsAcKdKh"), parse_cards("3h4h8cTsJd")) is None
    # straights and flushes do not spoil a low: the wheel is the best low
    wheel = omaha_low_value(parse_cards("Ah2h9s9c"), parse_cards("3h4h5hKdKs"))
    other = omaha_low_value(parse_cards("Ac3c9s9d"), parse_cards("2h4h6hKdKs"))
    assert wheel is not None and other is not None and wheel < other


def test_low_compares_from_the_highest_card_down() -> None:
    board = parse_cards("2h4h7cKsQd")
    a = omaha_low_value(parse_cards("As3c9s9d"), board)  # 7-4-3-2-A
    b = omaha_low_value(parse_cards("As6cTsTd"), board)  # 7-6-4-2-A
    assert a is not None and b is not None and a < b


def _pokerkit_high(cards: str) -> object:
    from pokerkit import StandardHighHand

    return StandardHighHand.from_game(cards)


@pytest.mark.parametrize("seed", range(4))
def test_high_ordering_agrees_with_pokerkit_on_random_hands(seed: int) -> None:
    rng = random.Random(seed)
    hands = [rng.sample(DECK, 7) for _ in range(150)]
    ours = [high_value(h) for h in hands]
    theirs = [_pokerkit_high(format_cards(h)) for h in hands]
    for i in range(len(hands) - 1):
        for j in (i + 1, rng.randrange(len(hands))):
            expected = (theirs[i] > theirs[j]) - (theirs[i] < theirs[j])  # type: ignore[operator]
            got = (ours[i] > ours[j]) - (ours[i] < ours[j])
            assert got == expected, (format_cards(hands[i]), format_cards(hands[j]))


@pytest.mark.parametrize("seed", range(2))
def test_omaha_high_and_low_agree_with_pokerkit(seed: int) -> None:
    from pokerkit import OmahaEightOrBetterLowHand, OmahaHoldemHand

    rng = random.Random(100 + seed)
    deals = []
    for _ in range(60):
        cards = rng.sample(DECK, 9)
        deals.append((cards[:4], cards[4:]))
    for (hole_a, board), (hole_b, _) in itertools.pairwise(deals):
        if set(hole_b) & set(board):
            continue
        ours = (omaha_high_value(hole_a, board), omaha_high_value(hole_b, board))
        theirs = (
            OmahaHoldemHand.from_game(format_cards(hole_a), format_cards(board)),
            OmahaHoldemHand.from_game(format_cards(hole_b), format_cards(board)),
        )
        assert (ours[0] > ours[1]) == (theirs[0] > theirs[1])
        assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
        low_ours = omaha_low_value(hole_a, board)
        try:
            low_theirs = OmahaEightOrBetterLowHand.from_game(
                format_cards(hole_a), format_cards(board)
            )
        except ValueError:
            low_theirs = None
        assert (low_ours is None) == (low_theirs is None), (hole_a, board)
