"""Lookup tables for the fast evaluator, generated here from the reference evaluator.

Every card maps to one 64-bit *card key*; the key of a hand is the plain sum of its cards' keys,
so a batch of hands is one gather and a few additions. A hand key holds three fields:

- bits 0..16: the rank counts of ranks 2..8 in base 5 (``5 ** rank`` per card);
- bits 17..30: the rank counts of ranks 9..A in base 5;
- bits 31..42: the suit counts, three bits per suit (at most 7 cards, so no carry).

The two rank fields are turned into a *dense* index of the rank multiset by two small tables
(``lo_index`` and ``hi_index[n]``, additive, so ``lo_index[lo] + hi_index[n][hi]`` numbers the
multisets of exactly n cards from 0 without gaps) and ``rank_value[n]`` gives the reference high
value of that multiset when the hand has no flush. Flushes are looked up by the 13-bit rank mask
of the flush suit in ``flush_value``. All values equal ``hand_values.high_value`` exactly. Tables
are built in memory on first use (under a second) from ``high_value`` itself; nothing is copied
from elsewhere, and no file cache is needed (which keeps libs/poker free of I/O).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement

import numpy as np
import numpy.typing as npt

from ..hand_values import high_value

LO_BITS = 17
HI_SHIFT = 17
HI_BITS = 14
SUIT_SHIFT = 31
LO_MASK = (1 << LO_BITS) - 1
HI_MASK = (1 << HI_BITS) - 1
RANK_MASK = (1 << SUIT_SHIFT) - 1
LO_RANKS = 7  # ranks 0..6 (2..8) in the low field, 7..12 (9..A) in the high field
MAX_CARDS = 7
#: Batch value of "no qualifying low" (larger than every low value, as lower is better).
NO_LOW = 0xFFFFFF

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]


def card_key(card: int) -> int:
    rank, suit = card >> 2, card & 3
    rank_part: int = 5**rank if rank < LO_RANKS else 5 ** (rank - LO_RANKS) << HI_SHIFT
    return rank_part | 1 << (SUIT_SHIFT + 3 * suit)


def _count_vectors(ranks: int, size: int) -> Iterator[tuple[int, ...]]:
    """Every vector of ``ranks`` counts (each 0..4) summing to ``size``, in a fixed order."""
    if ranks == 0:
        if size == 0:
            yield ()
        return
    for first in range(min(4, size) + 1):
        for rest in _count_vectors(ranks - 1, size - first):
            yield (first, *rest)


def _base5(counts: tuple[int, ...]) -> int:
    return sum(c * 5**i for i, c in enumerate(counts))


@dataclass(frozen=True)
class Tables:
    card_key: I64  # [52]
    lo_index: I32  # [2**17] dense index of a low-field multiset among those of its size
    hi_index: dict[int, I32]  # n -> [2**14] offset of a high-field multiset for n-card hands
    rank_value: dict[int, I32]  # n -> value of each n-card rank multiset (no flush)
    rank_value_by_key: dict[int, int]  # rank part of a hand key -> value (per-call path)
    flush_suit: npt.NDArray[np.int8]  # [4096] suit with >= 5 cards, else -1
    flush_value: I32  # [8192] value of the best flush among the ranks of a mask (>= 5 bits)
    low_value: I32  # [65536] (hole low mask << 8 | board low mask) -> best Omaha low or NO_LOW
    low_bit: I32  # [52] 1 << (ace-low rank - 1) for A..8, else 0


def rank_multisets(n: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(counts [M, 13], rank part of the hand key [M]) of every n-card rank multiset, in the
    dense index order of ``RANK_VALUE[n]``."""
    counts: list[npt.NDArray[np.int64]] = []
    for sh in range(n + 1):
        lo = np.array(list(_count_vectors(LO_RANKS, n - sh)), dtype=np.int64).reshape(-1, LO_RANKS)
        hi = np.array(list(_count_vectors(13 - LO_RANKS, sh)), dtype=np.int64).reshape(
            -1, 13 - LO_RANKS
        )
        counts.append(np.hstack([np.tile(lo, (len(hi), 1)), np.repeat(hi, len(lo), axis=0)]))
    c = np.vstack(counts)
    lo_w = 5 ** np.arange(LO_RANKS, dtype=np.int64)
    hi_w = 5 ** np.arange(13 - LO_RANKS, dtype=np.int64)
    keys = c[:, :LO_RANKS] @ lo_w | (c[:, LO_RANKS:] @ hi_w) << HI_SHIFT
    return c, keys


def representatives(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Cards with these rank counts, suits dealt round-robin (never five of a suit): [M, n]."""
    m = len(counts)
    n = int(counts[0].sum())
    ranks = np.repeat(np.tile(np.arange(13, dtype=np.int64), m), counts.ravel()).reshape(m, n)
    return ranks * 4 + np.arange(n, dtype=np.int64) % 4


def _low_table() -> I32:
    """Best 8-or-better low for every (hole low-rank set, board low-rank set)."""
    # Bit i of a mask = ace-low rank i + 1 (A=bit 0 .. 8=bit 7).
    pair_board = np.full((8, 8, 256), NO_LOW, dtype=np.int64)
    for a, b in combinations(range(8), 2):
        for board in range(256):
            rest = [i for i in range(8) if board >> i & 1 and i not in (a, b)][:3]
            if len(rest) == 3:
                ranks = sorted((a + 1, b + 1, *(r + 1 for r in rest)), reverse=True)
                pair_board[a, b, board] = sum(r << (16 - 4 * k) for k, r in enumerate(ranks))
    table = np.full((256, 256), NO_LOW, dtype=np.int64)
    for hole in range(256):
        bits = [i for i in range(8) if hole >> i & 1]
        for a, b in combinations(bits, 2):
            table[hole] = np.minimum(table[hole], pair_board[a, b])
    return table.ravel().astype(np.int32)


@cache
def tables() -> Tables:
    """The tables, built once per process (a fraction of a second)."""
    keys = np.array([card_key(c) for c in range(52)], dtype=np.int64)

    lo_index = np.full(1 << LO_BITS, -1, dtype=np.int32)
    for size in range(MAX_CARDS + 1):
        for i, v in enumerate(_count_vectors(LO_RANKS, size)):
            lo_index[_base5(v)] = i
    hi_index: dict[int, I32] = {}
    for n in range(5, MAX_CARDS + 1):
        hi = np.full(1 << HI_BITS, -1, dtype=np.int32)
        base = 0
        for sh in range(n + 1):
            n_lo = sum(1 for _ in _count_vectors(LO_RANKS, n - sh))
            for j, hv in enumerate(_count_vectors(13 - LO_RANKS, sh)):
                hi[_base5(hv)] = base + j * n_lo
            base += n_lo * sum(1 for _ in _count_vectors(13 - LO_RANKS, sh))
        hi_index[n] = hi

    # Five-card multisets straight from the reference; six and seven as the best five-card
    # subset (the reference's "best five of the cards", no flush being possible here).
    rank_value: dict[int, I32] = {}
    by_key: dict[int, int] = {}
    counts5, keys5 = rank_multisets(5)
    rank_value[5] = np.array(
        [high_value(cards) for cards in representatives(counts5).tolist()], dtype=np.int32
    )
    by_key.update(zip(keys5.tolist(), rank_value[5].tolist(), strict=True))
    for n in (6, 7):
        counts, rank_keys = rank_multisets(n)
        cards = representatives(counts)
        sub = keys[cards[:, combination_indices(n, 5)]].sum(axis=2)
        index = lo_index[sub & LO_MASK] + hi_index[5][sub >> HI_SHIFT & HI_MASK]
        rank_value[n] = rank_value[5][index].max(axis=1).astype(np.int32)
        by_key.update(zip(rank_keys.tolist(), rank_value[n].tolist(), strict=True))

    flush_suit = np.full(1 << 12, -1, dtype=np.int8)
    for field in range(1 << 12):
        for suit in range(4):
            if field >> (3 * suit) & 7 >= 5:
                flush_suit[field] = suit
    flush_value = np.full(1 << 13, -1, dtype=np.int32)
    for mask in range(1 << 13):
        if mask.bit_count() >= 5:
            flush_value[mask] = high_value([r * 4 for r in range(13) if mask >> r & 1])

    low_bit = np.array(
        [0 if 7 <= c >> 2 < 12 else 1 << (0 if c >> 2 == 12 else (c >> 2) + 1) for c in range(52)],
        dtype=np.int32,
    )
    return Tables(
        card_key=keys,
        lo_index=lo_index,
        hi_index=hi_index,
        rank_value=rank_value,
        rank_value_by_key=by_key,
        flush_suit=flush_suit,
        flush_value=flush_value,
        low_value=_low_table(),
        low_bit=low_bit,
    )


@dataclass(frozen=True)
class OmahaTables:
    """Omaha high splits a hand into a hole pair and a board triple: their rank multisets index a
    [91, 455] table of five-card values (flushes apart)."""

    pair_index: I32  # [52 * 52] (c1 * 52 + c2) -> pair rank multiset index * 455
    triple_index: I32  # [13 ** 3] (r1 * 169 + r2 * 13 + r3) -> triple rank multiset index
    pair_triple_value: I32  # [91 * 455] value of pair + triple (no flush), -1 if impossible
    suit_bit: I32  # [52] 1 << (3 * suit)
    suit_of_three: npt.NDArray[np.int8]  # [4096] suit with >= 3 of five cards, else -1


@cache
def omaha_tables() -> OmahaTables:
    t = tables()
    pair_sets = list(combinations_with_replacement(range(13), 2))  # 91
    triple_sets = list(combinations_with_replacement(range(13), 3))  # 455
    pair_of = {p: i for i, p in enumerate(pair_sets)}
    triple_of = {p: i for i, p in enumerate(triple_sets)}
    pair_index = np.zeros(52 * 52, dtype=np.int32)
    for c1 in range(52):
        for c2 in range(52):
            lo, hi = sorted((c1 >> 2, c2 >> 2))
            pair_index[c1 * 52 + c2] = pair_of[lo, hi] * len(triple_sets)
    triple_index = np.zeros(13**3, dtype=np.int32)
    for r1 in range(13):
        for r2 in range(13):
            for r3 in range(13):
                a, b, c = sorted((r1, r2, r3))
                triple_index[r1 * 169 + r2 * 13 + r3] = triple_of[a, b, c]
    values = np.full(len(pair_sets) * len(triple_sets), -1, dtype=np.int32)
    for i, pair in enumerate(pair_sets):
        for j, triple in enumerate(triple_sets):
            ranks = pair + triple
            if max(ranks.count(r) for r in ranks) <= 4:
                key = sum(card_key(r * 4) for r in ranks) & RANK_MASK
                values[i * len(triple_sets) + j] = t.rank_value_by_key[key]
    suit_bit = np.array([1 << 3 * (c & 3) for c in range(52)], dtype=np.int32)
    suit_of_three = np.full(1 << 12, -1, dtype=np.int8)
    for field in range(1 << 12):
        for suit in range(4):
            if field >> (3 * suit) & 7 >= 3:
                suit_of_three[field] = suit
    return OmahaTables(pair_index, triple_index, values, suit_bit, suit_of_three)


def combination_indices(n: int, k: int) -> npt.NDArray[np.intp]:
    """All k-subsets of range(n) as a (C(n, k), k) array, lexicographic."""
    return _combinations(n, k)


@cache
def _combinations(n: int, k: int) -> npt.NDArray[np.intp]:
    if k == 0:
        return np.zeros((1, 0), dtype=np.intp)
    if k > n:
        return np.zeros((0, k), dtype=np.intp)
    if k == 1:
        return np.arange(n, dtype=np.intp)[:, None]
    parts = []
    # First element i, the rest a (k-1)-subset of i+1..n-1.
    for i in range(n - k + 1):
        rest = _combinations(n - i - 1, k - 1) + (i + 1)
        first = np.full((len(rest), 1), i, dtype=np.intp)
        parts.append(np.hstack([first, rest]))
    out = np.vstack(parts)
    out.flags.writeable = False
    return out
