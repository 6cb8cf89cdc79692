"""The ladder: the matches that show hard > normal > easy > call and random, heads-up and 6-max,
on no-limit hold'em and on pot-limit Omaha hi-lo, each with its 95% interval above zero.

Each rung is one arena match (A against a table of B) with the number of hands fixed in advance
(from pilot runs, so the interval is not the result of stopping when it looked good);
``run_ladder`` plays them and ``markdown`` prints the table kept in docs/ai.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from libs.poker.config import BettingStructure, Variant

from .arena import LevelPlayer, MatchConfig, MatchResult, Progress, run_match
from .policy import Level

#: Seconds per decision in ladder matches: far above what any decision takes, so Hard's sample
#: cap binds and never the clock, and the same seed gives the same table on any machine.
LADDER_BUDGET = 10.0

NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)
PLO8 = (Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT)


@dataclass(frozen=True)
class Rung:
    a: Level
    b: Level
    variant: Variant
    structure: BettingStructure
    seats: int
    hands: int

    @property
    def setting(self) -> str:
        game = "NLHE" if self.variant is Variant.HOLDEM else "PLO8"
        return f"{game} {'heads-up' if self.seats == 2 else f'{self.seats}-max'}"


def _rungs(game: tuple[Variant, BettingStructure], seats: int, hands: Sequence[int]) -> list[Rung]:
    pairs = (
        (Level.HARD, Level.NORMAL),
        (Level.NORMAL, Level.EASY),
        (Level.EASY, Level.CALL),
        (Level.EASY, Level.RANDOM),
    )
    return [Rung(a, b, game[0], game[1], seats, n) for (a, b), n in zip(pairs, hands, strict=True)]


#: Hands per rung: hard-normal, normal-easy, easy-call, easy-random.
LADDER: tuple[Rung, ...] = (
    *_rungs(NLHE, 2, (30_000, 20_000, 4_000, 4_000)),
    *_rungs(NLHE, 6, (40_000, 30_000, 6_000, 6_000)),
    *_rungs(PLO8, 2, (16_000, 20_000, 4_000, 4_000)),
    *_rungs(PLO8, 6, (18_000, 18_000, 6_000, 6_000)),
)


def run_ladder(
    rungs: Sequence[Rung],
    seed: int = 1,
    scale: float = 1.0,
    budget: float = LADDER_BUDGET,
    progress: Callable[[Rung], Progress | None] | None = None,
    base: MatchConfig | None = None,
) -> list[tuple[Rung, MatchResult]]:
    """Play every rung (``scale`` times its hands, at least one duplicate group)."""
    out: list[tuple[Rung, MatchResult]] = []
    for rung in rungs:
        config = replace(
            base or MatchConfig(),
            variant=rung.variant,
            structure=rung.structure,
            seats=rung.seats,
            seed=seed,
        )
        hands = max(rung.seats, round(rung.hands * scale))
        result = run_match(
            LevelPlayer(rung.a, budget),
            LevelPlayer(rung.b, budget),
            hands,
            config,
            progress(rung) if progress else None,
        )
        out.append((rung, result))
    return out


def holds(result: MatchResult) -> bool:
    """A's whole 95% interval is above zero."""
    ci = result.summary().ci95
    return ci is not None and ci[0] > 0


def markdown(results: Sequence[tuple[Rung, MatchResult]]) -> str:
    lines = [
        "| setting | A | B | hands | A mbb/hand | 95% interval | sd per group | "
        "hands needed | interval > 0 |",
        "|---|---|---|---:|---:|---|---:|---:|---|",
    ]
    for rung, result in results:
        s = result.summary()
        ci = f"[{s.ci95[0]:+,.0f}, {s.ci95[1]:+,.0f}]" if s.ci95 else "n/a"
        needed = s.needed(rung.seats)
        lines.append(
            f"| {rung.setting} | {rung.a.value} | {rung.b.value} | {result.hands:,} "
            f"| {s.mean:+,.0f} | {ci} | {s.sd:,.0f} | "
            f"{f'{needed:,}' if needed else 'n/a'} | {'yes' if holds(result) else 'NO'} |"
        )
    return "\n".join(lines)
