"""The batch kernels of ``libs.poker.fast._native`` (``high_batch``, ``holdem_values``, the Omaha
batches) return exactly what the numpy code and the reference return, for every layout and
integer dtype of cards."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from libs.poker.fast import (
    NO_LOW,
    high_batch,
    holdem_batch,
    holdem_values,
    omaha_high_batch,
    omaha_low_batch,
)
from libs.poker.fast import evaluator as fast_evaluator
from libs.poker.fast.tables import (
    rank_multisets,
    representatives,
)
from libs.poker.hand_values import high_value, omaha_high_value, omaha_low_value
from tests.evaluator.conftest import random_deals, skip_module_unless_native

skip_module_unless_native()

from libs.poker.fast import _native  # noqa: E402  (only once we know it is built)

CARD_DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64]
Array = npt.NDArray[Any]


def _flush_heavy_deals(count: int, size: int, seed: int) -> Array:
    """Cards from two suits, or from one suit and two other cards: many flushes (and straight
    flushes), in every suit."""
    rng = np.random.default_rng(seed)
    rows = []
    pools = [[c for c in range(52) if c & 3 in suits] for suits in [(0, 1), (1, 2), (2, 3), (0, 3)]]
    for s in range(4):
        others = [4 * (3 * s + 2) + (s + 1) % 4, 4 * (2 * s + 5) + (s + 2) % 4]
        pools.append([c for c in range(52) if c & 3 == s] + others)
    for pool in pools:
        keys = rng.random((count // len(pools), len(pool)))
        rows.append(np.array(pool)[np.argsort(keys, axis=1)[:, :size]])
    return np.vstack(rows)


# ---- high_batch -------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_batch_equals_numpy_and_reference(size: int) -> None:
    deals = random_deals(200_000, size, seed=300 + size)
    native = high_batch(deals, native=True)
    assert native.dtype == np.int32 and native.shape == (len(deals),)
    assert np.array_equal(native, high_batch(deals, native=False))
    head = deals[:5_000]
    assert native[:5_000].tolist() == [high_value(d) for d in head.tolist()]


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_batch_on_flush_heavy_deals(size: int) -> None:
    deals = _flush_heavy_deals(40_000, size, seed=size)
    native = high_batch(deals, native=True)
    assert np.array_equal(native, high_batch(deals, native=False))
    assert (native >> 20 >= 5).mean() > 0.2  # flushes at least, on many rows
    assert native[:2_000].tolist() == [high_value(d) for d in deals[:2_000].tolist()]


@pytest.mark.parametrize("size", [5, 6, 7])
def test_high_batch_on_every_rank_multiset_and_every_one_suit_hand(size: int) -> None:
    counts, _ = rank_multisets(size)
    hands = representatives(counts)
    assert np.array_equal(high_batch(hands, native=True), high_batch(hands, native=False))
    one_suit = np.array(
        [[r * 4 + s for r in ranks] for s in range(4) for ranks in combinations(range(13), size)]
    )
    expected = [high_value(h) for h in one_suit.tolist()]
    assert high_batch(one_suit, native=True).tolist() == expected


@pytest.mark.parametrize("dtype", CARD_DTYPES)
def test_high_batch_reads_every_integer_dtype(dtype: type[np.integer[Any]]) -> None:
    deals = random_deals(20_000, 7, seed=5)
    expected = high_batch(deals, native=False)
    assert np.array_equal(high_batch(deals.astype(dtype), native=True), expected)
    assert np.array_equal(high_batch(deals.astype(dtype), native=False), expected)


def test_high_batch_takes_any_layout() -> None:
    deals = random_deals(10_000, 14, seed=6)
    expected = high_batch(np.ascontiguousarray(deals[:, ::2]), native=False)
    assert np.array_equal(high_batch(deals[:, ::2], native=True), expected)  # strided
    assert np.array_equal(high_batch(np.asfortranarray(deals[:, ::2]), native=True), expected)
    big_endian = deals[:, ::2].astype(">i4")
    assert np.array_equal(high_batch(big_endian, native=True), expected)
    one = np.broadcast_to(deals[:1, ::2], (50, 7))  # rows of stride 0
    assert high_batch(one, native=True).tolist() == [expected[0]] * 50
    assert high_batch(np.zeros((0, 7), dtype=np.uint8), native=True).shape == (0,)


def test_the_default_is_native_and_native_true_requires_the_extension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = _native.high_batch

    def spy(cards: Array, out: Array) -> None:
        calls.append("native")
        real(cards, out)

    monkeypatch.setattr(_native, "high_batch", spy)
    high_batch(random_deals(10, 7, seed=1))
    assert calls == ["native"]
    monkeypatch.setattr(fast_evaluator, "NATIVE_AVAILABLE", False)
    high_batch(random_deals(10, 7, seed=1))
    assert calls == ["native"]
    with pytest.raises(ImportError):
        high_batch(random_deals(10, 7, seed=1), native=True)


# ---- holdem_values ----------------------------------------------------------------------------


def test_holdem_values_equals_numpy_with_shared_and_per_row_holes() -> None:
    n = 50_000
    deals = random_deals(n, 2 * 6 + 5, seed=41)
    board = deals[:, 12:]
    for players in (1, 2, 3, 6):
        holes: list[Array] = [deals[:, 2 * p : 2 * p + 2] for p in range(players)]
        expected = holdem_values(holes, board, native=False)
        got = holdem_values(holes, board, native=True)
        assert got.shape == (players, n) and got.dtype == np.int32
        assert np.array_equal(got, expected)
        rows = np.stack([high_batch(np.hstack([h, board]), native=False) for h in holes])
        assert np.array_equal(got, rows)
    # Shared holes ([1, 2]) next to per-row ones, mixed dtypes; boards without the shared cards.
    shared: list[Array] = [np.array([[51, 50]], dtype=np.int64), np.array([[0, 5]], dtype=np.uint8)]
    keep = ~np.isin(deals[:, 4:9], [51, 50, 0, 5]).any(axis=1)
    board = deals[keep, 4:9].astype(np.uint8)
    per_row = deals[keep, :2].astype(np.int16)
    per_row_apart = ~np.isin(per_row, [51, 50, 0, 5]).any(axis=1)
    board, per_row = board[per_row_apart], per_row[per_row_apart]
    holes = [shared[0], per_row, shared[1]]
    expected = holdem_values(holes, board, native=False)
    assert np.array_equal(holdem_values(holes, board, native=True), expected)
    broadcast = [np.broadcast_to(shared[0], (len(board), 2)), per_row, shared[1]]
    assert np.array_equal(holdem_values(broadcast, board, native=True), expected)
    others = per_row[~np.isin(per_row, board[0]).any(axis=1)]
    one_board = np.broadcast_to(board[:1], (len(others), 5))
    expected = holdem_values([others], np.ascontiguousarray(one_board), native=False)
    assert np.array_equal(holdem_values([others], one_board, native=True), expected)


def test_holdem_values_on_flush_heavy_boards() -> None:
    deals = _flush_heavy_deals(40_000, 9, seed=8)
    holes = [deals[:, :2], deals[:, 2:4]]
    board = deals[:, 4:]
    assert np.array_equal(
        holdem_values(holes, board, native=True), holdem_values(holes, board, native=False)
    )


def test_holdem_batch_is_native_too() -> None:
    deals = random_deals(5_000, 7, seed=9)
    assert np.array_equal(
        holdem_batch(deals[:, :2], deals[:, 2:], native=True), high_batch(deals, native=False)
    )


# ---- Omaha ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_omaha_batches_equal_numpy_and_reference(dtype: type[np.integer[Any]]) -> None:
    deals = random_deals(60_000, 9, seed=51).astype(dtype)
    hole, board = deals[:, :4], deals[:, 4:]
    high = omaha_high_batch(hole, board, native=True)
    low = omaha_low_batch(hole, board, native=True)
    assert np.array_equal(high, omaha_high_batch(hole, board, native=False))
    assert np.array_equal(low, omaha_low_batch(hole, board, native=False))
    head = deals[:3_000].tolist()
    assert high[:3_000].tolist() == [omaha_high_value(d[:4], d[4:]) for d in head]
    lows = [omaha_low_value(d[:4], d[4:]) for d in head]
    assert low[:3_000].tolist() == [NO_LOW if v is None else v for v in lows]


def test_omaha_high_on_flush_heavy_deals() -> None:
    deals = _flush_heavy_deals(40_000, 9, seed=52)
    hole, board = deals[:, :4], deals[:, 4:]
    high = omaha_high_batch(hole, board, native=True)
    assert np.array_equal(high, omaha_high_batch(hole, board, native=False))
    assert (high >> 20 >= 5).mean() > 0.2
    head = deals[:2_000].tolist()
    assert high[:2_000].tolist() == [omaha_high_value(d[:4], d[4:]) for d in head]


def test_omaha_batches_share_one_hole_over_many_boards() -> None:
    hole = np.array([[48, 0, 4, 45]])  # A 2 3 K
    deck = np.array([c for c in range(52) if c not in hole[0]])
    rng = np.random.default_rng(53)
    board = deck[np.argsort(rng.random((20_000, len(deck))), axis=1)[:, :5]]
    full = np.broadcast_to(hole, (len(board), 4))
    for batch in (omaha_high_batch, omaha_low_batch):
        expected = batch(np.ascontiguousarray(full), board, native=False)
        assert np.array_equal(batch(hole, board, native=True), expected)
        assert np.array_equal(batch(full, board, native=True), expected)  # broadcast view
        # and one board for many holes
        holes = deck[np.argsort(rng.random((500, len(deck))), axis=1)[:, :4]]
        holes = holes[~np.isin(holes, board[0]).any(axis=1)]
        boards = np.broadcast_to(board[:1], (len(holes), 5))
        expected = batch(holes, np.ascontiguousarray(boards), native=False)
        assert np.array_equal(batch(holes, boards, native=True), expected)
