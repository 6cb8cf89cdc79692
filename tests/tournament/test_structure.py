"""Blind structures: presets are playable, impossible structures are refused with a message
naming the level and the rule."""

from __future__ import annotations

import pytest

from libs.errors import InvalidArgument
from libs.tournament import errors as TE
from libs.tournament.structure import (
    PRESETS,
    BlindLevel,
    BlindStructure,
    LevelUnit,
    preset,
    validate_structure,
)


def structure(*levels: BlindLevel, unit: LevelUnit = LevelUnit.MINUTES) -> BlindStructure:
    return BlindStructure("custom", unit, levels)


def refusal(s: BlindStructure) -> str:
    with pytest.raises(InvalidArgument) as caught:
        validate_structure(s)
    assert caught.value.code == TE.INVALID_STRUCTURE
    return caught.value.message


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("unit", list(LevelUnit))
def test_every_preset_is_a_valid_structure(name: str, unit: LevelUnit) -> None:
    s = preset(name, unit)
    validate_structure(s)
    assert s.unit is unit
    assert [lv.big_blind for lv in s.levels] == sorted({lv.big_blind for lv in s.levels})


def test_presets_differ_in_speed_and_breaks() -> None:
    regular, turbo, hyper = (preset(n) for n in ("regular", "turbo", "hyper"))
    assert regular.levels[0].length > turbo.levels[0].length > hyper.levels[0].length
    assert regular.levels[3].break_minutes == 5 and regular.levels[2].break_minutes == 0
    assert not any(lv.break_minutes for lv in hyper.levels)
    by_hands = preset("turbo", LevelUnit.HANDS)
    assert by_hands.levels[0].length == 8


def test_an_unknown_preset_names_the_known_ones() -> None:
    with pytest.raises(InvalidArgument) as caught:
        preset("sloth")
    assert caught.value.code == TE.UNKNOWN_PRESET
    assert "hyper, regular, turbo" in caught.value.message


def test_past_the_last_level_the_last_level_stays() -> None:
    s = structure(BlindLevel(10, 20, length=10), BlindLevel(20, 40, length=10))
    assert s.level(1).big_blind == 20 and s.level(2).big_blind == 40
    assert s.level(99).big_blind == 40


def test_a_level_of_zero_minutes_is_refused() -> None:
    msg = refusal(structure(BlindLevel(10, 20, length=15), BlindLevel(20, 40, length=0)))
    assert msg.startswith("level 2:") and "1..1440 minutes" in msg


def test_a_level_of_zero_hands_is_refused() -> None:
    assert "hands" in refusal(structure(BlindLevel(10, 20, length=0), unit=LevelUnit.HANDS))


def test_blinds_that_go_down_are_refused() -> None:
    msg = refusal(structure(BlindLevel(50, 100, length=5), BlindLevel(25, 50, length=5)))
    assert "level 2" in msg and "must not go down" in msg


def test_a_level_that_repeats_the_last_is_refused() -> None:
    msg = refusal(structure(BlindLevel(50, 100, length=5), BlindLevel(50, 100, length=10)))
    assert "repeat level 1" in msg


def test_an_ante_alone_may_raise_a_level() -> None:
    validate_structure(
        structure(BlindLevel(50, 100, length=5), BlindLevel(50, 100, ante=10, length=5))
    )


def test_an_ante_above_the_big_blind_is_refused() -> None:
    assert "the ante must be 0..100" in refusal(structure(BlindLevel(50, 100, ante=101)))


def test_a_small_blind_above_the_big_blind_is_refused() -> None:
    assert "small blind" in refusal(structure(BlindLevel(60, 50)))


def test_a_big_blind_ante_needs_an_ante() -> None:
    assert "big blind's ante" in refusal(structure(BlindLevel(50, 100, big_blind_ante=True)))
    validate_structure(structure(BlindLevel(50, 100, ante=100, big_blind_ante=True)))


def test_no_levels_and_long_breaks_are_refused() -> None:
    assert "1 to 200 levels" in refusal(structure())
    assert "break" in refusal(structure(BlindLevel(10, 20, break_minutes=500)))
