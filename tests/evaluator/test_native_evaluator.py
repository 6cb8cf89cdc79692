"""The C extension ``libs.poker.fast._native`` returns exactly the pure-Python ``FastEvaluator``'s
values and the reference's, and rejects bad input with an exception instead of crashing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from libs.poker.evaluation import DEFAULT_EVALUATOR
from libs.poker.fast import FastEvaluator, high_batch, tables
from libs.poker.fast.tables import (
    HI_BITS,
    HI_SHIFT,
    LO_BITS,
    NO_LOW,
    SUIT_SHIFT,
    Tables,
    rank_multisets,
    representatives,
)
from libs.poker.hand_values import high_value, omaha_high_value, omaha_low_value
from tests.evaluator.conftest import random_deals, skip_module_unless_native

skip_module_unless_native()

from libs.poker.fast import _native  # noqa: E402  (only once we know it is built)

NATIVE = FastEvaluator(native=True)
# The same objects without their declared signatures (``Sequence[int]`` arguments), for the tests
# that hand them other iterables, numpy values, wrong arities and wrong types on purpose.
ANY_NATIVE: Any = NATIVE
ANY_C: Any = _native
PYTHON = FastEvaluator(native=False)


def test_the_default_evaluator_calls_the_extension_directly() -> None:
    assert NATIVE.native and not PYTHON.native
    assert FastEvaluator().high is _native.high
    assert DEFAULT_EVALUATOR.high is _native.high
    assert DEFAULT_EVALUATOR.omaha_high is _native.omaha_high
    assert DEFAULT_EVALUATOR.omaha_low is _native.omaha_low


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_equals_python_and_reference_on_random_hands(size: int) -> None:
    deals = random_deals(30_000, size, seed=100 + size).tolist()
    expected = [high_value(d) for d in deals]
    assert [PYTHON.high(d) for d in deals] == expected
    assert [NATIVE.high(d) for d in deals] == expected
    assert [NATIVE.high(tuple(d)) for d in deals[:1_000]] == expected[:1_000]


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_on_every_rank_multiset(size: int) -> None:
    counts, _ = rank_multisets(size)
    hands = representatives(counts)
    assert [NATIVE.high(h) for h in hands.tolist()] == high_batch(hands).tolist()


def test_high_on_every_one_suit_hand_flushes_and_straight_flushes() -> None:
    for suit in range(4):
        for size in (5, 6, 7):
            for ranks in combinations(range(13), size):
                cards = [r * 4 + suit for r in ranks]
                assert NATIVE.high(cards) == high_value(cards) == PYTHON.high(cards), cards


def test_high_on_flush_rich_hands() -> None:
    rng = np.random.default_rng(17)
    for suits in [(0, 1), (1, 2), (2, 3), (0, 3)]:
        pool = np.array([c for c in range(52) if c & 3 in suits])
        for size in (5, 6, 7):
            for _ in range(1_000):
                cards = rng.choice(pool, size, replace=False).tolist()
                assert NATIVE.high(cards) == high_value(cards) == PYTHON.high(cards), cards


def test_omaha_high_and_low_equal_python_and_reference() -> None:
    deals = random_deals(6_000, 9, seed=123).tolist()
    for d in deals:
        hole, board = d[:4], d[4:]
        high, low = omaha_high_value(hole, board), omaha_low_value(hole, board)
        assert NATIVE.omaha_high(hole, board) == high == PYTHON.omaha_high(hole, board), d
        assert NATIVE.omaha_low(hole, board) == low == PYTHON.omaha_low(hole, board), d


def test_omaha_flush_boards() -> None:
    # Three to five board cards of one suit and two hole cards of it: the flush path every time.
    rng = np.random.default_rng(29)
    for _ in range(2_000):
        suit = int(rng.integers(0, 4))
        same = rng.permutation([c for c in range(52) if c & 3 == suit]).tolist()
        others = rng.permutation([c for c in range(52) if c & 3 != suit]).tolist()
        k = 3 + int(rng.integers(0, 3))
        board = rng.permutation(same[:k] + others[: 5 - k]).tolist()
        hole = rng.permutation(same[k : k + 2] + others[5 - k : 7 - k]).tolist()
        expected = omaha_high_value(hole, board)
        assert expected >> 20 >= 5  # a flush at least
        assert NATIVE.omaha_high(hole, board) == expected == PYTHON.omaha_high(hole, board)


@pytest.mark.parametrize("hole_size", [2, 4, 5, 6])
@pytest.mark.parametrize("board_size", [3, 4, 5])
def test_omaha_other_hole_and_board_sizes(hole_size: int, board_size: int) -> None:
    deals = random_deals(1_000, hole_size + board_size, seed=hole_size * 10 + board_size)
    for d in deals.tolist():
        hole, board = d[:hole_size], d[hole_size:]
        assert NATIVE.omaha_high(hole, board) == omaha_high_value(hole, board), d
        assert NATIVE.omaha_low(hole, board) == omaha_low_value(hole, board), d


def test_omaha_low_on_every_low_rank_pattern() -> None:
    low_cards = [48, *range(0, 28, 4)]  # A, 2 .. 8 (clubs)
    for hole_bits in combinations(range(8), 4):
        hole = [low_cards[i] for i in hole_bits]
        for board_bits in combinations(range(8), 5):
            board = [low_cards[i] + 1 for i in board_bits]
            assert NATIVE.omaha_low(hole, board) == omaha_low_value(hole, board)


def test_other_sequences_numpy_ints_and_keywords() -> None:
    cards = [51, 47, 43, 39, 35, 2, 7]  # royal flush in spades plus two
    expected = high_value(cards)
    assert ANY_NATIVE.high(np.array(cards)) == expected
    assert ANY_NATIVE.high([np.int64(c) for c in cards]) == expected
    assert NATIVE.high(np.array(cards, dtype=np.uint8).tolist()) == expected
    assert ANY_NATIVE.high(c for c in cards) == expected
    assert _native.high(cards=cards) == expected
    hole, board = [0, 1, 2, 3], [4, 8, 12, 16, 20]
    assert _native.omaha_high(hole, board=board) == omaha_high_value(hole, board)
    assert _native.omaha_low(board=board, hole=hole) == omaha_low_value(hole, board)
    assert ANY_NATIVE.omaha_high(np.array(hole), range(4, 24, 4)) == omaha_high_value(hole, board)


@pytest.mark.parametrize(
    "cards",
    [
        [0, 1, 2, 3],  # too few
        [0, 1, 2, 3, 4, 5, 6, 7],  # too many
        [],
        [0, 1, 2, 3, 52],  # out of range
        [0, 1, 2, 3, -1],
        [0, 1, 2, 3, 2**70],
        [0, 1, 2, 3, -(2**70)],
        [0, 1, 2, 3, 3],  # a card twice
        (5, 9, 13, 17, 5, 21),
    ],
)
def test_high_rejects_bad_values(cards: list[int]) -> None:
    with pytest.raises(ValueError):
        NATIVE.high(cards)
    with pytest.raises(ValueError):
        ANY_NATIVE.high(np.array(cards, dtype=object))


@pytest.mark.parametrize(
    "cards",
    [
        None,
        5,
        [0, 1, 2, 3, 4.0],
        [0, 1, 2, 3, "4"],
        [0, 1, 2, 3, None],
        "abcde",
    ],
)
def test_high_rejects_bad_types(cards: Any) -> None:
    with pytest.raises(TypeError):
        NATIVE.high(cards)


def test_bad_calls_raise_type_error() -> None:
    hand = [0, 1, 2, 3, 4]
    bad_calls: list[Callable[[], object]] = [
        lambda: ANY_C.high(),
        lambda: ANY_C.high(hand, hand),
        lambda: ANY_C.high(card=hand),
        lambda: ANY_C.high(hand, cards=hand),
        lambda: ANY_C.omaha_high([0, 1, 2, 3]),
        lambda: ANY_C.omaha_high([0, 1, 2, 3], [4, 5, 6], [7]),
        lambda: ANY_C.omaha_low(hole=[0, 1, 2, 3]),
        lambda: ANY_C.omaha_low([0, 1, 2, 3], [4, 5, 6], hole=[7, 8]),
    ]
    for call in bad_calls:
        with pytest.raises(TypeError):
            call()


@pytest.mark.parametrize(
    ("hole", "board"),
    [
        ([0], [4, 5, 6, 7, 8]),  # hole too small
        ([0, 1, 2, 3, 9, 10, 11], [4, 5, 6, 7, 8]),  # hole too big
        ([0, 1, 2, 3], [4, 5]),  # board too small
        ([0, 1, 2, 3], [4, 5, 6, 7, 8, 12]),  # board too big
        ([0, 1, 2, 52], [4, 5, 6, 7, 8]),
        ([0, 1, 2, 3], [4, 5, 6, 7, -1]),
        ([0, 1, 2, 3], [4, 5, 6, 7, 3]),  # a card in both
        ([0, 1, 1, 3], [4, 5, 6, 7, 8]),
    ],
)
def test_omaha_rejects_bad_values(hole: list[int], board: list[int]) -> None:
    with pytest.raises(ValueError):
        NATIVE.omaha_high(hole, board)
    with pytest.raises(ValueError):
        NATIVE.omaha_low(hole, board)


def test_omaha_rejects_bad_types() -> None:
    for hole, board in [(None, [4, 5, 6]), ([0, 1, 2, 3], 7), ([0, 1, 2, 3.5], [4, 5, 6])]:
        with pytest.raises(TypeError):
            NATIVE.omaha_high(hole, board)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            NATIVE.omaha_low(hole, board)  # type: ignore[arg-type]


def test_a_list_changed_while_it_is_read_is_no_crash() -> None:
    cards: list[object] = [0, 5, 10, 15]

    class Shrinks:
        def __index__(self) -> int:
            cards.clear()
            return 20

    cards.append(Shrinks())
    assert NATIVE.high(cards) == high_value([0, 5, 10, 15, 20])  # type: ignore[arg-type]


def _table_arrays() -> dict[str, Any]:
    t = tables()
    return {
        "card_key": t.card_key,
        "lo_index": t.lo_index,
        "hi_index": (t.hi_index[5], t.hi_index[6], t.hi_index[7]),
        "rank_value": (t.rank_value[5], t.rank_value[6], t.rank_value[7]),
        "flush_suit": t.flush_suit,
        "flush_value": t.flush_value,
        "low_bit": t.low_bit,
        "low_value": t.low_value,
        "no_low": NO_LOW,
        "layout": (LO_BITS, HI_SHIFT, HI_BITS, SUIT_SHIFT),
    }


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda t: {"lo_index": t.lo_index.astype(np.int64)}, ValueError),  # wrong item size
        (lambda t: {"lo_index": t.lo_index.astype(np.float32)}, ValueError),  # not integers
        (lambda t: {"lo_index": t.lo_index[:100]}, ValueError),  # wrong length
        (lambda t: {"flush_value": t.flush_value[::2]}, TypeError),  # not contiguous
        (lambda t: {"card_key": list(range(52))}, TypeError),  # no buffer
        (lambda t: {"layout": (LO_BITS, HI_SHIFT, HI_BITS, SUIT_SHIFT + 1)}, ValueError),
    ],
)
def test_bad_tables_are_refused_and_the_old_ones_kept(
    change: Callable[[Tables], dict[str, Any]], error: type[Exception]
) -> None:
    cards = [51, 47, 43, 39, 34, 30, 1]
    expected = high_value(cards)
    NATIVE.high(cards)
    with pytest.raises(error):
        _native.init_tables(**{**_table_arrays(), **change(tables())})
    assert _native.ready()[0]
    assert NATIVE.high(cards) == expected


def test_tables_load_on_first_use_in_a_fresh_interpreter() -> None:
    script = textwrap.dedent(
        """
        from libs.poker.evaluation import DEFAULT_EVALUATOR
        from libs.poker.hand_values import high_value
        from libs.poker.fast import _native
        from libs.poker.fast.tables import tables

        assert _native.ready() == (False, False), "tables built at import"
        assert tables.cache_info().currsize == 0
        _native.set_loader(None)
        try:
            _native.high([0, 5, 10, 15, 20])
        except RuntimeError:
            pass
        else:
            raise AssertionError("no tables and no loader: expected RuntimeError")
        from libs.poker.fast.evaluator import _load_native_tables
        _native.set_loader(_load_native_tables)
        assert DEFAULT_EVALUATOR.high([0, 5, 10, 15, 20]) == high_value([0, 5, 10, 15, 20])
        assert _native.ready() == (True, False)
        assert DEFAULT_EVALUATOR.omaha_low([0, 5, 10, 15], [48, 20, 25]) is not None
        assert _native.ready() == (True, False)
        DEFAULT_EVALUATOR.omaha_high([0, 5, 10, 15], [20, 25, 30])
        assert _native.ready() == (True, True)
        print("ok")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
