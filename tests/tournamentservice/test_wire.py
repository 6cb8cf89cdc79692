"""services/tournament/wire.py: every setting survives the wire both ways, what the wire cannot
carry is refused naming the setting, and what a tournament shows comes from its standings."""

from __future__ import annotations

import pytest
from holdem.common.v1 import common_pb2
from holdem.tournament.v1 import tournament_pb2 as pb

from libs.errors import InvalidArgument
from libs.poker.config import BettingStructure, Variant
from libs.tournament import commands as C
from libs.tournament import decide, evolve, initial
from libs.tournament.config import AddOnRule, RebuyRule, TournamentConfig, TournamentKind
from libs.tournament.payouts import PayoutTable, PayoutTier
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit, preset
from services.tournament import wire

CUSTOM = TournamentConfig(
    "custom",
    TournamentKind.SCHEDULED,
    variant=Variant.OMAHA,
    betting=BettingStructure.POT_LIMIT,
    seats_per_table=6,
    starting_stack=3000,
    buy_in=50,
    fee=5,
    min_entrants=4,
    max_entrants=60,
    start_at=2_000_000_000.0,
    late_registration_levels=2,
    structure=BlindStructure(
        "mine",
        LevelUnit.MINUTES,
        (
            BlindLevel(10, 20, length=10),
            BlindLevel(15, 30, ante=3, length=10, break_minutes=5),
            BlindLevel(25, 50, ante=5, big_blind_ante=True, length=10),
        ),
    ),
    payouts=PayoutTable(
        (PayoutTier(10, (700_000, 300_000)), PayoutTier(60, (500_000, 300_000, 200_000)))
    ),
    rebuy=RebuyRule(chips=3000, cost=50, last_level=2, max_rebuys=2, decision_seconds=20.0),
    add_on=AddOnRule(chips=3000, cost=50, after_level=2),
    hand_for_hand_places=(4,),
    hand_for_hand_at_bubble=False,
)


@pytest.mark.parametrize(
    "config",
    [CUSTOM, TournamentConfig("preset", TournamentKind.SIT_AND_GO, structure=preset("turbo"))],
)
def test_every_setting_survives_the_wire(config: TournamentConfig) -> None:
    assert wire.config_from_proto(wire.config_to_proto(config)) == config


def test_settings_left_zero_take_the_defaults_and_a_preset_is_named() -> None:
    msg = pb.TournamentConfig(
        name="x",
        kind=pb.TOURNAMENT_KIND_SIT_AND_GO,
        structure=pb.BlindStructure(name="hyper", unit=pb.LEVEL_UNIT_HANDS),
    )
    config = wire.config_from_proto(msg)
    assert config == TournamentConfig(
        "x", TournamentKind.SIT_AND_GO, buy_in=0, structure=preset("hyper", LevelUnit.HANDS)
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"kind": pb.TOURNAMENT_KIND_UNSPECIFIED}, "kind"),
        ({"variant": 99}, "variant"),
        ({"betting": 99}, "betting"),
        ({"structure": pb.BlindStructure(name="hyper")}, "unit"),
        ({"structure": pb.BlindStructure(name="nope", unit=pb.LEVEL_UNIT_HANDS)}, "preset"),
        ({"start_at": float("nan")}, "start_at"),
    ],
)
def test_what_the_wire_cannot_carry_is_refused_naming_it(
    change: dict[str, object], words: str
) -> None:
    msg = wire.config_to_proto(CUSTOM)
    for field, value in change.items():
        if isinstance(value, pb.BlindStructure):
            msg.structure.CopyFrom(value)
        else:
            setattr(msg, field, value)
    with pytest.raises(InvalidArgument) as refused:
        wire.config_from_proto(msg)
    assert words in refused.value.message


def test_a_bot_without_a_level_plays_normal_and_a_person_has_none() -> None:
    assert wire.bot_level_from_proto(True, common_pb2.BOT_DIFFICULTY_UNSPECIFIED) == "normal"
    assert wire.bot_level_from_proto(True, common_pb2.BOT_DIFFICULTY_HARD) == "hard"
    assert wire.bot_level_from_proto(False, common_pb2.BOT_DIFFICULTY_HARD) == ""


def test_a_tournament_shows_its_field_and_standings() -> None:
    config = TournamentConfig("s", TournamentKind.SIT_AND_GO, max_entrants=3, seats_per_table=3)
    state = initial("t1")
    commands: list[C.Command] = [
        C.CreateTournament("t1", config, "tools", 1.0),
        C.Register("a", "ka", 2.0, True, "easy"),
        C.Register("b", "kb", 2.0),
    ]
    for command in commands:
        for event in decide(state, command):
            state = evolve(state, event)
    shown = wire.tournament_to_proto(state, 3.0)
    assert shown.summary.status == "registering" and shown.summary.entrants == 2
    assert shown.summary.prize_pool == 200 and not shown.summary.HasField("clock")
    assert {s.player_id: s.is_bot for s in shown.standings} == {"a": True, "b": False}
    assert wire.config_from_proto(shown.config) == config
