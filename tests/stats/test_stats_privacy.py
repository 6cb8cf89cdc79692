"""The statistics spy: no statistic depends on a hidden card. On random hands of every variant
(folds, showdowns where later players muck, all-in runouts, side pots, hi-lo splits), each
hand's numbers are the same from every seated player's projection, from a spectator's (no hole
card at all) and from the unprojected hand (every card): what a viewer learns from them is what
the table saw, and nothing a mucked or unshown hand held."""

from __future__ import annotations

import pytest

from libs.history import hands as history_hands
from libs.history import played_hands
from libs.poker.config import BettingStructure, Variant
from libs.poker.events import HandMucked, HoleCardsDealt
from libs.stats import hand_count
from libs.table import TableConfig
from tests.history.tables import PLAYERS, play

CONFIGS = {
    "holdem": TableConfig(seats=6),
    "omaha": TableConfig(seats=6, variant=Variant.OMAHA, structure=BettingStructure.POT_LIMIT),
    "hilo": TableConfig(seats=6, variant=Variant.OMAHA_HI_LO, structure=BettingStructure.POT_LIMIT),
    "limit": TableConfig.fixed_limit(2, seats=6),
}


def _check(name: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Check one table's hands; how many of them had a hand mucked at the showdown."""
    commits = play(30, seed, config=CONFIGS[name], buy_ins=(60, 120, 200), shove=0.1)
    views = {v: played_hands(commits, v) for v in (*PLAYERS, None)}
    with monkeypatch.context() as patched:  # the hands with nobody's cards hidden
        patched.setattr(history_hands, "visible", lambda event, viewer: event)
        views["everything"] = played_hands(commits, None)
    mucked = 0
    for number, spectator in enumerate(views[None]):
        counted = hand_count(spectator)
        for viewer, hands in views.items():
            assert hand_count(hands[number]) == counted, (name, seed, number, viewer)
        mucked += any(isinstance(e, HandMucked) for e in spectator.events)
        assert not any(  # the spectator's projection hides every hole card
            isinstance(e, HoleCardsDealt) and e.cards for e in spectator.events
        )
    return mucked


def test_every_projection_counts_every_hand_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    mucked = sum(_check(n, seed, monkeypatch) for n in sorted(CONFIGS) for seed in (1, 2, 3))
    assert mucked  # the random hands did reach mucked showdowns
