"""One player's statistic counters and the ratios read from them (docs/stats.md defines each).

Counters, not percentages, are what is stored and added: a ratio is worked out when asked, so
hands add up exactly whatever order they are counted in."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Counts:
    """What one or more hands of one player add up to (docs/stats.md)."""

    hands: int = 0  # dealt in, the hand not voided
    preflop_chances: int = 0  # hands with a preflop decision of their own (not a walk)
    vpip: int = 0  # called or raised preflop
    pfr: int = 0  # raised preflop
    three_bet_chances: int = 0  # acted preflop facing exactly one raise (not their own)
    three_bets: int = 0  # re-raised it
    saw_flop: int = 0  # still in the hand when the flop came
    showdowns: int = 0  # still in the hand at its showdown
    showdowns_won: int = 0  # of those, won chips from a pot (any share: hi, lo, a chop)
    bets: int = 0  # postflop
    raises: int = 0  # postflop
    calls: int = 0  # postflop
    checks: int = 0  # postflop
    folds: int = 0  # postflop

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            *(getattr(self, f.name) + getattr(other, f.name) for f in dataclasses.fields(self))
        )

    def as_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, int]) -> Counts:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: int(v) for k, v in data.items() if k in names})


def ratio(part: int, whole: int) -> float | None:
    """``part / whole``; None when there is nothing to divide by (no chance yet)."""
    return part / whole if whole else None


@dataclass(frozen=True)
class Ratios:
    """The usual statistics of a player (None: no chance to show it yet)."""

    vpip: float | None
    pfr: float | None
    three_bet: float | None
    wtsd: float | None
    wsd: float | None
    aggression_factor: float | None  # (bets + raises) / calls, postflop
    aggression_frequency: float | None  # (bets + raises) / (bets + raises + calls + folds)


def ratios(counts: Counts) -> Ratios:
    aggressive = counts.bets + counts.raises
    return Ratios(
        vpip=ratio(counts.vpip, counts.preflop_chances),
        pfr=ratio(counts.pfr, counts.preflop_chances),
        three_bet=ratio(counts.three_bets, counts.three_bet_chances),
        wtsd=ratio(counts.showdowns, counts.saw_flop),
        wsd=ratio(counts.showdowns_won, counts.showdowns),
        aggression_factor=ratio(aggressive, counts.calls),
        aggression_frequency=ratio(aggressive, aggressive + counts.calls + counts.folds),
    )
