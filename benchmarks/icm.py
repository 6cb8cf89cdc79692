"""Hard's prize decisions (``libs/ai/shortstack/prizes.py``) in a field of each size: the
processor time of one push-or-fold decision, first in at a six-handed table at 10 big blinds
(the costliest: the prices of being called by each of the five behind) and facing a push, with
the other tables' stacks and the places still paid as a tournament's bubble gives them. Rows:
``icm: N left, P paid`` with first-in decisions per second against the rate Hard's default
budget (200 ms a decision) allows; stderr prints both spots' milliseconds and whether the field
was priced exactly or sampled. Processor time, not wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import replace

from benchmarks import Result
from libs.ai import DEFAULT_BUDGET, SeatView
from libs.ai.shortstack.prizes import prize_model, prize_push_or_fold
from libs.ai.view import Prizes
from libs.poker import BettingStructure, Variant
from tests.ai.spots import BB, Hand

NAME = "icm"
DESCRIPTION = "Hard's prize-equity decisions: processor time per decision by field size"
#: (players left, places paid): a sit-and-go, a final table, bubbles of growing fields.
FIELDS = ((6, 3), (9, 9), (13, 12), (20, 3), (30, 4), (100, 15), (1000, 150))
NLHE = (Variant.HOLDEM, BettingStructure.NO_LIMIT)
HOLES = ["5h4c", "Jc2s", "AsQd", "9h3s", "7d2c", "8s6h"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repeat", type=int, default=5, help="decisions timed per spot")
    parser.add_argument("--seed", type=int, default=2024)


def _spots(left: int, paid: int, rng: random.Random) -> tuple[SeatView, SeatView]:
    payouts = tuple(sorted((rng.randint(100, 10_000) for _ in range(paid)), reverse=True))
    others = tuple(rng.randint(3 * BB, 60 * BB) for _ in range(left - len(HOLES)))
    stacks = [10 * BB] * len(HOLES)
    first_in = Hand(*NLHE, HOLES, stacks).view()  # under the gun, five behind
    facing = Hand(*NLHE, HOLES, stacks)
    facing.raise_to(facing.view().options.all_in_to)
    for _ in range(len(HOLES) - 2):
        facing.fold()  # to the big blind
    prizes = Prizes(payouts, others)
    return replace(first_in, prizes=prizes), replace(facing.view(), prizes=prizes)


def _cost(view: SeatView, repeat: int) -> float:
    prize_push_or_fold(view)  # the charts and equity tables load once
    started = time.process_time()
    for _ in range(repeat):
        if prize_push_or_fold(view) is None:
            raise AssertionError("not a prize push-or-fold spot")
    return (time.process_time() - started) / repeat


def run(args: argparse.Namespace) -> list[Result]:
    rng = random.Random(args.seed)
    results: list[Result] = []
    for left, paid in FIELDS:
        first_in, facing = _spots(left, paid, rng)
        model = prize_model(first_in)
        assert model is not None
        how = "exact" if model.exact(first_in.players) else f"sampled ({model.samples} draws)"
        pushing, calling = _cost(first_in, args.repeat), _cost(facing, args.repeat)
        print(
            f"[icm] {left:5d} left {paid:4d} paid  first in {1000 * pushing:7.2f} ms  "
            f"facing a push {1000 * calling:7.2f} ms  {how}",
            file=sys.stderr,
        )
        results.append(
            Result(f"icm: {left} left, {paid} paid", 1 / pushing, "budget", 1 / DEFAULT_BUDGET)
        )
    return results
