"""Stub of the C extension ``libs.poker.fast._native`` (source: ``_native.c`` beside this file)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

API_VERSION: int
#: Players ``holdem_batch`` takes at most.
MAX_PLAYERS: int

def high(cards: Sequence[int]) -> int: ...
def omaha_high(hole: Sequence[int], board: Sequence[int]) -> int: ...
def omaha_low(hole: Sequence[int], board: Sequence[int]) -> int | None: ...

# Batch kernels (positional arguments only). Card arrays: C-contiguous, 1, 2, 4 or 8-byte
# integers (signed or not), values 0..51, no card twice in a hand (else ValueError naming the
# row). ``out`` is written in place: a C-contiguous int32 array of the given shape. The GIL is
# released while they run.
def high_batch(cards: npt.NDArray[np.integer[Any]], out: npt.NDArray[np.int32], /) -> None:
    """cards [N, 5..7] -> out [N]."""

def holdem_batch(
    holes: Sequence[npt.NDArray[np.integer[Any]]],
    board: npt.NDArray[np.integer[Any]],
    out: npt.NDArray[np.int32],
    /,
) -> None:
    """holes: 1..MAX_PLAYERS arrays [N, 2] or [1, 2] (one hole for every board); board [N, 5];
    out [P, N]."""

def omaha_high_batch(
    hole: npt.NDArray[np.integer[Any]],
    board: npt.NDArray[np.integer[Any]],
    out: npt.NDArray[np.int32],
    /,
) -> None:
    """hole [N, 4] or [1, 4], board [N, 5] -> out [N]."""

def omaha_low_batch(
    hole: npt.NDArray[np.integer[Any]],
    board: npt.NDArray[np.integer[Any]],
    out: npt.NDArray[np.int32],
    /,
) -> None:
    """hole [N, 4] or [1, 4], board [N, 5] -> out [N] (NO_LOW where no low qualifies)."""

def sample(deck: npt.NDArray[np.integer[Any]], out: npt.NDArray[np.uint8], seed: int, /) -> None:
    """Each row of out (uint8 [n, k], k <= len(deck)) gets k distinct cards of the 1-d deck,
    uniformly; xoshiro256** seeded with splitmix64 from seed (modulo 2 ** 64)."""

def init_tables(
    card_key: npt.NDArray[np.int64],
    lo_index: npt.NDArray[np.int32],
    hi_index: tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32]],
    rank_value: tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.int32]],
    flush_suit: npt.NDArray[np.int8],
    flush_value: npt.NDArray[np.int32],
    low_bit: npt.NDArray[np.int32],
    low_value: npt.NDArray[np.int32],
    no_low: int,
    layout: tuple[int, int, int, int],
) -> None: ...
def init_omaha(
    pair_index: npt.NDArray[np.int32],
    triple_index: npt.NDArray[np.int32],
    pair_triple_value: npt.NDArray[np.int32],
) -> None: ...
def set_loader(loader: Callable[[bool], Any] | None) -> None: ...
def ready() -> tuple[bool, bool]: ...
