"""Table configs on the wire: the one translation the table service and the lobby share."""

from __future__ import annotations

import pytest
from holdem.common.v1 import common_pb2 as pb

from libs.poker.config import BettingStructure, Variant
from libs.table import TableConfig
from libs.table.config import TableConfigError
from libs.tableproto.config import config_from_proto, config_to_proto

MINIMAL = pb.TableConfig(
    variant=pb.VARIANT_OMAHA_HI_LO,
    betting_structure=pb.BETTING_STRUCTURE_POT_LIMIT,
    small_blind=1,
    big_blind=2,
)


def test_fields_left_zero_take_the_table_defaults_and_the_config_round_trips() -> None:
    config = config_from_proto(MINIMAL)
    defaults = TableConfig()
    assert (config.variant, config.structure) == (Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT)
    assert config.seats == defaults.seats
    assert config.action_seconds == defaults.action_seconds
    assert config.time_bank_seconds == defaults.time_bank_seconds
    assert config.min_players_to_start == defaults.min_players_to_start
    assert config_from_proto(config_to_proto(config)) == config


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rake_cap": -1}, "rake_cap"),
        ({"rake_basis_points": 20_000}, "rake_basis_points"),
        ({"ante": 3}, "ante"),
        ({"time_bank_seconds": 3601}, "time_bank_seconds"),
        ({"min_players_to_start": 7}, "min_players_to_start"),
        ({"betting_structure": pb.BETTING_STRUCTURE_FIXED_LIMIT, "big_blind": 0}, "big_blind"),
        (
            {"betting_structure": pb.BETTING_STRUCTURE_FIXED_LIMIT, "straddle_allowed": 1},
            "straddle",
        ),
    ],
)
def test_out_of_range_settings_are_refused_naming_the_wire_field(
    change: dict[str, int], field: str
) -> None:
    config = pb.TableConfig()
    config.CopyFrom(MINIMAL)
    for name, value in change.items():
        setattr(config, name, value)
    with pytest.raises(TableConfigError) as caught:  # never a ValueError (INTERNAL)
        config_from_proto(config)
    assert caught.value.message.startswith(field)
