"""AI decisions: decisions per second and p99 decision time of each level, per variant.

Spots come from random 6-max hands played through the engine (seeded: every level sees the
same spots, on every street); each level then decides each spot once, in-process, with the
service's default time budget (200 ms). Rows: ``ai: LEVEL VARIANT`` with decisions per second
against the rate a decision taking the p99 time would give (``1 / p99``); stderr prints p50,
p99 and the slowest decision in milliseconds. Hold'em is no-limit, the Omaha variants
pot-limit.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from benchmarks import Result
from libs.ai import DEFAULT_BUDGET, Level, SeatView, decide, warm_up
from libs.ai.arena import LevelPlayer, MatchConfig, run_match
from libs.poker.config import BettingStructure, Variant

NAME = "ai"
DESCRIPTION = "AI decisions/s and p99 decision time per level and variant"
GAMES = (
    (Variant.HOLDEM, BettingStructure.NO_LIMIT),
    (Variant.OMAHA, BettingStructure.POT_LIMIT),
    (Variant.OMAHA_HI_LO, BettingStructure.POT_LIMIT),
)
LEVELS = (Level.EASY, Level.NORMAL, Level.HARD)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spots", type=int, default=300, help="decision spots per variant")
    parser.add_argument("--seed", type=int, default=2024)


class _Collector:
    """Plays like the random baseline and keeps every view it is shown."""

    name = "collector"

    def __init__(self) -> None:
        self.views: list[SeatView] = []

    def act(self, view: SeatView, seed: int) -> object:
        self.views.append(view)
        return LevelPlayer(Level.RANDOM).act(view, seed)


def spots(variant: Variant, structure: BettingStructure, count: int, seed: int) -> list[SeatView]:
    collector = _Collector()
    config = MatchConfig(variant, structure, seats=6, seed=seed)
    hands = 6
    while len(collector.views) < count:
        collector.views.clear()
        run_match(collector, collector, hands, config)  # type: ignore[arg-type]
        hands *= 2
    views = collector.views
    random.Random(seed).shuffle(views)
    return views[:count]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(args: argparse.Namespace) -> list[Result]:
    warm_up()
    results: list[Result] = []
    for variant, structure in GAMES:
        views = spots(variant, structure, args.spots, args.seed)
        for level in LEVELS:
            decide(views[0], level, 1, DEFAULT_BUDGET)  # first-call costs out of the timing
            times: list[float] = []
            for i, view in enumerate(views):
                started = time.perf_counter()
                decide(view, level, i + 1, DEFAULT_BUDGET)
                times.append(time.perf_counter() - started)
            rate = len(times) / sum(times)
            p50, p99 = _percentile(times, 0.5), _percentile(times, 0.99)
            print(
                f"[ai] {level.value:6s} {variant.value:11s} {structure.value:9s} "
                f"{rate:8,.0f} decisions/s  p50 {1000 * p50:6.2f} ms  p99 {1000 * p99:6.2f} ms  "
                f"max {1000 * max(times):6.2f} ms  ({len(times)} spots)",
                file=sys.stderr,
            )
            results.append(
                Result(
                    f"ai: {level.value} {variant.value}, p99 {1000 * p99:.1f} ms",
                    rate,
                    "1 / p99",
                    1 / p99,
                )
            )
    return results
