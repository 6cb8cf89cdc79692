"""Equity: each player's expected share of the pot, by exact enumeration or Monte Carlo.

Works for every variant (hold'em, Omaha, Omaha hi-lo), any number of players, each given as
explicit hole cards (possibly fewer than the variant's count: the rest are dealt at random) or as a
``HandRange`` (uniform over its combinations). Hi-lo runouts give half of the pot to the best
high and half to the best qualifying low (the whole pot to the high when there is no low), each
half split among tied hands, so quartering is counted exactly.

Enumeration is used when every hand is fully known and the runouts are few enough; otherwise
samples are drawn in vectorised batches until the sample budget, the time budget or the target
standard error is reached, and the best estimate so far is returned. The clock is injected, so the
module stays free of I/O; randomness comes from a seeded numpy generator. With the C extension
(``libs.poker.fast._native``) runouts are drawn in C, without replacement, by a xoshiro256**
generator seeded from that numpy generator (see ``fast.draw_distinct``), and evaluated by its
batch kernels: a seed still gives the same result every time, but not the same one as the pure
numpy code gives for that seed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .config import Variant
from .fast import (
    NO_LOW,
    combination_indices,
    draw_distinct,
    holdem_values,
    omaha_high_batch,
    omaha_low_batch,
)
from .fast import evaluator as _fast

__all__ = ["EquityResult", "HandRange", "PlayerEquity", "equity", "showdown_shares"]

_RANKS = "23456789TJQKA"
#: Runouts enumerated at most (boards x fully known hands), per variant's evaluation cost.
EXACT_LIMIT = {Variant.HOLDEM: 2_000_000, Variant.OMAHA: 150_000, Variant.OMAHA_HI_LO: 100_000}
_MIN_SAMPLES_FOR_TARGET = 200
_MAX_BATCH = 200_000


@dataclass(frozen=True)
class HandRange:
    """A uniform range of hole-card combinations (each a tuple of card ints)."""

    combos: tuple[tuple[int, ...], ...]

    @staticmethod
    def parse(text: str) -> HandRange:
        """Hold'em range notation: pairs ``QQ``, suited ``AKs``, offsuit ``AKo``, both ``AK``;
        ``+`` for "and better" (``TT+`` = TT..AA, ``ATs+`` = ATs..AKs); dashes for spans
        (``22-55``, ``A2s-A5s``); explicit combos (``AhKh``). Comma or space separated."""
        combos: set[tuple[int, ...]] = set()
        for token in text.replace(",", " ").split():
            for hi, lo, kind in _expand(token):
                if len(kind) == 2:  # explicit suits
                    a, b = hi * 4 + "cdhs".index(kind[0]), lo * 4 + "cdhs".index(kind[1])
                    if a == b:
                        raise ValueError(f"not a hand: {token!r}")
                    combos.add((max(a, b), min(a, b)))
                    continue
                for s1 in range(4):
                    for s2 in range(4):
                        a, b = hi * 4 + s1, lo * 4 + s2
                        if a == b or (kind == "s" and s1 != s2) or (kind == "o" and s1 == s2):
                            continue
                        if hi == lo and a < b:
                            continue
                        combos.add((max(a, b), min(a, b)))
        return HandRange(tuple(sorted(combos)))


@dataclass(frozen=True)
class PlayerEquity:
    equity: float  # expected share of the pot, 0..1
    win: float  # share of runouts where this player takes the whole pot
    tie: float  # share of runouts where this player takes part of the pot
    std_error: float  # standard error of ``equity`` (0 when exact)


@dataclass(frozen=True)
class EquityResult:
    players: tuple[PlayerEquity, ...]
    samples: int
    exact: bool


def _expand(token: str) -> list[tuple[int, int, str]]:
    """(high rank, low rank, kind) for one range token; kind is "", "s", "o" or two suits."""

    def one(tok: str) -> tuple[int, int, str]:
        try:
            if len(tok) == 4 and tok[1].lower() in "cdhs" and tok[3].lower() in "cdhs":
                a = (_RANKS.index(tok[0].upper()), tok[1].lower())
                b = (_RANKS.index(tok[2].upper()), tok[3].lower())
                (hi, s1), (lo, s2) = sorted((a, b), reverse=True)
                return hi, lo, s1 + s2
            hi, lo = _RANKS.index(tok[0].upper()), _RANKS.index(tok[1].upper())
        except (ValueError, IndexError):
            raise ValueError(f"not a range token: {token!r}") from None
        kind = tok[2:].lower()
        if kind not in ("", "s", "o") or (hi == lo and kind):
            raise ValueError(f"not a range token: {token!r}")
        return max(hi, lo), min(hi, lo), kind

    if "-" in token:
        first, last = (one(t) for t in token.split("-", 1))
        if first[2] != last[2] or (first[0] == first[1]) != (last[0] == last[1]):
            raise ValueError(f"not a range span: {token!r}")
        if first[0] == first[1]:  # pairs: 22-55
            low, high = sorted((first[0], last[0]))
            return [(r, r, "") for r in range(low, high + 1)]
        if first[0] != last[0]:
            raise ValueError(f"a span keeps its top card: {token!r}")
        low, high = sorted((first[1], last[1]))
        return [(first[0], r, first[2]) for r in range(low, high + 1)]
    if token.endswith("+"):
        hi, lo, kind = one(token[:-1])
        if hi == lo:
            return [(r, r, "") for r in range(hi, len(_RANKS))]
        return [(hi, r, kind) for r in range(lo, hi)]
    return [one(token)]


Holding = Sequence[int] | HandRange


def showdown_shares(
    variant: Variant,
    holes: Sequence[npt.NDArray[np.integer[Any]]],
    boards: npt.NDArray[np.integer[Any]],
) -> npt.NDArray[np.float64]:
    """Share of the pot ``[P, N]`` each player wins on each of N complete runouts."""
    if variant is Variant.HOLDEM:
        high = holdem_values(holes, boards)
    else:
        high = np.stack([omaha_high_batch(_full(h, len(boards)), boards) for h in holes])
    winners = high == high.max(axis=0)
    high_share = winners / winners.sum(axis=0)
    if variant is not Variant.OMAHA_HI_LO:
        return np.asarray(high_share, dtype=np.float64)
    low = np.stack([omaha_low_batch(_full(h, len(boards)), boards) for h in holes])
    best_low = low.min(axis=0)
    has_low = best_low != NO_LOW
    low_winners = (low == best_low) & has_low
    low_share = low_winners / np.maximum(low_winners.sum(axis=0), 1)
    shares = np.where(has_low, 0.5 * high_share + 0.5 * low_share, high_share)
    return np.asarray(shares, dtype=np.float64)


def _full(hole: npt.NDArray[np.integer[Any]], n: int) -> npt.NDArray[np.integer[Any]]:
    return np.broadcast_to(hole, (n, hole.shape[-1]))


class _Tally:
    def __init__(self, players: int) -> None:
        self.n = 0
        self.total = np.zeros(players)
        self.squares = np.zeros(players)
        self.wins = np.zeros(players)
        self.ties = np.zeros(players)

    def add(self, shares: npt.NDArray[np.float64]) -> None:
        self.n += shares.shape[1]
        self.total += shares.sum(axis=1)
        self.squares += (shares * shares).sum(axis=1)
        self.wins += (shares >= 1.0).sum(axis=1)
        self.ties += ((shares > 0.0) & (shares < 1.0)).sum(axis=1)

    def std_errors(self) -> npt.NDArray[np.float64]:
        if self.n < 2:
            return np.full(len(self.total), math.inf)
        mean = self.total / self.n
        var = np.maximum(self.squares / self.n - mean * mean, 0.0) * self.n / (self.n - 1)
        return np.asarray(np.sqrt(var / self.n), dtype=np.float64)

    def result(self, exact: bool) -> EquityResult:
        n = max(self.n, 1)
        errors = np.zeros(len(self.total)) if exact else self.std_errors()
        players = tuple(
            PlayerEquity(
                equity=float(self.total[p] / n),
                win=float(self.wins[p] / n),
                tie=float(self.ties[p] / n),
                std_error=float(errors[p]),
            )
            for p in range(len(self.total))
        )
        return EquityResult(players=players, samples=self.n, exact=exact)


def equity(
    variant: Variant,
    players: Sequence[Holding],
    board: Sequence[int] = (),
    dead: Sequence[int] = (),
    *,
    max_samples: int | None = None,
    time_budget: float | None = None,
    target_std_error: float | None = None,
    seed: int | None = None,
    exact_limit: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
    stop: Callable[[], bool] | None = None,
) -> EquityResult:
    """Equity of each player. Without any budget Monte Carlo stops at 100,000 samples.

    ``stop`` is asked between batches: once it says True the work ends with what it has (an
    estimate, ``exact`` False), e.g. because nobody waits for the answer any more."""
    hole_count = variant.hole_card_count
    if len(players) < 2:
        raise ValueError("equity needs at least two players")
    if len(board) > 5 or len(board) in (1, 2):
        raise ValueError(f"a board has 0, 3, 4 or 5 cards, got {len(board)}")
    known: list[int] = list(board) + list(dead)
    explicit: list[list[int]] = []
    ranges: list[tuple[int, HandRange]] = []
    for p, holding in enumerate(players):
        if isinstance(holding, HandRange):
            ranges.append((p, holding))
            explicit.append([])
        else:
            cards = [int(c) for c in holding]
            if len(cards) > hole_count:
                raise ValueError(f"player {p} has {len(cards)} hole cards, at most {hole_count}")
            explicit.append(cards)
            known += cards
    if len(set(known)) != len(known) or any(not 0 <= c < 52 for c in known):
        raise ValueError("cards must be distinct and in 0..51")
    deck = np.array([c for c in range(52) if c not in set(known)], dtype=np.int64)
    board_missing = 5 - len(board)
    start = clock()

    if not ranges and all(len(h) == hole_count for h in explicit):
        runouts = math.comb(len(deck), board_missing)
        limit = EXACT_LIMIT[variant] if exact_limit is None else exact_limit
        if runouts <= limit:
            return _enumerate(variant, explicit, board, deck, board_missing, stop)

    range_combos: list[npt.NDArray[np.int64]] = []
    known_set = set(known)
    for p, hand_range in ranges:
        combos = [c for c in hand_range.combos if len(c) == hole_count and not known_set & set(c)]
        if not combos:
            raise ValueError(f"player {p}'s range has no combination left")
        range_combos.append(np.array(combos, dtype=np.int64))
    rng = np.random.default_rng(seed)
    tally = _Tally(len(players))
    if max_samples is None and time_budget is None and target_std_error is None:
        max_samples = 100_000
    batch = 1_000 if variant is not Variant.HOLDEM else 20_000
    while True:
        if max_samples is not None:
            batch = min(batch, max_samples - tally.n)
        holes, boards = _sample(
            rng, batch, explicit, ranges, range_combos, hole_count, board, deck, board_missing
        )
        if len(boards):
            tally.add(showdown_shares(variant, holes, boards))
        if max_samples is not None and tally.n >= max_samples:
            break
        if stop is not None and stop():
            break
        elapsed = clock() - start
        if (
            target_std_error is not None
            and tally.n >= _MIN_SAMPLES_FOR_TARGET
            and float(tally.std_errors().max()) <= target_std_error
        ):
            break
        if time_budget is not None:
            remaining = time_budget - elapsed
            if remaining <= 0:
                break
            # Size the next batch to fit in what is left (with a safety margin).
            rate = tally.n / max(elapsed, 1e-6)
            batch = int(max(100, min(batch * 4, rate * remaining * 0.5)))
        else:
            batch = min(batch * 2, _MAX_BATCH)
    return tally.result(exact=False)


def _enumerate(
    variant: Variant,
    holes: list[list[int]],
    board: Sequence[int],
    deck: npt.NDArray[np.int64],
    missing: int,
    stop: Callable[[], bool] | None = None,
) -> EquityResult:
    tally = _Tally(len(holes))
    hole_arrays = [np.array([h], dtype=np.int64) for h in holes]
    runouts = deck[combination_indices(len(deck), missing)]
    chunk = 250_000
    for begin in range(0, len(runouts), chunk):
        if begin and stop is not None and stop():
            return tally.result(exact=False)
        part = runouts[begin : begin + chunk]
        fixed = np.broadcast_to(np.array(board, dtype=np.int64), (len(part), len(board)))
        boards = np.hstack([fixed, part])
        tally.add(showdown_shares(variant, hole_arrays, boards))
    return tally.result(exact=True)


def _sample(
    rng: np.random.Generator,
    n: int,
    explicit: list[list[int]],
    ranges: list[tuple[int, HandRange]],
    range_combos: list[npt.NDArray[np.int64]],
    hole_count: int,
    board: Sequence[int],
    deck: npt.NDArray[np.int64],
    board_missing: int,
) -> tuple[list[npt.NDArray[np.integer[Any]]], npt.NDArray[np.integer[Any]]]:
    """n runouts (fewer when range draws collide): each player's hole cards and the boards."""
    range_players = {p for p, _ in ranges}
    random_counts = [
        0 if p in range_players else hole_count - len(h) for p, h in enumerate(explicit)
    ]
    k = sum(random_counts) + board_missing
    distinct = _fast.NATIVE_AVAILABLE  # read per call: tests switch the extension off
    draws: npt.NDArray[np.integer[Any]]
    if distinct:  # C: k distinct cards per row (uint8), nothing to reject but range collisions
        draws = draw_distinct(rng, deck, n, k)
    elif k <= 6:  # independent draws, then reject the few runouts that drew a card twice
        # (uint8 indices: the generator makes small integers about twice as fast)
        draws = deck[rng.integers(0, len(deck), size=(n, k), dtype=np.uint8)]
    else:
        distinct = True
        draws = deck[np.argpartition(rng.random((n, len(deck))), k, axis=1)[:, :k]]
    chosen = [c[rng.integers(0, len(c), size=n)] for c in range_combos]
    if not distinct or chosen:
        # Reject runouts where a card was drawn twice or collides with a range's combination.
        used = np.zeros(n, dtype=np.uint64)
        for block in (draws, *chosen):
            for j in range(block.shape[1]):
                used |= np.left_shift(np.uint64(1), block[:, j].astype(np.uint64))
        expected = k + sum(c.shape[1] for c in chosen)
        ok = np.bitwise_count(used) == expected
        if not ok.all():
            draws = draws[ok]
            chosen = [c[ok] for c in chosen]
    holes: list[npt.NDArray[np.integer[Any]]] = []
    column = 0
    range_index = {p: i for i, (p, _) in enumerate(ranges)}
    for p, hole in enumerate(explicit):
        if p in range_index:
            holes.append(chosen[range_index[p]])
            continue
        extra = random_counts[p]
        if extra == 0:
            holes.append(np.array([hole], dtype=np.int64))
            continue
        holes.append(_prefixed(hole, draws[:, column : column + extra]))
        column += extra
    return holes, _prefixed(board, draws[:, column : column + board_missing])


def _prefixed(
    cards: Sequence[int], drawn: npt.NDArray[np.integer[Any]]
) -> npt.NDArray[np.integer[Any]]:
    """Rows of the known ``cards`` followed by the ``drawn`` ones, in the dtype of ``drawn``."""
    if not cards:
        return drawn
    out = np.empty((len(drawn), len(cards) + drawn.shape[1]), dtype=drawn.dtype)
    out[:, : len(cards)] = cards
    out[:, len(cards) :] = drawn
    return out
