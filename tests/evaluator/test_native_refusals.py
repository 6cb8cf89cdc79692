"""The batch kernels of ``libs.poker.fast._native`` refuse bad input with an exception (cards out
of range, repeated cards, bad shapes, dtypes and arguments) and stay right in threads while the
lookup tables are replaced."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from libs.poker.fast import (
    NO_LOW,
    high_batch,
    holdem_values,
    omaha_high_batch,
    omaha_low_batch,
    tables,
)
from libs.poker.fast import evaluator as fast_evaluator
from libs.poker.fast.tables import (
    HI_BITS,
    HI_SHIFT,
    LO_BITS,
    SUIT_SHIFT,
    omaha_tables,
)
from tests.evaluator.conftest import random_deals, skip_module_unless_native

skip_module_unless_native()

from libs.poker.fast import _native  # noqa: E402  (only once we know it is built)

# ---- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(52, np.int64), (255, np.uint8), (-1, np.int8), (-1, np.int64), (2**40, np.int64),
     (2**32 + 3, np.uint64), (60_000, np.uint16), (-(2**31), np.int32)],
)  # fmt: skip
def test_cards_out_of_range_are_refused_naming_the_row(value: int, dtype: type[Any]) -> None:
    deals = random_deals(100, 9, seed=61).astype(np.int64)
    deals[37, 3] = value
    cards = deals.astype(dtype)
    with pytest.raises(ValueError, match="row 37"):
        high_batch(cards[:, :7], native=True)
    with pytest.raises(ValueError, match="row 37"):
        holdem_values([cards[:, :2], cards[:, 7:9]], cards[:, 2:7], native=True)
    with pytest.raises(ValueError, match="row 37"):
        omaha_high_batch(cards[:, :4], cards[:, 4:], native=True)
    with pytest.raises(ValueError, match="row 37"):
        omaha_low_batch(cards[:, :4], cards[:, 4:], native=True)


def test_repeated_cards_are_refused() -> None:
    deals = random_deals(100, 9, seed=62)
    deals[12, 1] = deals[12, 5]  # hole card 1 == board card 1
    with pytest.raises(ValueError, match="row 12"):
        high_batch(deals[:, :7], native=True)
    with pytest.raises(ValueError, match="row 12"):
        holdem_values([deals[:, :2]], deals[:, 4:], native=True)
    with pytest.raises(ValueError, match="row 12"):
        omaha_high_batch(deals[:, :4], deals[:, 4:], native=True)
    with pytest.raises(ValueError, match="row 12"):
        omaha_low_batch(deals[:, :4], deals[:, 4:], native=True)
    board = random_deals(10, 5, seed=63)
    shared = np.array([[board[4, 2], 51 if board[4, 2] != 51 else 50]])
    with pytest.raises(ValueError, match="row 4"):
        holdem_values([shared], board, native=True)


def test_bad_shapes_and_dtypes_are_refused() -> None:
    deals = random_deals(10, 9, seed=64)
    for cards in (deals[:, :4], deals[:, :8], deals[:, 0], deals.astype(np.float64)[:, :7]):
        with pytest.raises(ValueError):
            high_batch(cards, native=True)
    with pytest.raises(ValueError):
        high_batch(deals[:, :7] > 3, native=True)  # bool
    with pytest.raises(ValueError):
        omaha_high_batch(deals[:, :3], deals[:, 3:8], native=True)
    with pytest.raises(ValueError):
        omaha_low_batch(deals[:, :4], deals[:, 4:8], native=True)
    with pytest.raises(ValueError):
        omaha_high_batch(deals[:5, :4], deals[:, 4:], native=True)  # 5 holes, 10 boards
    with pytest.raises(ValueError):
        holdem_values([deals[:5, :2]], deals[:, 2:7], native=True)


def _bad_kernel_calls() -> list[tuple[Callable[[], object], type[Exception]]]:
    cards = random_deals(10, 9, seed=65)
    seven, hole, board = cards[:, :7].copy(), cards[:, :4].copy(), cards[:, 4:].copy()
    out = np.empty(10, dtype=np.int32)
    out2 = np.empty((1, 10), dtype=np.int32)
    readonly = np.empty(10, dtype=np.int32)
    readonly.flags.writeable = False
    deck = np.arange(10, dtype=np.uint8)
    draws = np.empty((4, 3), dtype=np.uint8)
    native: Any = _native  # untyped: these calls are wrong on purpose
    return [
        (lambda: native.high_batch(seven), TypeError),
        (lambda: native.high_batch(seven, out, out), TypeError),
        (lambda: native.high_batch(seven.tolist(), out), TypeError),  # no buffer
        (lambda: native.high_batch(cards[:, ::2][:, :4].copy(), out), ValueError),
        (lambda: native.high_batch(cards[:, :7], out), TypeError),  # not contiguous
        (lambda: native.high_batch(seven.astype(np.float64), out), TypeError),
        (lambda: native.high_batch(seven.astype(bool), out), TypeError),
        (lambda: native.high_batch(seven.ravel(), out), ValueError),  # 1-d
        (lambda: native.high_batch(seven, out[:9]), ValueError),
        (lambda: native.high_batch(seven, out.astype(np.int64)), ValueError),
        (lambda: native.high_batch(seven, out.astype(np.uint32)), ValueError),
        (lambda: native.high_batch(seven, readonly), TypeError),
        (lambda: native.high_batch(seven, out2), ValueError),
        (lambda: native.holdem_batch(5, board, out2), TypeError),
        (lambda: native.holdem_batch([], board, out2[:0]), ValueError),
        (lambda: native.holdem_batch([hole[:, :2].copy()] * 33, board, out2), ValueError),
        (lambda: native.holdem_batch([hole[:3, :2].copy()], board, out2), ValueError),
        (lambda: native.holdem_batch([hole], board, out2), ValueError),  # 4 hole cards
        (lambda: native.holdem_batch([hole[:, :2].copy()], board, out), ValueError),
        (lambda: native.holdem_batch([None], board, out2), TypeError),
        (lambda: native.omaha_high_batch(hole, board), TypeError),
        (lambda: native.omaha_high_batch(board, board, out), ValueError),
        (lambda: native.omaha_low_batch(hole, hole, out), ValueError),
        (lambda: native.omaha_low_batch(hole[:3], board, out), ValueError),
        (lambda: native.omaha_high_batch(hole, board, out[:5]), ValueError),
        (lambda: native.sample(deck, draws), TypeError),
        (lambda: native.sample(deck, draws, 1.5), TypeError),
        (lambda: native.sample(np.array([1, 2, 2]), draws[:, :2].copy(), 1), ValueError),
        (lambda: native.sample(np.array([1, 2, 52]), draws[:, :2].copy(), 1), ValueError),
        (lambda: native.sample(deck[:2].copy(), draws, 1), ValueError),  # k > deck
        (lambda: native.sample(deck, draws.astype(np.int8), 1), ValueError),
        (lambda: native.sample(deck, draws.ravel(), 1), ValueError),
        (lambda: native.sample(deck.reshape(2, 5), draws, 1), ValueError),
        (lambda: native.sample(np.zeros(0, dtype=np.uint8), draws[:, :0].copy(), 1), ValueError),
    ]


@pytest.mark.parametrize("index", range(len(_bad_kernel_calls())))
def test_the_kernels_refuse_bad_arguments(index: int) -> None:
    call, error = _bad_kernel_calls()[index]
    with pytest.raises(error):
        call()


# ---- threads ----------------------------------------------------------------------------------


def _copied_tables() -> dict[str, Any]:
    t = tables()
    return {
        "card_key": t.card_key.copy(),
        "lo_index": t.lo_index.copy(),
        "hi_index": tuple(t.hi_index[n].copy() for n in (5, 6, 7)),
        "rank_value": tuple(t.rank_value[n].copy() for n in (5, 6, 7)),
        "flush_suit": t.flush_suit.copy(),
        "flush_value": t.flush_value.copy(),
        "low_bit": t.low_bit.copy(),
        "low_value": t.low_value.copy(),
        "no_low": NO_LOW,
        "layout": (LO_BITS, HI_SHIFT, HI_BITS, SUIT_SHIFT),
    }


def test_kernels_in_threads_while_the_tables_are_replaced() -> None:
    # Kernels run without the GIL; replacing the tables meanwhile must not free what they read.
    seven = random_deals(100_000, 7, seed=71).astype(np.uint8)
    nine = random_deals(30_000, 9, seed=72)
    expected_high = high_batch(seven, native=False)
    expected_omaha = omaha_high_batch(nine[:, :4], nine[:, 4:], native=False)
    failures: list[str] = []
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            if not np.array_equal(high_batch(seven), expected_high):
                failures.append("high")
            if not np.array_equal(omaha_high_batch(nine[:, :4], nine[:, 4:]), expected_omaha):
                failures.append("omaha")

    workers = [threading.Thread(target=work) for _ in range(3)]
    for w in workers:
        w.start()
    try:
        o = omaha_tables()
        for _ in range(30):
            _native.init_tables(**_copied_tables())  # fresh arrays: the old ones lose their owner
            _native.init_omaha(
                pair_index=o.pair_index.copy(),
                triple_index=o.triple_index.copy(),
                pair_triple_value=o.pair_triple_value.copy(),
            )
    finally:
        stop.set()
        for w in workers:
            w.join()
        fast_evaluator._load_native_tables(False)
        fast_evaluator._load_native_tables(True)
    assert not failures
