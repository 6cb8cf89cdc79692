"""The batch kernels of ``libs.poker.fast._native`` (``high_batch``, ``holdem_values``, the Omaha
batches, ``draw_distinct``) return exactly what the numpy code and the reference return, refuse
bad input with an exception, and keep Monte Carlo equity right and reproducible."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from libs.poker.cards import parse_cards
from libs.poker.config import Variant
from libs.poker.equity import HandRange, equity
from libs.poker.fast import (
    NO_LOW,
    draw_distinct,
    high_batch,
    holdem_batch,
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
    rank_multisets,
    representatives,
)
from libs.poker.hand_values import high_value, omaha_high_value, omaha_low_value
from tests.evaluator.conftest import random_deals, skip_module_unless_native

skip_module_unless_native()

from libs.poker.fast import _native  # noqa: E402  (only once we know it is built)

CARD_DTYPES = [np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64]
Array = npt.NDArray[Any]


@pytest.fixture
def numpy_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Runs the test with the extension switched off (the numpy code everywhere)."""
    monkeypatch.setattr(fast_evaluator, "NATIVE_AVAILABLE", False)
    yield


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


# ---- sampling ---------------------------------------------------------------------------------


def test_draw_distinct_gives_distinct_deck_cards_reproducibly() -> None:
    deck = np.array([c for c in range(52) if c not in (0, 7, 51)])
    for native in (True, False):
        draws = draw_distinct(np.random.default_rng(1), deck, 20_000, 9, native=native)
        assert draws.shape == (20_000, 9) and draws.dtype == np.uint8
        assert np.isin(draws, deck).all()
        assert (np.sort(draws, axis=1)[:, 1:] != np.sort(draws, axis=1)[:, :-1]).all()
        again = draw_distinct(np.random.default_rng(1), deck, 20_000, 9, native=native)
        assert np.array_equal(draws, again)
        other = draw_distinct(np.random.default_rng(2), deck, 20_000, 9, native=native)
        assert not np.array_equal(draws, other)
    whole = draw_distinct(np.random.default_rng(3), deck, 100, len(deck), native=True)
    assert (np.sort(whole, axis=1) == deck).all()  # k = deck: permutations
    assert draw_distinct(np.random.default_rng(3), deck, 5, 0).shape == (5, 0)
    with pytest.raises(ValueError):
        draw_distinct(np.random.default_rng(3), deck[:3], 5, 4)


def _chi_square(counts: Array) -> float:
    expected = counts.sum() / counts.size
    return float(((counts - expected) ** 2 / expected).sum())


def test_native_draws_are_uniform_over_ordered_samples() -> None:
    # Six cards, three drawn: 120 ordered samples, each expected 1,000 times in 120,000 rows.
    deck = np.array([3, 9, 17, 30, 44, 50])
    draws = draw_distinct(np.random.default_rng(11), deck, 120_000, 3, native=True)
    position = {int(c): i for i, c in enumerate(deck)}
    codes = np.vectorize(position.__getitem__)(draws) @ np.array([36, 6, 1])
    counts = np.bincount(codes, minlength=216)
    seen = counts[counts > 0]
    assert len(seen) == 120  # every ordered triple of distinct cards, nothing else
    # 119 degrees of freedom: mean 119, sd ~15.4; 200 is beyond 5 sd (a fixed seed: no flakes)
    assert _chi_square(seen) < 200


def test_native_draws_are_uniform_per_position_and_pair_on_a_full_deck() -> None:
    deck = np.arange(4, 52)  # 48 cards, as in heads-up hold'em
    n = 240_000
    draws = draw_distinct(np.random.default_rng(12), deck, n, 5, native=True).astype(np.intp)
    for j in range(5):  # each card equally likely in each slot: 47 dof
        counts = np.bincount(draws[:, j] - 4, minlength=48)
        assert _chi_square(counts) < 47 + 5 * np.sqrt(2 * 47)
    pairs = np.bincount((draws[:, 0] - 4) * 48 + draws[:, 1] - 4, minlength=48 * 48)
    off_diagonal = pairs.reshape(48, 48)[~np.eye(48, dtype=bool)]
    dof = off_diagonal.size - 1
    assert _chi_square(off_diagonal) < dof + 5 * np.sqrt(2 * dof)
    # rows are independent: the first card of a row says nothing about the next row's first
    follow = np.bincount((draws[:-1, 0] - 4) * 48 + draws[1:, 0] - 4, minlength=48 * 48)
    assert _chi_square(follow) < 48 * 48 - 1 + 5 * np.sqrt(2 * (48 * 48 - 1))


# ---- equity -----------------------------------------------------------------------------------


def _exact(variant: Variant, players: Sequence[Sequence[int]], board: Sequence[int]) -> list[float]:
    result = equity(variant, players, board)
    assert result.exact
    return [p.equity for p in result.players]


@pytest.mark.parametrize(
    ("variant", "players", "board"),
    [
        (Variant.HOLDEM, ["AhKh", "QsQd"], ""),
        (Variant.HOLDEM, ["7c7d", "AsKs", "Th9h"], "2h5hJc"),
        (Variant.OMAHA, ["AsAdKsKd", "Th9h8c7c"], "2h5hJc"),
        (Variant.OMAHA_HI_LO, ["Ah2h3sKd", "8c8d9c9d", "AcQdJs5s"], "4c7dTs"),
    ],
)
def test_monte_carlo_agrees_with_exact_enumeration(
    variant: Variant, players: list[str], board: str
) -> None:
    hands = [parse_cards(p) for p in players]
    cards = parse_cards(board) if board else []
    exact = _exact(variant, hands, cards)
    mc = equity(variant, hands, cards, exact_limit=0, max_samples=200_000, seed=7)
    assert not mc.exact and mc.samples == 200_000
    for p, want in zip(mc.players, exact, strict=True):
        assert 0 < p.std_error < 0.005
        assert abs(p.equity - want) < 4 * p.std_error, (p, want)
    again = equity(variant, hands, cards, exact_limit=0, max_samples=200_000, seed=7)
    assert again == mc


def test_exact_enumeration_is_the_same_with_and_without_the_extension(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cases = [
        (Variant.HOLDEM, ["AhKh", "QsQd", "7c6c"], "2h5hJc"),
        (Variant.OMAHA_HI_LO, ["Ah2h3sKd", "8c8d9c9d"], "4c7dTs"),
    ]
    native = [equity(v, [parse_cards(p) for p in ps], parse_cards(b)) for v, ps, b in cases]
    monkeypatch.setattr(fast_evaluator, "NATIVE_AVAILABLE", False)
    pure = [equity(v, [parse_cards(p) for p in ps], parse_cards(b)) for v, ps, b in cases]
    for a, b in zip(native, pure, strict=True):
        assert a.exact and b.exact and a.samples == b.samples
        for x, y in zip(a.players, b.players, strict=True):
            assert x.equity == pytest.approx(y.equity, abs=1e-12)
            assert (x.win, x.tie) == (y.win, y.tie)


@pytest.mark.usefixtures("numpy_only")
def test_the_numpy_fallback_still_agrees_with_exact_enumeration() -> None:
    hands = [parse_cards("AhKh"), parse_cards("QsQd")]
    mc = equity(Variant.HOLDEM, hands, exact_limit=0, max_samples=200_000, seed=7)
    assert abs(mc.players[0].equity - 0.46214) < 4 * mc.players[0].std_error
    six_way = equity(
        Variant.OMAHA_HI_LO,
        [parse_cards("Ah2h3sKd"), [], [], [], [], []],
        parse_cards("4c7dTs"),
        max_samples=2_000,
        seed=3,
    )
    assert sum(p.equity for p in six_way.players) == pytest.approx(1.0)


def test_random_holes_and_ranges_with_native_sampling() -> None:
    # Against one range combination, equity is that of the explicit hand.
    exact = _exact(Variant.HOLDEM, [parse_cards("AsAh"), parse_cards("KdKc")], [])
    ranged = equity(
        Variant.HOLDEM,
        [parse_cards("AsAh"), HandRange.parse("KdKc")],
        max_samples=200_000,
        seed=4,
    )
    assert abs(ranged.players[0].equity - exact[0]) < 4 * ranged.players[0].std_error
    # A range that collides with the hero's cards half of the time: the survivors are used.
    collide = equity(
        Variant.HOLDEM,
        [parse_cards("AsKh"), HandRange.parse("AA")],
        max_samples=20_000,
        seed=5,
    )
    assert 0 < collide.samples <= 20_000
    # One partly known hand (one random hole card) and one fully random hand.
    partial = equity(
        Variant.OMAHA, [parse_cards("AsAd"), []], parse_cards("2c7dTh"), max_samples=20_000
    )
    assert partial.samples == 20_000
    assert sum(p.equity for p in partial.players) == pytest.approx(1.0)


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
