"""Evaluations per second: our evaluator against phevaluator, eval7, treys and PokerKit.

Every side gets the same pre-generated hands (seeded), converted beforehand to its own card type,
and everything runs in one process, interleaved, best of ``--rounds`` on wall-clock time (numpy's
batch code and the C extensions are measured the same way). Rows:

- ``7-card per call``: ``FastEvaluator().high(cards)`` on a list of ints vs ``eval7.evaluate``,
  phevaluator's C entry point ``_pheval.evaluate_7cards`` (the C core with one Python call per
  hand) and treys. Ours is the C extension ``libs.poker.fast._native`` when it is built (the
  default with a C compiler at install time), else the pure-Python walk over the same tables;
  the run prints which one it measured (stderr). The per-call Omaha rows use the same one;
- ``7-card batch``: ``high_batch`` over a ``[N, 7]`` uint8 array vs phevaluator's C core. The
  batch rows and the equity rows run the extension's batch kernels (and its runout sampler) when
  it is built, else numpy (the stderr line says which);
- ``Omaha high batch`` / ``per call``: ``omaha_high_batch`` and ``FastEvaluator().omaha_high``
  vs ``_pheval.evaluate_omaha_cards``;
- ``Omaha hi-lo low``: ``omaha_low_batch`` (and per call) vs ``OmahaEightOrBetterLowHand``;
- ``HU hold'em MC equity``: runouts/s of ``equity`` (Monte Carlo forced) vs eval7's
  ``py_hand_vs_range_monte_carlo`` for one hand against one hand;
- ``6-way O8 equity``: one hand against five random hands on a flop, standard error <= 1.5 %
  within 150 ms: the row reports estimates/s and the p99 latency / worst standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable

import numpy as np

from benchmarks import Result
from libs.poker.cards import DECK
from libs.poker.config import Variant
from libs.poker.equity import equity
from libs.poker.fast import (
    FastEvaluator,
    high_batch,
    omaha_high_batch,
    omaha_low_batch,
    tables,
)
from libs.poker.fast.evaluator import NATIVE_AVAILABLE
from libs.poker.fast.tables import omaha_tables

NAME = "evaluator"
DESCRIPTION = "hand evaluations/s: ours vs phevaluator, eval7, treys and PokerKit"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=int, default=200_000, help="7-card hands per round")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many rounds")
    parser.add_argument("--seed", type=int, default=2024)


def _best_rate(count: int, fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return count / best


def _deals(count: int, cards: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty((count, cards), dtype=np.uint8)
    for begin in range(0, count, 100_000):
        part = min(100_000, count - begin)
        out[begin : begin + part] = np.argsort(rng.random((part, 52)), axis=1)[:, :cards]
    return out


def run(args: argparse.Namespace) -> list[Result]:
    import eval7
    from phevaluator import _pheval
    from pokerkit import OmahaEightOrBetterLowHand
    from treys import Card as TreysCard
    from treys import Evaluator as TreysEvaluator

    tables()
    omaha_tables()
    rounds, n = args.rounds, args.hands
    results: list[Result] = []

    # 7-card hands, shared by every side.
    seven = _deals(n, 7, args.seed)
    seven_lists = seven.tolist()
    ours = FastEvaluator()
    ours.high(seven_lists[0])
    implementation = "C extension libs.poker.fast._native" if ours.native else "pure Python"
    print(f"[evaluator] per-call rows measure: {implementation}", file=sys.stderr)
    batch_code = "C kernels of" if NATIVE_AVAILABLE else "numpy (no)"
    print(f"[evaluator] batch and equity rows measure: {batch_code} the extension", file=sys.stderr)
    eval7_cards = [eval7.Card(str(c)) for c in DECK]
    eval7_hands = [[eval7_cards[c] for c in h] for h in seven_lists]
    treys = TreysEvaluator()
    treys_cards = [TreysCard.new(str(c)) for c in DECK]
    treys_n = min(n, 20_000)
    treys_hands = [
        ([treys_cards[c] for c in h[:2]], [treys_cards[c] for c in h[2:]])
        for h in seven_lists[:treys_n]
    ]
    high, ev7, phe7 = ours.high, eval7.evaluate, _pheval.evaluate_7cards

    # Every per-call side runs the same loop shape (a list comprehension over prepared hands).
    ours_call_rate = _best_rate(n, lambda: [high(h) for h in seven_lists], rounds)
    eval7_rate = _best_rate(n, lambda: [ev7(h) for h in eval7_hands], rounds)
    phe_rate = _best_rate(n, lambda: [phe7(*h) for h in seven_lists], rounds)
    treys_rate = _best_rate(treys_n, lambda: [treys.evaluate(a, b) for a, b in treys_hands], rounds)
    batch_rate = _best_rate(n, lambda: high_batch(seven), rounds)
    results += [
        Result("7-card per call", ours_call_rate, "eval7", eval7_rate),
        Result("7-card per call", ours_call_rate, "phevaluator C (per call)", phe_rate),
        Result("7-card per call", ours_call_rate, "treys", treys_rate),
        Result("7-card batch", batch_rate, "phevaluator C (per call)", phe_rate),
        Result("7-card batch", batch_rate, "eval7", eval7_rate),
    ]

    # Omaha: 4 hole + 5 board.
    m = max(n // 2, 1_000)
    nine = _deals(m, 9, args.seed + 1)
    hole, board = np.ascontiguousarray(nine[:, :4]), np.ascontiguousarray(nine[:, 4:])
    nine_lists = nine.tolist()
    phe_omaha = _pheval.evaluate_omaha_cards
    omaha_rate = _best_rate(m, lambda: omaha_high_batch(hole, board), rounds)
    phe_omaha_rate = _best_rate(m, lambda: [phe_omaha(*d[4:], *d[:4]) for d in nine_lists], rounds)
    omaha_call = ours.omaha_high
    omaha_call_rate = _best_rate(m, lambda: [omaha_call(d[:4], d[4:]) for d in nine_lists], rounds)
    results += [
        Result("Omaha high batch", omaha_rate, "phevaluator C (per call)", phe_omaha_rate),
        Result("Omaha high per call", omaha_call_rate, "phevaluator C (per call)", phe_omaha_rate),
    ]

    low_rate = _best_rate(m, lambda: omaha_low_batch(hole, board), rounds)
    low_call = ours.omaha_low
    low_call_rate = _best_rate(m, lambda: [low_call(d[:4], d[4:]) for d in nine_lists], rounds)
    pk_n = 3_000
    pk_deals = [
        ("".join(str(DECK[c]) for c in d[:4]), "".join(str(DECK[c]) for c in d[4:]))
        for d in nine_lists[:pk_n]
    ]

    def pokerkit_low() -> None:
        for h, b in pk_deals:
            with contextlib.suppress(ValueError):  # no qualifying low
                OmahaEightOrBetterLowHand.from_game(h, b)

    pk_rate = _best_rate(pk_n, pokerkit_low, 1)
    results += [
        Result("Omaha hi-lo low batch", low_rate, "PokerKit", pk_rate),
        Result("Omaha hi-lo low per call", low_call_rate, "PokerKit", pk_rate),
    ]

    # Heads-up hold'em Monte Carlo equity: runouts per second.
    hero, villain = [DECK.index(DECK[51]), 46], [43, 42]  # AsKh-ish vs QQ-ish
    samples = 1_000_000
    mc_rate = _best_rate(
        samples,
        lambda: equity(Variant.HOLDEM, [hero, villain], exact_limit=0, max_samples=samples),
        rounds,
    )
    e7_hero = [eval7_cards[c] for c in hero]
    e7_range = eval7.HandRange(f"{DECK[villain[0]]}{DECK[villain[1]]}")
    e7_iters = 1_000_000
    e7_mc = eval7.py_hand_vs_range_monte_carlo
    e7_rate = _best_rate(e7_iters, lambda: e7_mc(e7_hero, e7_range, [], e7_iters), rounds)
    results.append(Result("HU hold'em MC equity runouts", mc_rate, "eval7 MC", e7_rate))

    # 6-way Omaha hi-lo on the flop: one hand vs five random hands, SE <= 1.5 % in 150 ms.
    rng = np.random.default_rng(args.seed + 2)
    latencies, errors = [], []
    equity(Variant.OMAHA_HI_LO, [[0, 1, 2, 3], [], [], [], [], []], [4, 5, 6], max_samples=100)
    for i in range(200):
        deal = rng.permutation(52)[:7].tolist()
        start = time.perf_counter()
        est = equity(
            Variant.OMAHA_HI_LO,
            [deal[:4], [], [], [], [], []],
            deal[4:],
            time_budget=0.15,
            target_std_error=0.015,
            seed=i + 1,
        )
        latencies.append(time.perf_counter() - start)
        errors.append(est.players[0].std_error)
    p99 = float(np.percentile(latencies, 99))
    results.append(
        Result(
            f"6-way O8 flop equity (p99 {p99 * 1e3:.0f} ms, max SE {max(errors) * 100:.2f}%)",
            1.0 / p99,
            "target: 150 ms at SE <= 1.5%",
            1.0 / 0.150,
        )
    )
    return results
