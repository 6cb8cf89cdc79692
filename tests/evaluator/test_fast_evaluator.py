"""The fast evaluator returns exactly the reference evaluator's values (so it is a drop-in)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from libs.poker.evaluation import DEFAULT_EVALUATOR
from libs.poker.fast import (
    NO_LOW,
    FastEvaluator,
    combination_indices,
    high_batch,
    holdem_batch,
    omaha_high_batch,
    omaha_low_batch,
    tables,
)
from libs.poker.fast.tables import rank_multisets, representatives
from libs.poker.hand_values import high_value, omaha_high_value, omaha_low_value
from tests.evaluator.conftest import random_deals

FAST = FastEvaluator()


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_values_equal_the_reference_on_random_hands(size: int) -> None:
    deals = random_deals(20_000, size, seed=size)
    expected = [high_value(d) for d in deals.tolist()]
    assert high_batch(deals).tolist() == expected
    assert high_batch(deals.astype(np.uint8)).tolist() == expected
    assert [FAST.high(d) for d in deals.tolist()] == expected


@pytest.mark.parametrize("size", [5, 6, 7])
def test_every_rank_multiset_has_the_reference_value(size: int) -> None:
    counts, _ = rank_multisets(size)
    hands = representatives(counts)
    assert len(hands) == {5: 6175, 6: 18395, 7: 49205}[size]
    assert high_batch(hands).tolist() == [high_value(h) for h in hands.tolist()]


def test_every_flush_and_straight_flush_has_the_reference_value() -> None:
    for size in (5, 6, 7):
        hands = np.array(list(combinations(range(0, 52, 4), size)))  # all clubs
        assert high_batch(hands).tolist() == [high_value(h) for h in hands.tolist()]


def test_flush_rich_hands_equal_the_reference() -> None:
    # Seven cards from two suits only: flushes on most rows.
    rng = np.random.default_rng(7)
    pool = np.array([c for c in range(52) if c & 3 in (1, 2)])
    deals = np.array([rng.choice(pool, 7, replace=False) for _ in range(5_000)])
    assert high_batch(deals).tolist() == [high_value(d) for d in deals.tolist()]


def test_holdem_batch_shares_one_hole_over_many_boards() -> None:
    boards = random_deals(2_000, 7, seed=3)
    holes, rest = boards[:, :2], boards[:, 2:]
    assert holdem_batch(holes, rest).tolist() == high_batch(boards).tolist()
    # Boards without the shared hole's cards (a hand with a card twice is refused natively).
    apart = rest[~np.isin(rest, holes[0]).any(axis=1)][:10]
    one = holdem_batch(np.array([holes[0]] * 10), apart)
    assert one.tolist() == holdem_batch(holes[0], apart).tolist()


def test_omaha_high_and_low_equal_the_reference() -> None:
    deals = random_deals(5_000, 9, seed=11)
    hole, board = deals[:, :4], deals[:, 4:]
    pairs = list(zip(hole.tolist(), board.tolist(), strict=True))
    expected_high = [omaha_high_value(h, b) for h, b in pairs]
    expected_low = [omaha_low_value(h, b) for h, b in pairs]
    assert omaha_high_batch(hole, board).tolist() == expected_high
    assert [FAST.omaha_high(h, b) for h, b in pairs] == expected_high
    lows = omaha_low_batch(hole, board).tolist()
    assert [None if v == NO_LOW else v for v in lows] == expected_low
    # the numpy code, on the small dtype the benchmark uses (card * 52 once overflowed in uint8)
    small_hole, small_board = hole.astype(np.uint8), board.astype(np.uint8)
    assert omaha_high_batch(small_hole, small_board, native=False).tolist() == expected_high
    lows = omaha_low_batch(small_hole, small_board, native=False).tolist()
    assert [None if v == NO_LOW else v for v in lows] == expected_low
    assert [FAST.omaha_low(h, b) for h, b in pairs] == expected_low


def test_omaha_flush_boards_equal_the_reference() -> None:
    # Boards with three or more hearts and suited hole cards: the flush path on every deal.
    rng = np.random.default_rng(5)
    hearts = [c for c in range(52) if c & 3 == 2]
    deals = []
    for _ in range(2_000):
        board_hearts = list(rng.choice(hearts, 3 + rng.integers(0, 3), replace=False))
        others = [c for c in range(52) if c not in board_hearts]
        rest = list(rng.choice(others, 9 - len(board_hearts), replace=False))
        deals.append(rest[:4] + board_hearts + rest[4:])
    array = np.array(deals)
    hole, board = array[:, :4], array[:, 4:]
    expected = [omaha_high_value(h, b) for h, b in zip(hole.tolist(), board.tolist(), strict=True)]
    assert omaha_high_batch(hole, board).tolist() == expected


def test_low_table_equals_the_reference_for_every_rank_pattern() -> None:
    low_cards = [48, *range(0, 28, 4)]  # A, 2 .. 8 (clubs)
    t = tables()
    for hole_size in (2, 3, 4):
        for hole_bits in combinations(range(8), hole_size):
            hole = [low_cards[i] for i in hole_bits]
            hole_mask = sum(1 << i for i in hole_bits)
            for board_size in (3, 4, 5):
                for board_bits in combinations(range(8), board_size):
                    board = [low_cards[i] + 1 for i in board_bits]
                    expected = omaha_low_value(hole, board)
                    got = int(t.low_value[hole_mask << 8 | sum(1 << i for i in board_bits)])
                    assert (None if got == NO_LOW else got) == expected, (hole, board)


def test_combination_indices_match_itertools() -> None:
    for n, k in [(5, 3), (7, 5), (10, 4), (4, 2)]:
        assert combination_indices(n, k).tolist() == [list(c) for c in combinations(range(n), k)]


def test_bad_batch_shapes_are_rejected() -> None:
    with pytest.raises(ValueError):
        high_batch(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        omaha_high_batch(np.zeros((3, 3), dtype=np.int64), np.zeros((3, 5), dtype=np.int64))


def test_the_engine_default_evaluator_is_a_drop_in() -> None:
    deals = random_deals(2_000, 9, seed=99)
    for d in deals.tolist():
        assert DEFAULT_EVALUATOR.high(d[:7]) == high_value(d[:7])
        assert DEFAULT_EVALUATOR.omaha_high(d[:4], d[4:]) == omaha_high_value(d[:4], d[4:])
        assert DEFAULT_EVALUATOR.omaha_low(d[:4], d[4:]) == omaha_low_value(d[:4], d[4:])
