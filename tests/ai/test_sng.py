"""Sit-and-go tournaments for measurement: chips are conserved hand to hand, every seat gets a
place and the prizes follow the places; a player who never folds beats one who always does."""

from __future__ import annotations

import pytest

from libs.ai.arena import LevelPlayer
from libs.ai.policy import Level
from libs.ai.sng import SngConfig, run_sngs


def test_the_caller_wins_every_tournament_against_the_folder() -> None:
    config = SngConfig(players=3, stack=300, payouts=(70, 30), hands_per_level=5)
    series = run_sngs(LevelPlayer(Level.CALL), LevelPlayer(Level.FOLD), 3, config)
    assert [r.place for r in series.results] == [1, 1, 1]
    assert series.summary().mean == 70
    out = series.to_json()
    assert out["places"] == [3, 0, 0] and out["share"] == pytest.approx(100 / 3)


def test_places_and_prizes_follow_the_busts() -> None:
    config = SngConfig(players=4, stack=400, payouts=(60, 40), hands_per_level=4, seed=3)
    series = run_sngs(LevelPlayer(Level.RANDOM), LevelPlayer(Level.CALL), 8, config)
    for r in series.results:
        assert 1 <= r.place <= 4 and r.hands >= 1
        assert r.prize == ((60, 40, 0, 0)[r.place - 1])


@pytest.mark.parametrize(
    "bad",
    [{"players": 7}, {"payouts": (30, 50)}, {"payouts": ()}, {"stack": 0}, {"hands_per_level": 0}],
)
def test_bad_tournaments_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        SngConfig(**bad)  # type: ignore[arg-type]
