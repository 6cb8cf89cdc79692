"""Tournament settings: the kinds and their presets are valid; settings no tournament could run
with are refused naming the setting."""

from __future__ import annotations

from dataclasses import replace

import pytest

from libs.errors import InvalidArgument
from libs.poker.config import BettingStructure
from libs.tournament import errors as TE
from libs.tournament.config import (
    AddOnRule,
    RebuyRule,
    TournamentConfig,
    TournamentKind,
    heads_up,
    validate_config,
)
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit, preset

SNG = TournamentConfig("sng", TournamentKind.SIT_AND_GO)
MTT = TournamentConfig(
    "mtt", TournamentKind.SCHEDULED, max_entrants=180, start_at=1000.0, late_registration_levels=3
)


def refusal(config: TournamentConfig, code: str = TE.INVALID_TOURNAMENT_CONFIG) -> str:
    with pytest.raises(InvalidArgument) as caught:
        validate_config(config)
    assert caught.value.code == code
    return caught.value.message


def test_the_kinds_are_valid() -> None:
    validate_config(SNG)
    validate_config(MTT)
    validate_config(heads_up("hu"))
    rebuys = replace(
        MTT,
        rebuy=RebuyRule(chips=1500, cost=100, last_level=4),
        add_on=AddOnRule(chips=3000, cost=100, after_level=4),
    )
    validate_config(rebuys)
    assert SNG.freezeout and not rebuys.freezeout
    assert rebuys.rebuy_threshold == rebuys.starting_stack


@pytest.mark.parametrize("betting", list(BettingStructure))
@pytest.mark.parametrize("name", ["regular", "turbo", "hyper"])
def test_every_preset_deals_in_every_betting_structure(
    betting: BettingStructure, name: str
) -> None:
    validate_config(replace(SNG, betting=betting, structure=preset(name)))


def test_a_sit_and_go_has_no_start_time() -> None:
    assert "seats fill" in refusal(replace(SNG, start_at=5.0))


def test_a_scheduled_tournament_needs_a_start_time() -> None:
    assert "start_at" in refusal(replace(MTT, start_at=0.0))


def test_entrants_must_be_ordered() -> None:
    assert "min_entrants" in refusal(replace(MTT, min_entrants=200))
    assert "min_entrants" in refusal(replace(MTT, min_entrants=1))


def test_a_starting_stack_below_the_first_big_blind_is_refused() -> None:
    assert "below the first big blind 20" in refusal(replace(SNG, starting_stack=10))


def test_late_registration_past_the_last_level_is_refused() -> None:
    short = BlindStructure("two", LevelUnit.MINUTES, (BlindLevel(1, 2), BlindLevel(2, 4)))
    assert "0..2" in refusal(replace(MTT, structure=short, late_registration_levels=3))


def test_a_level_a_table_cannot_deal_is_refused() -> None:
    # fixed limit derives the small blind from the small bet: 40 -> 20, so 15/40 is no table
    odd = BlindStructure("odd", LevelUnit.MINUTES, (BlindLevel(15, 40, length=10),))
    msg = refusal(
        replace(SNG, betting=BettingStructure.FIXED_LIMIT, structure=odd), TE.INVALID_STRUCTURE
    )
    assert msg.startswith("level 1 cannot be dealt") and "small_blind" in msg


def test_an_impossible_structure_is_refused_by_its_own_code() -> None:
    bad = BlindStructure("bad", LevelUnit.MINUTES, (BlindLevel(10, 20, length=0),))
    refusal(replace(SNG, structure=bad), TE.INVALID_STRUCTURE)


def test_an_add_on_needs_a_break_after_its_level() -> None:
    msg = refusal(replace(MTT, add_on=AddOnRule(chips=1000, cost=10, after_level=3)))
    assert "break after level 3" in msg


def test_rebuys_outside_the_levels_are_refused() -> None:
    assert "last_level" in refusal(replace(MTT, rebuy=RebuyRule(1500, 100, last_level=0)))
    assert "decision_seconds" in refusal(
        replace(MTT, rebuy=RebuyRule(1500, 100, last_level=2, decision_seconds=0))
    )


def test_hand_for_hand_at_a_place_nobody_reaches_is_refused() -> None:
    assert "not a place" in refusal(replace(SNG, hand_for_hand_places=(20,)))


def test_seats_and_names_are_bounded() -> None:
    assert "seats_per_table" in refusal(replace(SNG, seats_per_table=11))
    assert "name" in refusal(replace(SNG, name=""))
