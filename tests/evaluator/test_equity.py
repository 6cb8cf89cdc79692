"""Equity: exact values, hi-lo splits and quartering, Monte Carlo within its error and budgets."""

from __future__ import annotations

import numpy as np
import pytest

from libs.poker.cards import parse_cards
from libs.poker.config import Variant
from libs.poker.equity import HandRange, equity, showdown_shares


def test_ace_king_suited_against_queens_over_every_board() -> None:
    result = equity(Variant.HOLDEM, [parse_cards("AhKh"), parse_cards("QsQd")])
    assert result.exact and result.samples == 1_712_304
    ak, qq = result.players
    assert ak.win == pytest.approx(0.46018, abs=5e-6)
    assert ak.tie == pytest.approx(0.00393, abs=5e-6)
    assert ak.equity == pytest.approx(0.4621, abs=5e-5)
    assert ak.equity + qq.equity == pytest.approx(1.0)
    assert ak.std_error == 0.0


def test_monte_carlo_lands_within_its_standard_error() -> None:
    result = equity(
        Variant.HOLDEM,
        [parse_cards("AhKh"), parse_cards("QsQd")],
        exact_limit=0,
        max_samples=400_000,
        seed=1,
    )
    assert not result.exact and result.samples == 400_000
    ak = result.players[0]
    assert 0 < ak.std_error < 0.001
    assert abs(ak.equity - 0.46214) < 4 * ak.std_error


def test_same_seed_same_estimate() -> None:
    args = (Variant.OMAHA, [parse_cards("AsAdKsKd"), []])
    first = equity(*args, max_samples=5_000, seed=42)
    assert first == equity(*args, max_samples=5_000, seed=42)


def test_hi_lo_quartering_is_counted_exactly() -> None:
    # Board 2c 3d 4h Kc Kd: two players hold A5 (a wheel and the best low, tied), the third
    # holds Kh Ks for four kings: high to the kings, the low half quartered.
    board = parse_cards("2c3d4hKcKd")
    players = [parse_cards("As5s9d9c"), parse_cards("Ah5h9h9s"), parse_cards("KhKsJcJd")]
    result = equity(Variant.OMAHA_HI_LO, players, board)
    assert result.exact and result.samples == 1
    assert [p.equity for p in result.players] == [0.25, 0.25, 0.5]
    assert [p.win for p in result.players] == [0.0, 0.0, 0.0]
    assert [p.tie for p in result.players] == [1.0, 1.0, 1.0]


def test_hi_lo_without_a_qualifying_low_gives_the_whole_pot_to_high() -> None:
    board = parse_cards("9cTdJhKcQd")
    players = [parse_cards("As2s3d4c"), parse_cards("8h8s7h7s")]
    shares = showdown_shares(
        Variant.OMAHA_HI_LO,
        [np.array([p], dtype=np.int64) for p in players],
        np.array([board], dtype=np.int64),
    )
    # No low card on the board; 8-7 with 9-T-J makes a straight and takes everything.
    assert shares[:, 0].tolist() == [0.0, 1.0]


def test_split_pot_and_scoop_shares_sum_to_one() -> None:
    result = equity(
        Variant.OMAHA_HI_LO,
        [parse_cards("Ah2h3sKd"), [], [], parse_cards("8c8d9c9d")],
        parse_cards("4c7dTs"),
        max_samples=20_000,
        seed=5,
    )
    assert sum(p.equity for p in result.players) == pytest.approx(1.0)
    assert all(p.std_error < 0.01 for p in result.players)


def test_a_range_is_sampled_uniformly() -> None:
    # AA against {KK}: about 82% for the aces, same as against the explicit hand.
    ranged = equity(
        Variant.HOLDEM,
        [parse_cards("AsAh"), HandRange.parse("KK")],
        max_samples=100_000,
        seed=3,
    )
    assert len(HandRange.parse("KK").combos) == 6
    assert len(HandRange.parse("AKs AKo").combos) == 16
    assert ranged.players[0].equity == pytest.approx(0.82, abs=0.01)


def test_time_budget_returns_the_best_estimate_reached() -> None:
    ticks = iter(np.arange(0.0, 100.0, 0.01))
    result = equity(
        Variant.OMAHA_HI_LO,
        [parse_cards("Ah2h3sKd"), [], [], [], [], []],
        parse_cards("4c7dTs"),
        time_budget=0.05,
        clock=lambda: float(next(ticks)),
        seed=1,
    )
    assert 0 < result.samples < 100_000
    assert not result.exact


def test_target_standard_error_stops_early() -> None:
    result = equity(
        Variant.OMAHA_HI_LO,
        [parse_cards("Ah2h3sKd"), [], [], [], [], []],
        parse_cards("4c7dTs"),
        target_std_error=0.015,
        time_budget=5.0,
        seed=2,
    )
    assert max(p.std_error for p in result.players) <= 0.015
    assert result.samples < 20_000


def test_stop_ends_monte_carlo_after_the_batch_in_progress() -> None:
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) >= 2

    result = equity(
        Variant.OMAHA,
        [parse_cards("AsAdKsKd"), []],
        max_samples=10_000_000,
        seed=3,
        stop=stop,
    )
    assert len(asked) == 2 and not result.exact
    assert 0 < result.samples < 10_000_000
    assert all(p.std_error > 0 for p in result.players)


def test_stop_ends_an_enumeration_with_what_it_has() -> None:
    """Two known hands before the flop: 1.7 million runouts, enumerated in chunks."""
    result = equity(Variant.HOLDEM, [parse_cards("AhKh"), parse_cards("QsQd")], stop=lambda: True)
    assert not result.exact and 0 < result.samples < 1_712_304


@pytest.mark.parametrize(
    "players, board",
    [([[0, 1], [0, 2]], []), ([[0, 1]], []), ([[0, 1], [2, 3]], [4])],
)
def test_bad_requests_are_refused(players: list[list[int]], board: list[int]) -> None:
    with pytest.raises(ValueError):
        equity(Variant.HOLDEM, players, board)


def test_range_notation_expands_to_the_right_combos() -> None:
    from libs.poker.equity import HandRange

    counts = {
        "QQ": 6, "AKs": 4, "AKo": 12, "AK": 16, "TT+": 30, "ATs+": 16, "KQo+": 12,
        "22-55": 24, "A2s-A5s": 16, "AhKh": 1, "QQ+, AKs": 22,
    }  # fmt: skip
    for text, expected in counts.items():
        assert len(HandRange.parse(text).combos) == expected, text
    for bad in ("AKx", "QQs", "A", "A2s-K5s", "22-A5s"):
        with pytest.raises(ValueError):
            HandRange.parse(bad)
