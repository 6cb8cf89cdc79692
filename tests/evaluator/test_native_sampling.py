"""Sampling and equity with ``libs.poker.fast._native``: ``draw_distinct`` gives distinct cards,
reproducibly and uniformly, and Monte Carlo equity agrees with exact enumeration, with the
extension and without it (the numpy fallback)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from libs.poker.cards import parse_cards
from libs.poker.config import Variant
from libs.poker.equity import HandRange, equity
from libs.poker.fast import (
    draw_distinct,
)
from libs.poker.fast import evaluator as fast_evaluator
from tests.evaluator.conftest import skip_module_unless_native

skip_module_unless_native()


Array = npt.NDArray[Any]


@pytest.fixture
def numpy_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Runs the test with the extension switched off (the numpy code everywhere)."""
    monkeypatch.setattr(fast_evaluator, "NATIVE_AVAILABLE", False)
    yield


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
