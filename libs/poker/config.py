"""What a hand is played with: variant, betting structure, forced bets, limits and rake."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Variant(StrEnum):
    """The games we deal."""

    HOLDEM = "holdem"
    OMAHA = "omaha"
    OMAHA_HI_LO = "omaha_hi_lo"

    @property
    def hole_card_count(self) -> int:
        return 2 if self is Variant.HOLDEM else 4


class BettingStructure(StrEnum):
    NO_LIMIT = "no_limit"
    POT_LIMIT = "pot_limit"
    FIXED_LIMIT = "fixed_limit"


@dataclass(frozen=True, slots=True)
class RakeRule:
    """Rake: ``percent`` of each pot (rounded down), at most ``cap`` per hand (0 = no cap).

    With ``no_flop_no_drop`` nothing is taken from a hand that ends before the flop.
    """

    percent: float = 0.0
    cap: int = 0
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.percent <= 100.0:
            raise ValueError(f"rake percent must be within 0..100, got {self.percent}")
        if self.cap < 0:
            raise ValueError(f"rake cap must not be negative, got {self.cap}")


NO_RAKE = RakeRule()


@dataclass(frozen=True, slots=True)
class HandConfig:
    """Rules for one hand, by position.

    Positions run clockwise from the first seat left of the button (position 0) to the button
    (position n-1). ``blinds`` and ``antes`` give each position's forced bets: the table layer
    puts the small blind at position 0 and the big blind at 1 (heads-up: big blind at 0 and the
    button's small blind at 1), a straddle at the next position. The largest blind is the bet to
    call preflop and the size of the first raise; action starts left of it.

    ``min_bet`` is the big blind for no-limit and pot-limit, the small bet for fixed-limit;
    ``big_bet`` (fixed-limit turn and river) defaults to twice the small bet.

    ``big_blind_position`` names the position whose blind the others must call (the big blind,
    or the straddle); action starts left of it. By default it is the largest blind (the last
    one when several are equal). The table sets it when a player posts an entry bet the size
    of the big blind elsewhere: that bet is live, but the big blind still closes the action.

    ``dead_blinds`` (by position) are posted before the deal as dead money into the main pot:
    the table charges a returning player's missed small blind this way.

    Antes normally count toward what each player has put in (a player all-in for less is
    eligible only up to that amount from everyone). With ``dead_antes`` (big-blind ante style)
    all antes go whole into the main pot instead.

    ``run_it_max`` (1 to 3): when the board is run out with no betting left, the players in the
    hand may agree to deal the rest of it up to this many times (``libs.poker.runs``); 1 = never
    offered.

    ``bomb_pot``: every player antes (``antes``, no blinds) and there is no preflop betting:
    the hand starts on the flop, first to act the first active position left of the button
    (position 0). A player whose stack does not cover the ante is all in for what they have.
    """

    variant: Variant
    structure: BettingStructure
    blinds: tuple[int, ...]
    antes: tuple[int, ...] = ()
    min_bet: int = 0
    big_bet: int = 0
    rake: RakeRule = field(default=NO_RAKE)
    dead_antes: bool = False
    big_blind_position: int | None = None
    dead_blinds: tuple[int, ...] = ()
    run_it_max: int = 1
    bomb_pot: bool = False

    def __post_init__(self) -> None:
        n = len(self.blinds)
        if not 2 <= n <= 10:
            raise ValueError(f"a hand needs 2 to 10 players, got {n}")
        if self.antes and len(self.antes) != n:
            raise ValueError("antes must give one amount per position")
        if any(b < 0 for b in self.blinds) or any(a < 0 for a in self.antes):
            raise ValueError("forced bets must not be negative")
        if self.min_bet <= 0:
            object.__setattr__(self, "min_bet", max(max(self.blinds), 1))
        if self.big_bet <= 0:
            object.__setattr__(self, "big_bet", 2 * self.min_bet)
        if not self.antes:
            object.__setattr__(self, "antes", (0,) * n)
        if not self.dead_blinds:
            object.__setattr__(self, "dead_blinds", (0,) * n)
        elif len(self.dead_blinds) != n or any(d < 0 for d in self.dead_blinds):
            raise ValueError("dead_blinds must give one amount (>= 0) per position")
        if not 1 <= self.run_it_max <= 3:
            raise ValueError(f"run_it_max must be 1..3, not {self.run_it_max}")
        if self.bomb_pot and (any(self.blinds) or not any(self.antes)):
            raise ValueError("a bomb pot has antes and no blinds")
        if self.big_blind_position is not None and not 0 <= self.big_blind_position < n:
            raise ValueError(f"big_blind_position must be a position 0..{n - 1}")

    @property
    def player_count(self) -> int:
        return len(self.blinds)

    def street_bet(self, street: int) -> int:
        """Smallest bet on a street; for fixed-limit also the size of every bet and raise."""
        if self.structure is BettingStructure.FIXED_LIMIT and street >= 2:
            return self.big_bet
        return self.min_bet


def fixed_limit_blinds(small_bet: int) -> tuple[int, int]:
    """Small and big blind of a fixed-limit table: BB = small bet, SB = half, rounded down.

    A small bet of 1 cannot be halved into whole chips, so its small blind is 1 as well.
    """
    if small_bet < 1:
        raise ValueError("the small bet must be at least 1")
    return max(small_bet // 2, 1), small_bet


def position_blinds(
    player_count: int, small_blind: int, big_blind: int, straddle: int = 0
) -> tuple[int, ...]:
    """Blinds by position for a ring game (heads-up: the button, position 1, posts the SB)."""
    if player_count == 2:
        if straddle:
            raise ValueError("no straddle heads-up")
        return (big_blind, small_blind)
    blinds = [0] * player_count
    blinds[0], blinds[1] = small_blind, big_blind
    if straddle:
        blinds[2] = straddle
    return tuple(blinds)
