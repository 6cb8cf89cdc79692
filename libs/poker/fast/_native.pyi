"""Stub of the C extension ``libs.poker.fast._native`` (source: ``_native.c`` beside this file)."""

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

API_VERSION: int

def high(cards: Sequence[int]) -> int: ...
def omaha_high(hole: Sequence[int], board: Sequence[int]) -> int: ...
def omaha_low(hole: Sequence[int], board: Sequence[int]) -> int | None: ...
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
