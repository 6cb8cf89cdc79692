"""The independent chip model against PokerKit's ``calculate_icm`` (the reference, a dev
dependency), its closed forms, and the bubble's price of an all-in call."""

from __future__ import annotations

import random

import pytest
from pokerkit import calculate_icm

from libs.ai.icm import all_in_prices, call_threshold, icm


@pytest.mark.parametrize(
    ("payouts", "stacks"),
    [
        ([70, 30], [50, 30, 20]),
        ([50, 30, 20], [25, 87, 88]),
        ([50, 30, 20], [198, 1, 1]),
        ([50, 30, 20], [1500, 1500, 1500, 1500, 1500, 1500]),
        ([40, 25, 15, 10, 6, 4], [1200, 3400, 800, 2500, 600, 1500]),
    ],
)
def test_icm_matches_pokerkit(payouts: list[float], stacks: list[float]) -> None:
    assert icm(stacks, payouts) == pytest.approx(calculate_icm(payouts, stacks), rel=1e-9)


def test_random_tables_match_pokerkit() -> None:
    rng = random.Random(30)
    for _ in range(40):
        n = rng.randint(2, 7)
        stacks = [rng.randint(1, 5000) for _ in range(n)]
        payouts = sorted((rng.randint(1, 100) for _ in range(rng.randint(1, n))), reverse=True)
        assert icm(stacks, payouts) == pytest.approx(calculate_icm(payouts, stacks), rel=1e-9)


def test_the_prize_pool_is_shared_and_chips_are_worth_less_the_more_you_have() -> None:
    values = icm([5000, 3000, 2000], [50, 30, 20])
    assert sum(values) == pytest.approx(100)
    assert values[0] / 5000 < values[2] / 2000  # the big stack's chips are worth less each
    # a quarter of the chips: first a quarter of the time, else second; the busted player: 0
    assert icm([10, 0, 30], [60, 40]) == pytest.approx((0.25 * 60 + 0.75 * 40, 0, 0.75 * 60 + 10))


def test_winner_takes_all_is_the_chip_share() -> None:
    assert icm([1, 2, 7], [100]) == pytest.approx((10, 20, 70))


def test_on_the_bubble_a_call_needs_more_than_pot_odds() -> None:
    """Four left, three paid, equal stacks: calling an all-in for my whole stack needs far more
    than the 50 % a chip-counting call needs; heads-up for the title it is exactly 50 %."""
    bubble = call_threshold([1000, 0, 1000, 1000], [50, 30, 20], 0, 1, [0, 1000, 0, 0])
    assert bubble > 0.6
    heads_up = call_threshold([1000, 0], [70, 30], 0, 1, [0, 1000])
    assert heads_up == pytest.approx(0.5)
    prices = all_in_prices([1000, 0, 1000, 1000], [50, 30, 20], 0, 1, [0, 1000, 0, 0])
    assert prices.bubble_factor > 1.3
    assert prices.lose == 0.0  # fourth of four, three paid
    assert all_in_prices([1000, 0, 1000], [50, 30, 20], 0, 1, [0, 1000, 0]).lose == 20


@pytest.mark.parametrize(
    ("stacks", "payouts"),
    [([], [1]), ([-1, 5], [1]), ([0, 0], [1]), ([1, float("nan")], [1]), ([1, 2], [1, 2])],
)
def test_bad_input_is_refused(stacks: list[float], payouts: list[float]) -> None:
    with pytest.raises(ValueError):
        icm(stacks, payouts)
