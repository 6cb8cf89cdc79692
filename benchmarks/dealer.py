"""The dealer's randomness and speed: a chi-square test of card positions over a million shuffles,
shuffle throughput, and StartDeck / DealCards latency against a locally started dealer.

- Uniformity: ``--shuffles`` decks (default 1,000,000) from fresh OS CSPRNG seeds
  (``libs.fairdeck.new_seed``, as in production) through ``deck_from_seed``, split over
  ``--workers`` processes. The 52 x 52 table of (deck position, card) counts is tested against the
  uniform expectation ``shuffles / 52`` per cell: Pearson's chi-square with 51 x 51 = 2,601
  degrees of freedom (rows and columns are fixed by construction). The p-value is the upper tail,
  from scipy when installed, else the Wilson-Hilferty normal approximation (accurate to about
  three digits at this many degrees of freedom). Also reported: the largest standardized cell
  residual. A fair shuffle gives p-values spread uniformly over 0..1; the verdict flags
  p < 1e-4 or p > 1 - 1e-4 (too good a fit is as suspicious as a bad one).
- Throughput: our shuffles per second (wall clock, all workers) against
  ``random.SystemRandom().shuffle`` (also CSPRNG-backed; not reproducible from a seed).
- RPC: a local redis-server and ``python -m services.dealer``; ``--rpcs`` sequential StartDeck
  calls (one new hand each) and DealCards calls (two hole cards), against the gRPC health
  check on the same server as the peer (the bare cost of a round trip). ``--rpcs 0`` skips it.

Details go to stderr (``[dealer] ...``), the throughput rows to the results table.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import Result
from libs.fairdeck import ALGORITHM, deck_from_seed, new_seed

NAME = "dealer"
DESCRIPTION = (
    "chi-square uniformity of card positions over 1M shuffles, shuffles/s, dealer RPC latency"
)
CELLS = 52 * 52
DOF = 51 * 51
ROOT = Path(__file__).resolve().parents[1]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shuffles", type=int, default=1_000_000, help="decks to shuffle")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes shuffling"
    )
    parser.add_argument("--rpcs", type=int, default=2000, help="calls per RPC (0 = skip)")


# --------------------------------------------------------------------------- uniformity


def count_positions(shuffles: int) -> list[int]:
    """Counts of (position, card) over ``shuffles`` fresh decks, flat: ``position * 52 + card``."""
    counts = [0] * CELLS
    offsets = range(0, CELLS, 52)
    for _ in range(shuffles):
        for offset, card in zip(offsets, deck_from_seed(new_seed()), strict=True):
            counts[offset + card] += 1
    return counts


def chi_square_sf(statistic: float, dof: int) -> tuple[float, str]:
    """P(X >= statistic) for X ~ chi-square(dof), and how it was computed."""
    try:
        from scipy.stats import chi2  # type: ignore[import-untyped]

        return float(chi2.sf(statistic, dof)), "scipy"
    except ImportError:
        pass
    # Wilson-Hilferty: (X / k) ** (1/3) is close to normal, mean 1 - 2/(9k), variance 2/(9k).
    mean, var = 1 - 2 / (9 * dof), 2 / (9 * dof)
    z = ((statistic / dof) ** (1 / 3) - mean) / math.sqrt(var)
    return 0.5 * math.erfc(z / math.sqrt(2)), "Wilson-Hilferty"


@dataclass(frozen=True)
class Uniformity:
    shuffles: int
    statistic: float
    p_value: float
    method: str
    max_residual: float
    seconds: float

    @property
    def verdict(self) -> str:
        return "uniform" if 1e-4 <= self.p_value <= 1 - 1e-4 else "SUSPICIOUS"


def uniformity(shuffles: int, workers: int) -> Uniformity:
    workers = max(1, min(workers, shuffles))
    # Many small chunks keep both cores busy to the end even if one is slower.
    chunks = max(workers * 8, 1)
    sizes = [shuffles // chunks + (1 if i < shuffles % chunks else 0) for i in range(chunks)]
    started = time.perf_counter()
    totals = [0] * CELLS
    if workers == 1:
        parts: list[list[int]] = [count_positions(shuffles)]
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(count_positions, sizes)
    for part in parts:
        for cell, count in enumerate(part):
            totals[cell] += count
    seconds = time.perf_counter() - started
    expected = shuffles / 52
    statistic = sum((c - expected) ** 2 for c in totals) / expected
    # Standardized residual of one cell: (observed - expected) / sqrt(expected * (1 - 1/52)).
    spread = math.sqrt(expected * (1 - 1 / 52))
    max_residual = max(abs(c - expected) for c in totals) / spread
    p_value, method = chi_square_sf(statistic, DOF)
    return Uniformity(shuffles, statistic, p_value, method, max_residual, seconds)


def system_random_shuffles_per_s(seconds: float = 1.0) -> float:
    shuffler = random.SystemRandom()
    deck = list(range(52))
    done = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        for _ in range(100):
            shuffler.shuffle(deck)
        done += 100
    return done / elapsed


# --------------------------------------------------------------------------- RPC


def _latencies(call: Callable[[int], object], count: int) -> list[float]:
    for i in range(min(50, count)):  # warm-up: connection, caches
        call(-1 - i)
    out = []
    for i in range(count):
        started = time.perf_counter()
        call(i)
        out.append(time.perf_counter() - started)
    return out


def _describe(name: str, latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"{name}: p50 {statistics.median(ordered) * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms, "
        f"{len(ordered) / sum(ordered):,.0f} calls/s sequential"
    )


def rpc_results(count: int) -> list[Result]:
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

    from libs.devstack import ServiceProcess, clean_environ, service_env, start_redis
    from libs.devstack.identity import channel_as

    table = f"bench-{uuid.uuid4().hex[:8]}"
    with start_redis() as redis, tempfile.TemporaryDirectory() as tmp:
        env = service_env(redis_url=redis.url, base=clean_environ())
        dealer_process = ServiceProcess("dealer", Path(tmp) / "dealer.log", env=env).start()
        try:
            with channel_as(dealer_process.address, "table") as channel:
                dealer = dealer_pb2_grpc.DealerServiceStub(channel)
                health = health_pb2_grpc.HealthStub(channel)
                decks: dict[int, str] = {}  # hand -> its deck id (bound to the deck's seed)

                def start_deck(i: int) -> None:
                    decks[i] = dealer.StartDeck(
                        dealer_pb2.StartDeckRequest(
                            table_id=table, hand_id=str(i), idempotency_key="k"
                        ),
                        timeout=5,
                    ).deck_id

                start = _latencies(start_deck, count)
                # Each deck position is dealt once: every call deals from a deck started above.
                deal = _latencies(
                    lambda i: dealer.DealCards(
                        dealer_pb2.DealCardsRequest(deck_id=decks[i], indexes=[0, 6]),
                        timeout=5,
                    ),
                    count,
                )
                check = _latencies(
                    lambda i: health.Check(health_pb2.HealthCheckRequest(), timeout=5),  # type: ignore[attr-defined]
                    count,
                )
        finally:
            dealer_process.stop(15)
    for name, values in (("StartDeck", start), ("DealCards", deal), ("Health.Check", check)):
        print(f"[dealer] {_describe(name, values)}", file=sys.stderr)
    peer = len(check) / sum(check)
    return [
        Result("dealer: StartDeck (Redis SET NX)", len(start) / sum(start), "Health.Check", peer),
        Result("dealer: DealCards (2 cards)", len(deal) / sum(deal), "Health.Check", peer),
    ]


# --------------------------------------------------------------------------- entry point


def run(args: argparse.Namespace) -> list[Result]:
    workers = max(1, args.workers)
    print(
        f"[dealer] shuffling {args.shuffles:,} decks ({ALGORITHM}, fresh CSPRNG seeds) "
        f"on {workers} process(es) ...",
        file=sys.stderr,
    )
    result = uniformity(args.shuffles, workers)
    rate = result.shuffles / result.seconds
    print(
        f"[dealer] chi-square over {result.shuffles:,} shuffles (positions x cards): "
        f"statistic {result.statistic:,.1f}, degrees of freedom {DOF:,}, "
        f"p-value {result.p_value:.4f} ({result.method}), "
        f"max |standardized residual| {result.max_residual:.2f} over {CELLS:,} cells "
        f"-> {result.verdict}",
        file=sys.stderr,
    )
    print(
        f"[dealer] {rate:,.0f} shuffles/s with {workers} process(es) "
        f"({result.seconds:.1f} s, counting included)",
        file=sys.stderr,
    )
    results = [
        Result(
            f"dealer: shuffles ({workers} proc)",
            rate,
            "SystemRandom.shuffle (1 proc)",
            system_random_shuffles_per_s(),
        )
    ]
    if args.rpcs > 0:
        results += rpc_results(args.rpcs)
    return results
