"""holdem.tournament.v1 to and from libs.tournament: the config a caller sends (checked here for
what the wire can get wrong - an unknown enum, a preset that does not exist - and then by the
aggregate's own validator when it is created), and what a tournament shows (``standings``'
summary, clock and standings). Every refusal is a ``libs.errors`` kind with a message naming the
setting; nothing is half converted."""

from __future__ import annotations

import math
from collections.abc import Iterable

from holdem.common.v1 import common_pb2
from holdem.tournament.v1 import tournament_pb2 as pb

from libs.errors import InvalidArgument
from libs.table.config import BotDifficulty
from libs.tableproto.config import STRUCTURES, VARIANTS, bot_difficulty_from_proto
from libs.tableproto.config import variant_to_proto as _variant_to_proto
from libs.tournament import standings
from libs.tournament.config import AddOnRule, RebuyRule, TournamentConfig, TournamentKind
from libs.tournament.errors import INVALID_TOURNAMENT_CONFIG
from libs.tournament.payouts import DEFAULT_PAYOUTS, PayoutTable, PayoutTier
from libs.tournament.state import TournamentState
from libs.tournament.structure import BlindLevel, BlindStructure, LevelUnit, preset

KINDS: dict[pb.TournamentKind.ValueType, TournamentKind] = {
    pb.TOURNAMENT_KIND_SIT_AND_GO: TournamentKind.SIT_AND_GO,
    pb.TOURNAMENT_KIND_SCHEDULED: TournamentKind.SCHEDULED,
}
_KIND_VALUES = {v: k for k, v in KINDS.items()}
UNITS: dict[pb.LevelUnit.ValueType, LevelUnit] = {
    pb.LEVEL_UNIT_MINUTES: LevelUnit.MINUTES,
    pb.LEVEL_UNIT_HANDS: LevelUnit.HANDS,
}
_UNIT_VALUES = {v: k for k, v in UNITS.items()}
_STRUCTURE_VALUES = {v: k for k, v in STRUCTURES.items()}
DEFAULTS = TournamentConfig("defaults", TournamentKind.SIT_AND_GO)


def _refuse(problem: str) -> InvalidArgument:
    return InvalidArgument(INVALID_TOURNAMENT_CONFIG, problem)


# ---- the config, from the wire ------------------------------------------------------------------


def config_from_proto(msg: pb.TournamentConfig) -> TournamentConfig:
    """The settings ``msg`` asks for (a field left 0 takes ``TournamentConfig``'s default).
    Raises InvalidArgument for what cannot be a setting at all; ``validate_config`` (run when
    the tournament is created) refuses the rest."""
    kind = KINDS.get(msg.kind)
    if kind is None:
        raise _refuse("kind must be sit & go or scheduled")
    if msg.variant and msg.variant not in VARIANTS:
        raise _refuse(f"unknown variant {msg.variant}")
    if msg.betting and msg.betting not in STRUCTURES:
        raise _refuse(f"unknown betting structure {msg.betting}")
    if not math.isfinite(msg.start_at):
        raise _refuse("start_at must be a time (seconds since the epoch)")
    variant = VARIANTS[msg.variant] if msg.variant else DEFAULTS.variant
    betting = STRUCTURES[msg.betting] if msg.betting else DEFAULTS.betting
    return TournamentConfig(
        name=msg.name,
        kind=kind,
        variant=variant,
        betting=betting,
        seats_per_table=msg.seats_per_table or DEFAULTS.seats_per_table,
        starting_stack=msg.starting_stack or DEFAULTS.starting_stack,
        buy_in=msg.buy_in,
        fee=msg.fee,
        min_entrants=msg.min_entrants or DEFAULTS.min_entrants,
        max_entrants=msg.max_entrants or DEFAULTS.max_entrants,
        start_at=msg.start_at,
        late_registration_levels=msg.late_registration_levels,
        structure=structure_from_proto(msg.structure),
        payouts=_payouts_from_proto(msg.payouts),
        rebuy=_rebuy_from_proto(msg.rebuy) if msg.HasField("rebuy") else None,
        add_on=_add_on_from_proto(msg.add_on) if msg.HasField("add_on") else None,
        hand_for_hand_places=tuple(msg.hand_for_hand_places),
        hand_for_hand_at_bubble=not msg.no_hand_for_hand_at_bubble,
    )


def structure_from_proto(msg: pb.BlindStructure) -> BlindStructure:
    unit = UNITS.get(msg.unit)
    if unit is None:
        raise _refuse("the structure's unit must be minutes or hands")
    if not msg.levels:
        return preset(msg.name, unit)  # UNKNOWN_PRESET names the presets
    levels = tuple(
        BlindLevel(
            small_blind=level.small_blind,
            big_blind=level.big_blind,
            ante=level.ante,
            big_blind_ante=level.big_blind_ante,
            length=level.length,
            break_minutes=level.break_minutes,
        )
        for level in msg.levels
    )
    return BlindStructure(msg.name or "custom", unit, levels)


def _payouts_from_proto(tiers: Iterable[pb.PayoutTier]) -> PayoutTable:
    wire = list(tiers)
    if not wire:
        return DEFAULT_PAYOUTS
    return PayoutTable(tuple(PayoutTier(t.up_to, tuple(t.shares)) for t in wire))


def _rebuy_from_proto(msg: pb.RebuyRule) -> RebuyRule:
    return RebuyRule(
        chips=msg.chips,
        cost=msg.cost,
        last_level=msg.last_level,
        max_rebuys=msg.max_rebuys,
        threshold=msg.threshold,
        decision_seconds=msg.decision_seconds or 30.0,
    )


def _add_on_from_proto(msg: pb.AddOnRule) -> AddOnRule:
    return AddOnRule(chips=msg.chips, cost=msg.cost, after_level=msg.after_level)


def bot_level_from_proto(is_bot: bool, value: common_pb2.BotDifficulty.ValueType) -> str:
    """The level of an AI entrant ("" for a person); a bot without one plays normal."""
    if not is_bot:
        return ""
    level = bot_difficulty_from_proto(value)
    return (level or BotDifficulty.NORMAL).value


# ---- the config, to the wire --------------------------------------------------------------------


def config_to_proto(c: TournamentConfig) -> pb.TournamentConfig:
    msg = pb.TournamentConfig(
        name=c.name,
        kind=_KIND_VALUES[c.kind],
        variant=_variant_to_proto(c.variant),
        betting=_STRUCTURE_VALUES[c.betting],
        seats_per_table=c.seats_per_table,
        starting_stack=c.starting_stack,
        buy_in=c.buy_in,
        fee=c.fee,
        min_entrants=c.min_entrants,
        max_entrants=c.max_entrants,
        start_at=c.start_at,
        late_registration_levels=c.late_registration_levels,
        structure=pb.BlindStructure(
            name=c.structure.name,
            unit=_UNIT_VALUES[c.structure.unit],
            levels=[
                pb.BlindLevel(
                    small_blind=level.small_blind,
                    big_blind=level.big_blind,
                    ante=level.ante,
                    big_blind_ante=level.big_blind_ante,
                    length=level.length,
                    break_minutes=level.break_minutes,
                )
                for level in c.structure.levels
            ],
        ),
        payouts=[pb.PayoutTier(up_to=t.up_to, shares=t.shares) for t in c.payouts.tiers],
        hand_for_hand_places=c.hand_for_hand_places,
        no_hand_for_hand_at_bubble=not c.hand_for_hand_at_bubble,
    )
    if c.rebuy is not None:
        r = c.rebuy
        msg.rebuy.CopyFrom(
            pb.RebuyRule(
                chips=r.chips,
                cost=r.cost,
                last_level=r.last_level,
                max_rebuys=r.max_rebuys,
                threshold=r.threshold,
                decision_seconds=r.decision_seconds,
            )
        )
    if c.add_on is not None:
        a = c.add_on
        msg.add_on.CopyFrom(pb.AddOnRule(chips=a.chips, cost=a.cost, after_level=a.after_level))
    return msg


# ---- what a tournament shows --------------------------------------------------------------------


def summary_to_proto(s: TournamentState, now: float) -> pb.TournamentSummary:
    view = standings.summary(s, now)
    msg = pb.TournamentSummary(
        tournament_id=s.tournament_id,
        name=s.cfg.name if s.config is not None else "",
        kind=_KIND_VALUES[s.cfg.kind] if s.config is not None else pb.TOURNAMENT_KIND_UNSPECIFIED,
        status=view.status,
        entrants=view.entrants,
        players_left=view.players_left,
        tables=view.tables,
        most_tables=view.most_tables,
        prize_pool=view.prize_pool,
        paid_places=view.paid_places,
        prizes=view.prizes,
        chips_in_play=view.chips_in_play,
        average_stack=view.average_stack,
        largest_stack=view.largest_stack,
        hands=view.hands,
        moves=view.moves,
        hand_for_hand_rounds=view.hand_for_hand_rounds,
        max_entrants=s.cfg.max_entrants if s.config is not None else 0,
        buy_in=s.cfg.buy_in if s.config is not None else 0,
        starting_stack=s.cfg.starting_stack if s.config is not None else 0,
        payments_owed=len(s.payments),
        level=s.level,
    )
    if view.clock is not None:
        c = view.clock
        msg.clock.CopyFrom(
            pb.TournamentClock(
                level=c.level,
                small_blind=c.blinds.small_blind,
                big_blind=c.blinds.big_blind,
                ante=c.blinds.ante,
                on_break=c.on_break,
                break_due=c.break_due,
                hand_for_hand=c.hand_for_hand,
                next_change=c.next_change,
                seconds_left=-1.0 if c.seconds_left is None else c.seconds_left,
            )
        )
    return msg


def tournament_to_proto(s: TournamentState, now: float) -> pb.Tournament:
    rows = [
        pb.Standing(
            player_id=r.player_id,
            stack=r.stack,
            table_id=r.table_id,
            seat=r.seat,
            place=r.place,
            tied=r.tied,
            prize=r.prize,
            is_bot=s.entrants[r.player_id].is_bot,
        )
        for r in standings.standings(s)
    ]
    return pb.Tournament(
        summary=summary_to_proto(s, now), standings=rows, config=config_to_proto(s.cfg)
    )
