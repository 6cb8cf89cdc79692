"""The push-or-fold solver finds known equilibria: a three-card game solved by hand, and the
heads-up hold'em game whose published solution gives the small blind's pushing range."""

from __future__ import annotations

import numpy as np
import pytest

from libs.ai.shortstack.equities import heads_up_equities, pair_equity
from libs.ai.shortstack.hands import (
    CLASSES,
    COUNT,
    INDEX,
    class_of,
    combo_counts,
    combos,
    pair_weights,
)
from libs.ai.shortstack.solver import ShoveGame, exploitability, solve
from libs.poker.equity import HandRange

# ---- a toy game with a closed form

JQK_WEIGHTS = np.ones((3, 3)) - np.eye(3)  # one card each from J, Q, K, never the same
JQK_EQUITY = np.array([[0.5, 0, 0], [1, 0.5, 0], [1, 1, 0.5]])  # the higher card wins


@pytest.mark.parametrize("stack", [1.2, 1.5, 1.8])
def test_the_three_card_game_mixes_the_bluff_and_the_bluff_catcher_as_solved_by_hand(
    stack: float,
) -> None:
    """With stacks of 1-2 big blinds the small blind pushes K and Q always and J with
    probability (S-1)/(S+1), the big blind calls with K always, Q with probability
    (2-S)/(S+1) and J never: each makes the other's mixed hand indifferent."""
    eq = solve(ShoveGame(JQK_WEIGHTS, JQK_EQUITY, stack), iterations=20_000)
    assert eq.push == pytest.approx([(stack - 1) / (stack + 1), 1, 1], abs=2e-3)
    assert eq.call == pytest.approx([0, (2 - stack) / (stack + 1), 1], abs=2e-3)
    assert eq.exploitability < 1e-3


def test_deep_in_the_three_card_game_only_the_king_plays() -> None:
    eq = solve(ShoveGame(JQK_WEIGHTS, JQK_EQUITY, 3.0), iterations=5_000)
    assert eq.push == pytest.approx([0, 0, 1], abs=1e-3)  # the average forgets its start slowly
    assert eq.call == pytest.approx([0, 0, 1], abs=1e-3)
    assert eq.value == pytest.approx(0.0, abs=1e-3)


def test_exploitability_is_what_a_best_response_gains() -> None:
    game = ShoveGame(JQK_WEIGHTS, JQK_EQUITY, 1.5)
    always = np.ones(3)
    assert exploitability(game, always, always) > 0.1  # pushing and calling everything leaks
    eq = solve(game, iterations=20_000)
    assert exploitability(game, eq.push, eq.call) < 1e-3


@pytest.mark.parametrize(
    "bad",
    [
        {"stack": 0.5},
        {"stack": float("inf")},
        {"small_blind": 0.0},
        {"ante": -1.0},
        {"equity": np.full((3, 3), 1.5)},
        {"weights": -JQK_WEIGHTS},
        {"weights": np.ones((2, 3))},
    ],
)
def test_an_impossible_game_is_refused(bad: dict[str, object]) -> None:
    spec: dict[str, object] = {"weights": JQK_WEIGHTS, "equity": JQK_EQUITY, "stack": 2.0}
    with pytest.raises(ValueError):
        ShoveGame(**{**spec, **bad})  # type: ignore[arg-type]


# ---- the 169 classes


def test_there_are_169_classes_and_1326_combinations() -> None:
    assert COUNT == len(set(CLASSES)) == 169
    assert combo_counts().sum() == 1326
    assert {len(combos(name)) for name in ("AA", "AKs", "AKo")} == {6, 4, 12}
    every = {tuple(sorted(c)) for name in CLASSES for c in combos(name)}
    assert len(every) == 1326


def test_a_hand_is_in_the_class_its_combinations_say() -> None:
    for name in CLASSES:
        for combo in combos(name):
            assert class_of(combo) == name
    with pytest.raises(ValueError):
        class_of([3, 3])
    with pytest.raises(ValueError):
        combos("AKx")


def test_card_removal_counts_the_deals_two_classes_share() -> None:
    w = pair_weights()
    assert w.sum() == 1326 * 1225  # every deal of two hands once
    assert w[INDEX["AA"], INDEX["AA"]] == 6  # the two other aces
    assert w[INDEX["AA"], INDEX["KK"]] == 36
    assert w[INDEX["AKs"], INDEX["AKs"]] == 12  # 4 suits, 3 left for the other
    assert np.array_equal(w, w.T)


# ---- heads-up hold'em, against the published solution

# The heads-up push-or-fold Nash chart at 10 big blinds (HoldemResources' charts, reproduced in
# many places): the small blind's pushing range.
PUBLISHED_PUSH_10BB = (
    "22+ A2+ K2+ Q7o+ Q2s+ J8o+ J3s+ T8o+ T4s+ 97o+ 95s+ 87o 84s+ 76o 74s+ 64s+ 53s+ 43s"
)


def _classes(text: str) -> set[str]:
    return {class_of(combo) for combo in HandRange.parse(text).combos}


def test_the_small_blind_pushes_the_published_range_at_ten_big_blinds() -> None:
    eq = solve(ShoveGame(pair_weights(), heads_up_equities(), 10.0), iterations=3_000)
    pushed = {CLASSES[i] for i in range(COUNT) if eq.push[i] > 0.5}
    assert pushed == _classes(PUBLISHED_PUSH_10BB)
    shares = combo_counts() / 1326
    assert float(eq.push @ shares) == pytest.approx(0.584, abs=0.005)  # 58.4 % of hands
    assert float(eq.call @ shares) == pytest.approx(0.373, abs=0.005)  # called with 37.3 %
    assert eq.exploitability < 0.001  # big blinds per hand


def test_shorter_stacks_push_and_call_wider() -> None:
    shares = combo_counts() / 1326
    ranges = [
        solve(ShoveGame(pair_weights(), heads_up_equities(), s), iterations=1_500)
        for s in (5.0, 10.0, 15.0)
    ]
    pushes = [float(eq.push @ shares) for eq in ranges]
    calls = [float(eq.call @ shares) for eq in ranges]
    assert pushes == sorted(pushes, reverse=True) and calls == sorted(calls, reverse=True)


@pytest.mark.parametrize(
    ("hero", "villain", "published"),
    [("AA", "KK", 0.8195), ("AKs", "QQ", 0.4620), ("AKo", "22", 0.4745), ("KK", "AKo", 0.7000)],
)
def test_the_kept_equities_agree_with_published_figures(
    hero: str, villain: str, published: float
) -> None:
    assert heads_up_equities()[INDEX[hero], INDEX[villain]] == pytest.approx(published, abs=0.01)


def test_the_kept_table_is_what_a_fresh_estimate_gives() -> None:
    """A different seed's estimate of a few pairs agrees within four standard errors, and the
    table is consistent: [i, j] + [j, i] = 1."""
    table = heads_up_equities()
    assert np.allclose(table + table.T, 1.0, atol=2 / 65_535)
    rng = np.random.default_rng(99)
    for hero, villain in (("T9s", "A2o"), ("55", "AKo"), ("Q3o", "J8s")):
        fresh = pair_equity(INDEX[hero], INDEX[villain], 40_000, rng)
        assert table[INDEX[hero], INDEX[villain]] == pytest.approx(fresh, abs=4 * 0.0045)
