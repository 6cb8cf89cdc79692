"""Push-or-fold charts, heads-up and six-handed: the solver's equilibrium at every stack depth,
kept as data so a bot reads its strategy in microseconds.

``heads_up_chart(stack, antes)`` gives the small blind's probability of pushing and the big
blind's probability of calling for each of the 169 classes at the nearest kept depth at or
below ``stack`` big blinds (a shorter stack pushes wider, so rounding down errs towards the
deeper, tighter chart's neighbour by at most half a big blind). Depths run from 1 to 30 big
blinds by halves, for three ante structures (``Antes``): none, a tenth of the big blind from
each player, and a big blind ante. ``python -m libs.cli.shortstack charts`` solves them all again
(``GENERATED_WITH`` iterations of fictitious play each; a few minutes).

``table_chart(stack, behind, antes)`` is the six-handed counterpart (multiway.py's one-caller
model): the first player in pushes with the chart's probability for its class, and each of the
``behind`` players left to act calls with its own row; depths 1 to 20 big blinds by halves
(``python -m libs.cli.shortstack tables``, about ten minutes).
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from importlib import resources

import numpy as np
import numpy.typing as npt

from libs.ai.shortstack.equities import heads_up_equities
from libs.ai.shortstack.hands import COUNT, pair_weights
from libs.ai.shortstack.multiway import MAX_BEHIND, MultiwayGame
from libs.ai.shortstack.solver import ShoveGame, solve

DATA = "hu_charts.npy"
STACKS: tuple[float, ...] = tuple(1.0 + 0.5 * k for k in range(59))  # 1 .. 30 big blinds
GENERATED_WITH = {"iterations": 2_000}


class Antes(IntEnum):
    """The forced bets besides the blinds, as the charts know them."""

    NONE = 0
    TENTH = 1  # every player antes a tenth of the big blind
    BIG_BLIND_ANTE = 2  # the big blind also posts one big blind of ante

    @property
    def posts(self) -> tuple[float, float]:
        """(every player's ante, the big blind's ante), in big blinds."""
        return (0.1 if self is Antes.TENTH else 0.0, 1.0 if self is Antes.BIG_BLIND_ANTE else 0.0)

    def game(self, stack: float) -> ShoveGame:
        ante, bba = self.posts
        return ShoveGame(pair_weights(), heads_up_equities(), stack, ante=ante, big_blind_ante=bba)


def solve_all(iterations: int) -> npt.NDArray[np.float64]:
    """``[3, len(STACKS), 2, 169]``: push and call probabilities per ante structure and depth
    (a depth too short to post everything pushes and calls every hand)."""
    out = np.ones((len(Antes), len(STACKS), 2, COUNT))
    for antes in Antes:
        for k, stack in enumerate(STACKS):
            try:
                game = antes.game(stack)
            except ValueError:  # the stack does not cover the forced bets: all in regardless
                continue
            eq = solve(game, iterations)
            out[antes, k, 0], out[antes, k, 1] = eq.push, eq.call
    return out


@cache
def _charts() -> npt.NDArray[np.float64]:
    with resources.files(__package__).joinpath(DATA).open("rb") as stream:
        raw = np.load(stream)
    if raw.shape != (len(Antes), len(STACKS), 2, COUNT) or raw.dtype != np.uint8:
        raise ValueError(f"{DATA} is not a [3, {len(STACKS)}, 2, 169] uint8 table")
    charts: npt.NDArray[np.float64] = raw.astype(np.float64) / 255
    return charts


def heads_up_chart(stack: float, antes: Antes = Antes.NONE) -> tuple[npt.NDArray[np.float64], ...]:
    """(push, call): ``[169]`` probabilities at the kept depth nearest at or below ``stack``."""
    if not np.isfinite(stack) or stack <= 0:
        raise ValueError(f"a stack is a positive number of big blinds, not {stack}")
    k = int(np.searchsorted(STACKS, stack, side="right")) - 1
    push, call = _charts()[antes, max(k, 0)]
    return push, call


# ---- six-handed: first in, and the callers behind (multiway.py)

TABLE_DATA = "table_charts.npz"
TABLE_STACKS: tuple[float, ...] = tuple(1.0 + 0.5 * k for k in range(39))  # 1 .. 20 big blinds
TABLE_GENERATED_WITH = {"iterations": 1_000, "players": 6}


def table_game(antes: Antes, stack: float, behind: int) -> MultiwayGame:
    ante, bba = antes.posts
    players = TABLE_GENERATED_WITH["players"]
    return MultiwayGame(
        pair_weights(), heads_up_equities(), stack, behind, players, ante=ante, big_blind_ante=bba
    )


def solve_tables(iterations: int) -> npt.NDArray[np.float64]:
    """``[3, len(TABLE_STACKS), MAX_BEHIND, 1 + MAX_BEHIND, 169]``: per ante structure, depth
    and number of players behind the first one in, the push probabilities then each caller's
    (in acting order; rows past the callers stay 0)."""
    out = np.zeros((len(Antes), len(TABLE_STACKS), MAX_BEHIND, 1 + MAX_BEHIND, COUNT))
    for antes in Antes:
        for k, stack in enumerate(TABLE_STACKS):
            for behind in range(1, MAX_BEHIND + 1):
                try:
                    game = table_game(antes, stack, behind)
                except ValueError:  # the stack does not cover the forced bets: all in regardless
                    out[antes, k, behind - 1, : behind + 1] = 1.0
                    continue
                eq = game.solve(iterations)
                out[antes, k, behind - 1, 0] = eq.push
                out[antes, k, behind - 1, 1 : behind + 1] = eq.calls
    return out


@cache
def _tables() -> npt.NDArray[np.float64]:
    with resources.files(__package__).joinpath(TABLE_DATA).open("rb") as stream:
        raw = np.load(stream)["charts"]
    shape = (len(Antes), len(TABLE_STACKS), MAX_BEHIND, 1 + MAX_BEHIND, COUNT)
    if raw.shape != shape or raw.dtype != np.uint8:
        raise ValueError(f"{TABLE_DATA} is not a {list(shape)} uint8 table")
    tables: npt.NDArray[np.float64] = raw.astype(np.float64) / 255
    return tables


def table_chart(
    stack: float, behind: int, antes: Antes = Antes.NONE
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(push ``[169]``, calls ``[behind, 169]``) for the first player in with ``behind``
    players left to act, at the kept depth nearest at or below ``stack`` big blinds."""
    if not np.isfinite(stack) or stack <= 0:
        raise ValueError(f"a stack is a positive number of big blinds, not {stack}")
    if not 1 <= behind <= MAX_BEHIND:
        raise ValueError(f"the charts know 1 to {MAX_BEHIND} players behind, not {behind}")
    k = max(int(np.searchsorted(TABLE_STACKS, stack, side="right")) - 1, 0)
    chart = _tables()[antes, k, behind - 1]
    return chart[0], chart[1 : behind + 1]
