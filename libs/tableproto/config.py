"""Table configs on the wire: ``holdem.common.v1.TableConfig`` <-> ``libs.table.TableConfig``,
the one translation both the table service and the lobby use (so both accept exactly the same
tables, validated by ``TableConfig`` itself).

A field left 0 (proto3 cannot tell "not given" from 0) takes ``TableConfig``'s default where 0
is not a meaningful setting: seats, the action clock, the time bank, players to start. Errors
name the wire's field (``max_seats``, ``action_clock_seconds``, ...).
"""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.poker.config import BettingStructure, RakeRule, Variant
from libs.table.config import BotDifficulty, TableConfig, TableConfigError

VARIANTS: dict[pb.Variant.ValueType, Variant] = {
    pb.VARIANT_HOLDEM: Variant.HOLDEM,
    pb.VARIANT_OMAHA: Variant.OMAHA,
    pb.VARIANT_OMAHA_HI_LO: Variant.OMAHA_HI_LO,
}
STRUCTURES: dict[pb.BettingStructure.ValueType, BettingStructure] = {
    pb.BETTING_STRUCTURE_NO_LIMIT: BettingStructure.NO_LIMIT,
    pb.BETTING_STRUCTURE_POT_LIMIT: BettingStructure.POT_LIMIT,
    pb.BETTING_STRUCTURE_FIXED_LIMIT: BettingStructure.FIXED_LIMIT,
}
_VARIANT_VALUES = {v: k for k, v in VARIANTS.items()}
_STRUCTURE_VALUES = {v: k for k, v in STRUCTURES.items()}

#: ``TableConfig`` field -> the wire's name for it, where they differ.
WIRE_NAMES = {
    "seats": "max_seats",
    "structure": "betting_structure",
    "straddle": "straddle_allowed",
    "rake": "rake_basis_points",
    "action_seconds": "action_clock_seconds",
    "duration_seconds": "time_limit_seconds",
}


def variant_to_proto(variant: Variant) -> pb.Variant.ValueType:
    return _VARIANT_VALUES[variant]


def config_from_proto(msg: pb.TableConfig) -> TableConfig:
    """The table ``msg`` describes; ``TableConfigError`` (INVALID_TABLE_CONFIG) naming the wire
    field that is out of range."""
    variant = VARIANTS.get(msg.variant)
    if variant is None:
        raise TableConfigError("variant", "is required")
    structure = STRUCTURES.get(msg.betting_structure)
    if structure is None:
        raise TableConfigError("betting_structure", "is required")
    if msg.rake_cap < 0:
        raise TableConfigError("rake_cap", "must not be negative")
    given: dict[str, object] = {
        "seats": msg.max_seats,
        "action_seconds": float(msg.action_clock_seconds),
        "time_bank_seconds": float(msg.time_bank_seconds),
        "min_players_to_start": msg.min_players_to_start,
    }
    kwargs: dict[str, object] = {
        "variant": variant,
        "needs_a_person": msg.needs_a_person,
        "tournament": msg.tournament,
        "big_blind_ante": msg.big_blind_ante,
        "separate_spectator_chat": msg.separate_spectator_chat,
        "run_it_max": max(msg.run_it_max, 1),  # 0: not offered, as 1
        "rabbit_hunt": msg.rabbit_hunt,
        "bomb_pot_ante": msg.bomb_pot_ante,
        "bomb_pot_every": msg.bomb_pot_every,
        "bomb_pot_vote": msg.bomb_pot_vote,
        "ante": msg.ante,
        "straddle": msg.straddle_allowed,
        "min_buy_in": msg.min_buy_in,
        "max_buy_in": msg.max_buy_in,
        "rake": RakeRule(  # above 100 % is refused by TableConfig's limit like any too high
            min(msg.rake_basis_points, 10_000) / 100, msg.rake_cap, msg.rake_no_flop_no_drop
        ),
        "hand_limit": msg.hand_limit,
        "duration_seconds": float(msg.time_limit_seconds),
        **{name: value for name, value in given.items() if value},  # 0: the default
    }
    try:
        if structure is BettingStructure.FIXED_LIMIT:
            return TableConfig.fixed_limit(msg.big_blind, **kwargs)
        return TableConfig(
            structure=structure,
            small_blind=msg.small_blind,
            big_blind=msg.big_blind,
            **kwargs,  # type: ignore[arg-type]
        )
    except TableConfigError as error:
        raise TableConfigError(WIRE_NAMES.get(error.field, error.field), error.problem) from None


def config_to_proto(config: TableConfig) -> pb.TableConfig:
    return pb.TableConfig(
        variant=_VARIANT_VALUES[config.variant],
        betting_structure=_STRUCTURE_VALUES[config.structure],
        max_seats=config.seats,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        ante=config.ante,
        straddle_allowed=config.straddle,
        min_buy_in=config.min_buy_in,
        max_buy_in=config.max_buy_in,
        rake_basis_points=round(config.rake.percent * 100),
        rake_cap=config.rake.cap,
        rake_no_flop_no_drop=config.rake.no_flop_no_drop,
        action_clock_seconds=int(config.action_seconds),
        time_bank_seconds=int(config.time_bank_seconds),
        hand_limit=config.hand_limit,
        time_limit_seconds=int(config.duration_seconds),
        min_players_to_start=config.min_players_to_start,
        needs_a_person=config.needs_a_person,
        tournament=config.tournament,
        big_blind_ante=config.big_blind_ante,
        separate_spectator_chat=config.separate_spectator_chat,
        run_it_max=config.run_it_max,
        rabbit_hunt=config.rabbit_hunt,
        bomb_pot_ante=config.bomb_pot_ante,
        bomb_pot_every=config.bomb_pot_every,
        bomb_pot_vote=config.bomb_pot_vote,
    )


BOT_DIFFICULTIES: dict[BotDifficulty, pb.BotDifficulty.ValueType] = {
    BotDifficulty.EASY: pb.BOT_DIFFICULTY_EASY,
    BotDifficulty.NORMAL: pb.BOT_DIFFICULTY_NORMAL,
    BotDifficulty.HARD: pb.BOT_DIFFICULTY_HARD,
}
_BOT_DIFFICULTY_VALUES = {v: k for k, v in BOT_DIFFICULTIES.items()}


def bot_difficulty_from_proto(value: pb.BotDifficulty.ValueType) -> BotDifficulty | None:
    """The level a wire value names; None for UNSPECIFIED or an unknown value (the table seats
    a bot without one at NORMAL)."""
    return _BOT_DIFFICULTY_VALUES.get(value)


def bot_difficulty_to_proto(level: BotDifficulty | None) -> pb.BotDifficulty.ValueType:
    return pb.BOT_DIFFICULTY_UNSPECIFIED if level is None else BOT_DIFFICULTIES[level]
