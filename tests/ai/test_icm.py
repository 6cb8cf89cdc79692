"""The independent chip model against PokerKit's ``calculate_icm`` (the reference, a dev
dependency), its closed forms, the sampled model against the exact one, and the bubble's price
of an all-in call."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from pokerkit import calculate_icm

from libs.ai.icm import AllInPrices, PrizeModel, all_in_prices, exact_states, icm


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
    three_paid = PrizeModel([50, 30, 20])
    prices = all_in_prices(three_paid, [1000, 0, 1000, 1000], 0, 1, [0, 1000, 0, 0])
    assert prices.needed_equity() > 0.6
    heads_up = all_in_prices(PrizeModel([70, 30]), [1000, 0], 0, 1, [0, 1000])
    assert heads_up.needed_equity() == pytest.approx(0.5)
    assert prices.bubble_factor > 1.3
    assert prices.lose == 0.0  # fourth of four, three paid
    assert all_in_prices(three_paid, [1000, 0, 1000], 0, 1, [0, 1000, 0]).lose == 20


@pytest.mark.parametrize(
    ("stacks", "payouts"),
    [([], [1]), ([-1, 5], [1]), ([0, 0], [1]), ([1, float("nan")], [1]), ([1, 2], [1, 2])],
)
def test_bad_input_is_refused(stacks: list[float], payouts: list[float]) -> None:
    with pytest.raises(ValueError):
        icm(stacks, payouts)


def test_bad_payouts_or_other_stacks_are_refused_by_the_model() -> None:
    refused: list[tuple[list[float], list[float]]] = [
        ([20, 30], []),
        ([50, float("nan")], []),
        ([50], [0]),
        ([50], [-5]),
    ]
    for payouts, others in refused:
        with pytest.raises(ValueError):
            PrizeModel(payouts, others)
    model = PrizeModel([50, 30, 20], [1000, 2000])
    with pytest.raises(ValueError):
        model.prize([1000, -1], 0)
    with pytest.raises(ValueError):
        model.prize([1000, 1000], 2)


def test_exact_while_the_states_are_few() -> None:
    """The programme's states: the sets of at most as many players as places paid."""
    assert exact_states(20, 3) == 1 + 20 + 190 + 1140
    assert exact_states(13, 12) == 2**13 - 1
    assert PrizeModel([50, 30, 20], [1000] * 14).exact(6)  # a 20-player bubble: 1,351
    assert not PrizeModel(list(range(12, 0, -1)), [1000] * 7).exact(6)  # 13 left, 12 paid
    assert PrizeModel([100], [1000] * 994).exact(6)  # winner takes all: the chip share


def _sampled(payouts: list[float], others: Sequence[float] = ()) -> PrizeModel:
    return PrizeModel(payouts, others, exact_states=0)


def test_sampled_matches_exact_within_half_a_percent_of_the_pool() -> None:
    """2,000 draws: each prize within 0.5 % of the prize pool of the exact one (the measured
    error's standard deviation is 0.02-0.2 %), on tables small enough to price both ways."""
    rng = random.Random(31)
    for n, places in [(3, 2), (6, 3), (9, 5), (13, 12)]:
        for _ in range(3):
            stacks = [float(rng.randint(1, 5000)) for _ in range(n)]
            payouts = sorted((float(rng.randint(1, 100)) for _ in range(places)), reverse=True)
            exact, sampled = icm(stacks, payouts), _sampled(payouts).values(stacks)
            pool = sum(payouts)
            assert max(abs(a - b) for a, b in zip(exact, sampled, strict=True)) < 0.005 * pool
            if n <= 7:  # PokerKit goes through the finishing orders: n! of them
                reference = calculate_icm(payouts, stacks)
                assert sampled == pytest.approx(reference, abs=0.005 * pool)


def test_sampled_call_prices_share_their_draws() -> None:
    """The equity an all-in call needs, sampled, within 0.01 of the exact one: the fold, win and
    lose prices use the same draws, and their error is several times smaller than with a fresh
    set of draws for each price (measured over 30 spots: 0.0013 root mean square, against
    0.0061)."""
    rng = random.Random(32)
    payouts = [30.0, 20, 12, 9, 7, 6, 5, 4, 3, 2, 1, 1]  # 13 left, 12 paid: the bubble
    shared, fresh = [], []
    for spot in range(30):
        table = [float(rng.randint(500, 6000)) for _ in range(6)]
        others = [float(rng.randint(500, 6000)) for _ in range(7)]
        committed = [0.0, min(table[1], table[0] * rng.uniform(0.5, 1.5)), 50.0, 0, 0, 0]
        table = [s - c for s, c in zip(table, committed, strict=True)]
        exact = PrizeModel(payouts, others, exact_states=10**5)
        needed = all_in_prices(exact, table, 0, 1, committed).needed_equity()
        sampled = all_in_prices(_sampled(payouts, others), table, 0, 1, committed)
        shared.append(sampled.needed_equity() - needed)
        apart = [
            all_in_prices(
                PrizeModel(payouts, others, exact_states=0, seed=3 * spot + k),
                table,
                0,
                1,
                committed,
            )
            for k in range(3)
        ]
        fresh.append(
            AllInPrices(apart[0].fold, apart[1].win, apart[2].lose).needed_equity() - needed
        )
    assert max(map(abs, shared)) < 0.01
    assert _rms(shared) < _rms(fresh) / 3


def _rms(errors: list[float]) -> float:
    return math.sqrt(sum(e * e for e in errors) / len(errors))


def test_a_big_field_is_priced() -> None:
    """1,000 players left, 150 paid: equal stacks share the pool equally; a big stack's chips are
    worth less each than a short stack's; a busted player takes the place below everyone."""
    payouts = [float(300 - p) for p in range(150)]
    pool = sum(payouts)
    model = PrizeModel(payouts, [1000.0] * 994)
    assert not model.exact(6)
    equal = model.prize([1000.0] * 6, 0)
    assert equal == pytest.approx(pool / 1000, rel=0.05)
    short, big = (
        model.prize([250.0, 4000, 1000, 1000, 1000, 1000], 0),
        model.prize([250.0, 4000, 1000, 1000, 1000, 1000], 1),
    )
    assert short < equal < big
    assert big / 4000 < short / 250
    lose = all_in_prices(model, [0.0, 2000, 1000, 1000, 1000, 1000], 0, 1, [1000.0, 0, 0, 0, 0, 0])
    assert lose.lose == 0.0  # 1,000th of 1,000: no prize
    winner_takes_all = icm([1.0] * 500 + [501.0], [100])
    assert winner_takes_all[-1] == pytest.approx(50.05)
