"""A table's settings: game, stakes, buy-ins, clock and room limits, validated at creation."""

from __future__ import annotations

from dataclasses import dataclass, field

from libs.poker.config import NO_RAKE, BettingStructure, RakeRule, Variant, fixed_limit_blinds
from libs.poker.errors import InvalidCommand

INVALID_TABLE_CONFIG = "INVALID_TABLE_CONFIG"


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Stakes: ``small_blind``/``big_blind`` for no-limit and pot-limit. For fixed-limit,
    ``big_blind`` is the small bet (the big bet is twice that) and the small blind is derived
    (half the small bet, rounded down): build those with ``TableConfig.fixed_limit``.

    Buy-ins default to 20 and 100 big blinds; fixed-limit tables require at least 10 small bets.
    ``hand_limit`` (hands) and ``duration_seconds`` close the room after the hand in progress.
    Hands start automatically while at least ``min_players_to_start`` players are ready.
    """

    variant: Variant = Variant.HOLDEM
    structure: BettingStructure = BettingStructure.NO_LIMIT
    seats: int = 6
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    straddle: bool = False
    min_buy_in: int = 0
    max_buy_in: int = 0
    rake: RakeRule = field(default=NO_RAKE)
    action_seconds: float = 30.0
    time_bank_seconds: float = 60.0
    timeouts_before_sit_out: int = 2
    hand_limit: int = 0
    duration_seconds: float = 0.0
    min_players_to_start: int = 2

    def __post_init__(self) -> None:
        def bad(message: str) -> InvalidCommand:
            return InvalidCommand(INVALID_TABLE_CONFIG, message)

        if not 2 <= self.seats <= 10:
            raise bad(f"a table has 2 to 10 seats, not {self.seats}")
        if self.big_blind <= 0 or self.small_blind <= 0 or self.small_blind > self.big_blind:
            raise bad("blinds must be positive with the small blind at most the big blind")
        if self.ante < 0:
            raise bad("the ante must not be negative")
        if self.min_buy_in <= 0:
            object.__setattr__(self, "min_buy_in", 20 * self.big_blind)
        if self.max_buy_in <= 0:
            object.__setattr__(self, "max_buy_in", max(100 * self.big_blind, self.min_buy_in))
        if self.structure is BettingStructure.FIXED_LIMIT:
            if self.straddle:
                raise bad("no straddle at fixed-limit tables")
            if self.small_blind != fixed_limit_blinds(self.big_blind)[0]:
                raise bad(
                    "at fixed-limit tables the small blind is half the small bet, rounded down"
                )
            if self.min_buy_in < 10 * self.big_blind:
                raise bad("fixed-limit tables require a buy-in of at least 10 small bets")
        if self.min_buy_in > self.max_buy_in:
            raise bad("the minimum buy-in is above the maximum")
        if self.action_seconds <= 0 or self.time_bank_seconds < 0:
            raise bad("the action clock must be positive and the time bank not negative")
        if self.timeouts_before_sit_out < 1:
            raise bad("timeouts_before_sit_out must be at least 1")
        if not 2 <= self.min_players_to_start <= self.seats:
            raise bad(f"min_players_to_start must be within 2..{self.seats}")
        if self.hand_limit < 0 or self.duration_seconds < 0:
            raise bad("room limits must not be negative")

    @staticmethod
    def fixed_limit(small_bet: int, **kwargs: object) -> TableConfig:
        small_blind, big_blind = fixed_limit_blinds(small_bet)
        return TableConfig(
            structure=BettingStructure.FIXED_LIMIT,
            small_blind=small_blind,
            big_blind=big_blind,
            **kwargs,  # type: ignore[arg-type]
        )
