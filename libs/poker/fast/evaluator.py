"""The fast evaluator: the engine's ``HandEvaluator`` protocol per call, plus batch functions over
numpy arrays. Values are identical to ``libs.poker.hand_values`` (the reference): high values are
larger for better hands, low values smaller for better lows; in batches a missing low is
``NO_LOW`` (larger than any low) instead of ``None``.

Batch inputs are integer arrays of cards (0..51): ``[N, 5..7]`` for high hands, ``[N, 4]`` hole
cards and ``[N, 5]`` boards for Omaha. In numpy, work is a handful of vectorised gathers and
additions per hand (see ``tables``), so throughput is numpy's, not the interpreter's.

Per call, ``FastEvaluator`` uses the C extension ``_native`` when it is built (``pip install -e .``
compiles it where a C compiler is available): the same walk over the same tables, in C. Without
it, the pure-Python methods below do the work; they are also the reference the tests hold the C
code to. The batch functions likewise run C loops of ``_native`` when it is built (``native=None``,
the default; ``native=False`` forces numpy, ``native=True`` requires the extension), releasing the
GIL while they run; the numpy code stays, as the fallback and as the tests' reference. Batch
inputs with a card outside 0..51 raise ``ValueError`` on the C path (numpy: ``IndexError`` or a
wrong value), and so do rows with a repeated card (the numpy path does not check).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from .tables import (
    HI_BITS,
    HI_MASK,
    HI_SHIFT,
    LO_BITS,
    LO_MASK,
    NO_LOW,
    RANK_MASK,
    SUIT_SHIFT,
    Tables,
    combination_indices,
    omaha_tables,
    tables,
)

#: ``API_VERSION`` of ``_native.c`` this module is written for; a build older than its Python side
#: (an editable install not rebuilt since) is not used.
_NATIVE_API = 2

try:
    from . import _native
except ImportError:  # not built (no C compiler at install time): pure Python per call
    NATIVE_AVAILABLE = False
else:
    NATIVE_AVAILABLE = getattr(_native, "API_VERSION", None) == _NATIVE_API

Cards = npt.ArrayLike
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

_PAIRS_OF_4 = np.array(list(combinations(range(4), 2)), dtype=np.intp)  # [6, 2]
_TRIPLES_OF_5 = np.array(list(combinations(range(5), 3)), dtype=np.intp)  # [10, 3]


def _as_cards(cards: Cards, width: int | None = None) -> npt.NDArray[np.integer[Any]]:
    array = np.asarray(cards)
    if array.ndim != 2 or (width is not None and array.shape[1] != width):
        raise ValueError(f"expected a [N, {width or '5..7'}] array of cards, got {array.shape}")
    if array.dtype.kind not in "iu":
        raise ValueError(f"cards must be integers, got {array.dtype}")
    return array


def _use_native(native: bool | None) -> bool:
    if native is None:
        return NATIVE_AVAILABLE
    if native and not NATIVE_AVAILABLE:
        raise ImportError(
            "libs.poker.fast._native is not built (pip install -e . with a C compiler)"
        )
    return native


def _for_native(
    array: npt.NDArray[np.integer[Any]], shared: bool = False
) -> npt.NDArray[np.integer[Any]]:
    """The array as the C kernels read it: C-contiguous, native byte order. With ``shared`` (hole
    cards, which the kernels take as one row for every board) an array broadcast along its rows
    (stride 0, as ``np.broadcast_to`` makes) becomes its first row instead of a copy."""
    if shared and array.ndim == 2 and array.shape[0] > 1 and array.strides[0] == 0:
        array = array[:1]
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return np.ascontiguousarray(array)


def _key_sum(key: I64, cards: npt.NDArray[np.integer[Any]]) -> I64:
    """Sum of the card keys of each row; column by column (contiguous results, no [N, k] temp)."""
    keys = key[cards[:, 0]]
    for j in range(1, cards.shape[1]):
        keys += key[cards[:, j]]
    return np.asarray(keys, dtype=np.int64)


def _flush_masks(
    cards: npt.NDArray[np.integer[Any]], suits: npt.NDArray[np.int8]
) -> npt.NDArray[np.intp]:
    """13-bit rank mask of the cards of ``suits[i]`` in row i."""
    cards = cards.astype(np.intp)
    match = (cards & 3) == suits[:, None]
    return np.asarray(np.where(match, 1 << (cards >> 2), 0).sum(axis=1), dtype=np.intp)


def _rank_values(t: Tables, keys: I64, n: int) -> I32:
    index = t.lo_index[keys & LO_MASK] + t.hi_index[n][keys >> HI_SHIFT & HI_MASK]
    return np.asarray(t.rank_value[n][index], dtype=np.int32)


def high_batch(cards: Cards, *, native: bool | None = None) -> I32:
    """High value of each row of ``[N, k]`` cards, 5 <= k <= 7."""
    c = _as_cards(cards)
    n = c.shape[1]
    if not 5 <= n <= 7:
        raise ValueError(f"high hands have 5 to 7 cards, got {n}")
    if _use_native(native):
        out = np.empty(len(c), dtype=np.int32)
        _native.high_batch(_for_native(c), out)
        return out
    t = tables()
    return _finish_high(t, _key_sum(t.card_key, c), n, c)


def _finish_high(
    t: Tables, keys: I64, n: int, cards: npt.NDArray[np.integer[Any]] | Sequence[npt.NDArray[Any]]
) -> I32:
    """Values from hand keys; ``cards`` (one array, or column blocks) is read for flushes only."""
    values = _rank_values(t, keys, n)
    suit = t.flush_suit[keys >> SUIT_SHIFT]
    flush = np.flatnonzero(suit >= 0)
    if len(flush):
        if isinstance(cards, np.ndarray):
            rows = cards[flush]
        else:
            rows = np.hstack([np.broadcast_to(c, (len(keys), c.shape[-1]))[flush] for c in cards])
        # With at most seven cards a flush beats every hand the same cards could make otherwise.
        values[flush] = t.flush_value[_flush_masks(rows, suit[flush])]
    return values


def holdem_values(
    holes: Sequence[npt.NDArray[Any]], board: npt.NDArray[Any], *, native: bool | None = None
) -> I32:
    """High values ``[P, N]`` of P players' hole cards (each ``[N, 2]`` or ``[1, 2]``) on the
    boards ``[N, 5]``; the board's part of the key is summed once for all players."""
    if _use_native(native) and 1 <= len(holes) <= _native.MAX_PLAYERS:
        b = _for_native(_as_cards(board, 5))
        out = np.empty((len(holes), len(b)), dtype=np.int32)
        _native.holdem_batch([_for_native(_as_cards(h, 2), True) for h in holes], b, out)
        return out
    t = tables()
    board_keys = _key_sum(t.card_key, board)
    out = np.empty((len(holes), len(board)), dtype=np.int32)
    for p, hole in enumerate(holes):
        keys = board_keys + _key_sum(t.card_key, hole)
        out[p] = _finish_high(t, keys, 7, [hole, board])
    return out


def holdem_batch(hole: Cards, board: Cards, *, native: bool | None = None) -> I32:
    """High value of hole ``[N, 2]`` (or ``[2]``, shared) plus board ``[N, 3..5]``."""
    h = np.asarray(hole, dtype=np.intp)
    b = _as_cards(board)
    if h.ndim == 1:
        h = np.broadcast_to(h, (len(b), len(h)))
    return high_batch(np.hstack([h, b]), native=native)


def omaha_high_batch(hole: Cards, board: Cards, *, native: bool | None = None) -> I32:
    """Best high with exactly two of ``[N, 4]`` hole cards and three of ``[N, 5]`` board cards."""
    h = _as_cards(hole, 4)
    b = _as_cards(board, 5)
    if _use_native(native):
        out = np.empty(len(b), dtype=np.int32)
        _native.omaha_high_batch(_for_native(h, True), _for_native(b), out)
        return out
    # Index arithmetic below (card * 52, rank * 169) overflows small dtypes such as uint8.
    h, b = h.astype(np.intp, copy=False), b.astype(np.intp, copy=False)
    o = omaha_tables()
    n = len(h)
    # The rank part of a 2 + 3 hand is one gather in a [pair multiset, triple multiset] table.
    pairs = np.empty((n, 6), dtype=np.int32)
    for j, (x, y) in enumerate(_PAIRS_OF_4.tolist()):
        pairs[:, j] = o.pair_index[h[:, x] * 52 + h[:, y]]
    ranks = b >> 2
    triples = np.empty((n, 10), dtype=np.int32)
    for j, (x, y, z) in enumerate(_TRIPLES_OF_5.tolist()):
        triples[:, j] = o.triple_index[ranks[:, x] * 169 + ranks[:, y] * 13 + ranks[:, z]]
    index = pairs[:, :, None] + triples[:, None, :]
    best = o.pair_triple_value[index.reshape(n, 60)].max(axis=1)
    # A flush needs three board cards of one suit (only one suit can have three of five) and
    # two hole cards of that suit; few deals qualify, handle them apart.
    suit_field = o.suit_bit[b[:, 0]]
    for j in range(1, 5):
        suit_field += o.suit_bit[b[:, j]]
    suit3 = o.suit_of_three[suit_field]
    rows = np.flatnonzero(suit3 >= 0)
    if len(rows):
        s = suit3[rows][:, None]
        hr = h[rows].astype(np.intp)
        hole_in = (hr & 3) == s
        keep = np.flatnonzero(hole_in.sum(axis=1) >= 2)
        rows, hr, hole_in, s = rows[keep], hr[keep], hole_in[keep], s[keep]
    if len(rows):
        br = b[rows].astype(np.intp)
        board_in = (br & 3) == s
        hbits = np.where(hole_in, 1 << (hr >> 2), 0)
        bbits = np.where(board_in, 1 << (br >> 2), 0)
        pair_ok = hole_in[:, _PAIRS_OF_4].all(axis=2)
        triple_ok = board_in[:, _TRIPLES_OF_5].all(axis=2)
        masks = (
            hbits[:, _PAIRS_OF_4].sum(axis=2)[:, :, None]
            + bbits[:, _TRIPLES_OF_5].sum(axis=2)[:, None, :]
        )
        ok = pair_ok[:, :, None] & triple_ok[:, None, :]
        flush_values = np.where(ok, tables().flush_value[masks], -1).reshape(len(rows), -1)
        # The rank-only value of a flush combination is below its flush value, so max is right.
        best[rows] = np.maximum(best[rows], flush_values.max(axis=1))
    return np.asarray(best, dtype=np.int32)


def omaha_low_batch(hole: Cards, board: Cards, *, native: bool | None = None) -> I32:
    """Best 8-or-better low (exactly 2 + 3) of each deal, ``NO_LOW`` when none qualifies."""
    h = _as_cards(hole, 4)
    b = _as_cards(board, 5)
    if _use_native(native):
        out = np.empty(len(b), dtype=np.int32)
        _native.omaha_low_batch(_for_native(h, True), _for_native(b), out)
        return out
    t = tables()
    hb = t.low_bit[h]
    bb = t.low_bit[b]
    hole_mask = hb[:, 0] | hb[:, 1] | hb[:, 2] | hb[:, 3]
    board_mask = bb[:, 0] | bb[:, 1] | bb[:, 2] | bb[:, 3] | bb[:, 4]
    return np.asarray(t.low_value[hole_mask << 8 | board_mask], dtype=np.int32)


def draw_distinct(
    rng: np.random.Generator, deck: Cards, n: int, k: int, *, native: bool | None = None
) -> npt.NDArray[np.uint8]:
    """``[n, k]`` cards: each row k distinct cards of ``deck`` (distinct cards, at least k),
    uniformly and independently; randomness from ``rng``, so a seeded generator repeats itself.

    Natively: a partial Fisher-Yates shuffle per row driven by xoshiro256** (seeded with one
    64-bit draw from ``rng``, expanded by splitmix64) with Lemire's unbiased bounded integers; see
    ``sample`` in ``_native.c``. Else numpy: the cards of the k smallest of uniform keys per row
    (``argpartition``). The two give different rows for the same generator state."""
    d = np.asarray(deck)
    if d.ndim != 1 or d.dtype.kind not in "iu" or not 0 <= k <= len(d):
        raise ValueError(f"expected a 1-d integer deck of at least {k} cards, got {d.shape}")
    if k == 0 or n == 0:
        return np.empty((n, k), dtype=np.uint8)
    if _use_native(native):
        out = np.empty((n, k), dtype=np.uint8)
        _native.sample(_for_native(d), out, int(rng.integers(0, 2**64, dtype=np.uint64)))
        return out
    if d.min() < 0 or d.max() > 51 or len(np.unique(d)) != len(d):
        raise ValueError("a deck has distinct cards in 0..51")
    picks = np.argpartition(rng.random((n, len(d))), k - 1, axis=1)[:, :k]
    return np.asarray(d[picks], dtype=np.uint8)


def _load_native_tables(omaha: bool) -> None:
    """Called by ``_native`` on its first use: hands it the arrays of ``tables()`` (or, with
    ``omaha``, of ``omaha_tables()``); it keeps references and reads them in place."""
    if omaha:
        o = omaha_tables()
        _native.init_omaha(
            pair_index=o.pair_index,
            triple_index=o.triple_index,
            pair_triple_value=o.pair_triple_value,
        )
        return
    t = tables()
    _native.init_tables(
        card_key=t.card_key,
        lo_index=t.lo_index,
        hi_index=(t.hi_index[5], t.hi_index[6], t.hi_index[7]),
        rank_value=(t.rank_value[5], t.rank_value[6], t.rank_value[7]),
        flush_suit=t.flush_suit,
        flush_value=t.flush_value,
        low_bit=t.low_bit,
        low_value=t.low_value,
        no_low=NO_LOW,
        layout=(LO_BITS, HI_SHIFT, HI_BITS, SUIT_SHIFT),
    )


if NATIVE_AVAILABLE:
    _native.set_loader(_load_native_tables)


class FastEvaluator:
    """``HandEvaluator`` backed by the lookup tables; same values as ``ReferenceEvaluator``.

    ``native``: None (default) uses the C extension when it is built, True requires it
    (``ImportError`` if not built), False always runs the pure-Python methods. With the extension
    ``high``, ``omaha_high`` and ``omaha_low`` are its functions themselves, set on the instance,
    so a call runs no Python frame; they raise ``ValueError`` (``TypeError``) for a wrong number
    of cards, a card outside 0..51 or repeated (not an int) instead of returning a wrong value.
    """

    def __init__(self, native: bool | None = None) -> None:
        self._tables: Tables | None = None
        if native and not NATIVE_AVAILABLE:
            raise ImportError(
                "libs.poker.fast._native is not built (pip install -e . with a C compiler)"
            )
        self.native = NATIVE_AVAILABLE if native is None else native
        if self.native:
            # Instance attributes shadow the methods below; the tables load on the first call.
            self.high = _native.high  # type: ignore[method-assign]
            self.omaha_high = _native.omaha_high  # type: ignore[method-assign]
            self.omaha_low = _native.omaha_low  # type: ignore[method-assign]

    def _t(self) -> Tables:
        if self._tables is None:
            self._tables = tables()
            t = self._tables
            self._key = tuple(int(k) for k in t.card_key)
            self._by_key = t.rank_value_by_key
            self._flush_suit = tuple(int(s) for s in t.flush_suit)
            self._flush_value = tuple(int(v) for v in t.flush_value)
            self._low_bit = tuple(int(v) for v in t.low_bit)
            self._low_value = tuple(int(v) for v in t.low_value)
        return self._tables

    def high(self, cards: Sequence[int]) -> int:
        if self._tables is None:
            self._t()
        key = self._key
        total = 0
        for card in cards:
            total += key[card]
        suit = self._flush_suit[total >> SUIT_SHIFT]
        if suit < 0:
            return self._by_key[total & RANK_MASK]
        mask = 0
        for card in cards:
            if card & 3 == suit:
                mask |= 1 << (card >> 2)
        return self._flush_value[mask]

    def omaha_high(self, hole: Sequence[int], board: Sequence[int]) -> int:
        if self._tables is None:
            self._t()
        key, by_key = self._key, self._by_key
        best = -1
        pairs = [(a, b, key[a] + key[b]) for a, b in combinations(hole, 2)]
        for x, y, z in combinations(board, 3):
            tk = key[x] + key[y] + key[z]
            flush_suit = x & 3 if x & 3 == y & 3 == z & 3 else -1
            for a, b, pk in pairs:
                if flush_suit >= 0 and a & 3 == flush_suit and b & 3 == flush_suit:
                    mask = 1 << (a >> 2) | 1 << (b >> 2) | 1 << (x >> 2) | 1 << (y >> 2)
                    value = self._flush_value[mask | 1 << (z >> 2)]
                else:
                    value = by_key[(pk + tk) & RANK_MASK]
                if value > best:
                    best = value
        return best

    def omaha_low(self, hole: Sequence[int], board: Sequence[int]) -> int | None:
        if self._tables is None:
            self._t()
        bit = self._low_bit
        hole_mask = 0
        for card in hole:
            hole_mask |= bit[card]
        board_mask = 0
        for card in board:
            board_mask |= bit[card]
        value = self._low_value[hole_mask << 8 | board_mask]
        return None if value == NO_LOW else value


def combination_rows(n: int, k: int) -> npt.NDArray[np.intp]:
    """``combination_indices`` re-exported for callers of this module."""
    return combination_indices(n, k)
