"""A tournament's settings (kind, game, field, chips, structure, payouts, rebuys and add-on,
hand-for-hand) and their one validator, which ``decide`` runs on creation.

Kinds: a *sit & go* starts when its ``max_entrants`` seats fill (one table or several);
a *scheduled* tournament starts at ``start_at`` with at least ``min_entrants`` (else it is
cancelled and everyone refunded) and may take late registrations through a level. Heads-up
is a sit & go of two at tables of two (``heads_up``); a freezeout has no rebuy and no add-on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from libs.errors import InvalidArgument
from libs.poker.config import BettingStructure, Variant
from libs.table.config import MAX_CHIPS, TableConfig, TableConfigError

from .errors import INVALID_STRUCTURE, INVALID_TOURNAMENT_CONFIG
from .payouts import DEFAULT_PAYOUTS, PayoutTable, validate_payouts
from .structure import BlindStructure, preset, validate_structure

MAX_ENTRANTS = 10_000
MAX_NAME = 64
MAX_DECISION_SECONDS = 600.0


class TournamentKind(StrEnum):
    SIT_AND_GO = "sit_and_go"
    SCHEDULED = "scheduled"


@dataclass(frozen=True, slots=True)
class RebuyRule:
    """Rebuys of ``chips`` for ``cost`` through level ``last_level``, for a player whose stack
    is at most ``threshold`` (0: the starting stack), at most ``max_rebuys`` each (0: no
    limit). A player who busts in the period may rebuy within ``decision_seconds`` (they keep
    their seat meanwhile, dealt out) or is eliminated."""

    chips: int
    cost: int
    last_level: int
    max_rebuys: int = 0
    threshold: int = 0
    decision_seconds: float = 30.0


@dataclass(frozen=True, slots=True)
class AddOnRule:
    """One add-on each of ``chips`` for ``cost``, offered during the break after level
    ``after_level`` (the structure must have a break there)."""

    chips: int
    cost: int
    after_level: int


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    kind: TournamentKind
    variant: Variant = Variant.HOLDEM
    betting: BettingStructure = BettingStructure.NO_LIMIT
    seats_per_table: int = 9
    starting_stack: int = 1_500
    buy_in: int = 100  # wallet chips into the prize pool per entry
    fee: int = 0  # wallet chips to the house per entry (none by default: virtual chips)
    min_entrants: int = 2
    max_entrants: int = 9
    start_at: float = 0.0  # scheduled only
    late_registration_levels: int = 0  # scheduled only: registration open through this level
    structure: BlindStructure = field(default_factory=lambda: preset("regular"))
    payouts: PayoutTable = DEFAULT_PAYOUTS
    rebuy: RebuyRule | None = None
    add_on: AddOnRule | None = None
    # Besides the bubble, the places decided hand for hand: while the next elimination decides
    # one of them, every table deals one hand at a time and waits for the others.
    hand_for_hand_places: tuple[int, ...] = ()
    hand_for_hand_at_bubble: bool = True

    @property
    def freezeout(self) -> bool:
        return self.rebuy is None and self.add_on is None

    @property
    def rebuy_threshold(self) -> int:
        if self.rebuy is None:
            return 0
        return self.rebuy.threshold or self.starting_stack


def heads_up(name: str, **settings: object) -> TournamentConfig:
    """A heads-up sit & go: two players at one table of two."""
    return TournamentConfig(
        name,
        TournamentKind.SIT_AND_GO,
        seats_per_table=2,
        min_entrants=2,
        max_entrants=2,
        **settings,  # type: ignore[arg-type]
    )


def _refuse(problem: str) -> InvalidArgument:
    return InvalidArgument(INVALID_TOURNAMENT_CONFIG, problem)


def validate_config(config: TournamentConfig) -> None:
    """Refuse settings no tournament could run with, naming the setting and what it must be."""
    if not 1 <= len(config.name) <= MAX_NAME:
        raise _refuse(f"name must be 1..{MAX_NAME} characters")
    if not isinstance(config.kind, TournamentKind):
        raise _refuse("kind must be sit_and_go or scheduled")
    if not 2 <= config.seats_per_table <= 10:
        raise _refuse(f"seats_per_table must be 2..10, not {config.seats_per_table}")
    if not 2 <= config.min_entrants <= config.max_entrants <= MAX_ENTRANTS:
        raise _refuse(
            f"entrants must be 2 <= min_entrants <= max_entrants <= {MAX_ENTRANTS} "
            f"(min {config.min_entrants}, max {config.max_entrants})"
        )
    if config.buy_in < 0 or config.fee < 0 or config.buy_in + config.fee > MAX_CHIPS:
        raise _refuse(f"buy_in and fee must be 0..{MAX_CHIPS} together")
    if not 1 <= config.starting_stack <= MAX_CHIPS // config.max_entrants:
        raise _refuse(
            f"starting_stack must be 1..{MAX_CHIPS // config.max_entrants} for "
            f"{config.max_entrants} entrants"
        )
    if config.kind is TournamentKind.SIT_AND_GO:
        if config.start_at or config.late_registration_levels:
            raise _refuse("a sit & go starts when its seats fill: no start_at, no late entries")
    elif config.start_at <= 0:
        raise _refuse("a scheduled tournament needs start_at (seconds since the epoch)")
    validate_structure(config.structure)
    _check_tables_can_play(config)
    levels = len(config.structure.levels)
    first = config.structure.levels[0]
    if config.starting_stack < first.big_blind:
        raise _refuse(
            f"starting_stack {config.starting_stack} is below the first big blind {first.big_blind}"
        )
    if not 0 <= config.late_registration_levels <= levels:
        raise _refuse(f"late_registration_levels must be 0..{levels} (the levels)")
    sit_and_go = config.kind is TournamentKind.SIT_AND_GO
    validate_payouts(config.payouts, config.max_entrants if sit_and_go else config.min_entrants)
    _check_rebuy_and_add_on(config, levels)
    for place in config.hand_for_hand_places:
        if not 2 <= place <= config.max_entrants:
            raise _refuse(f"hand_for_hand_places: {place} is not a place 2..max_entrants")


def _check_tables_can_play(config: TournamentConfig) -> None:
    """Every level must make a table the table service can open (blinds of the betting
    structure: fixed limit derives its small blind; antes at most the big blind)."""
    for number, level in enumerate(config.structure.levels, start=1):
        try:
            TableConfig(
                variant=config.variant,
                structure=config.betting,
                seats=config.seats_per_table,
                small_blind=level.small_blind,
                big_blind=level.big_blind,
                ante=level.ante,
            )
        except TableConfigError as exc:
            raise InvalidArgument(
                INVALID_STRUCTURE, f"level {number} cannot be dealt: {exc.message}"
            ) from None


def _check_rebuy_and_add_on(config: TournamentConfig, levels: int) -> None:
    rebuy, add_on = config.rebuy, config.add_on
    if rebuy is not None:
        if not 1 <= rebuy.chips <= MAX_CHIPS // config.max_entrants:
            raise _refuse("rebuy chips must be at least 1")
        if not 0 <= rebuy.cost <= MAX_CHIPS:
            raise _refuse(f"rebuy cost must be 0..{MAX_CHIPS}")
        if not 1 <= rebuy.last_level <= levels:
            raise _refuse(f"rebuy last_level must be 1..{levels} (the levels)")
        if rebuy.max_rebuys < 0 or rebuy.threshold < 0:
            raise _refuse("rebuy max_rebuys and threshold must not be negative")
        if not 0 < rebuy.decision_seconds <= MAX_DECISION_SECONDS:
            raise _refuse("rebuy decision_seconds must be more than 0, at most 600")
    if add_on is not None:
        if not 1 <= add_on.chips <= MAX_CHIPS // config.max_entrants:
            raise _refuse("add-on chips must be at least 1")
        if not 0 <= add_on.cost <= MAX_CHIPS:
            raise _refuse(f"add-on cost must be 0..{MAX_CHIPS}")
        if not 1 <= add_on.after_level <= levels:
            raise _refuse(f"add-on after_level must be 1..{levels} (the levels)")
        if config.structure.level(add_on.after_level).break_minutes <= 0:
            raise _refuse(
                f"the add-on is offered at the break after level {add_on.after_level}, "
                "and that level has no break"
            )
