"""Blind structures: the levels (blinds, antes or a big blind's ante, each lasting minutes or
hands), the breaks between them, the presets (regular, turbo, hyper) and the one validator.

A structure is data: which level is in force, and since when, is the tournament's state
(libs/tournament/clock.py). Past its last level the last level stays in force: a structure
never runs out. Breaks are always in minutes, whatever the levels are counted in.

Antes: ``ante`` is paid by every player dealt in; with ``big_blind_ante`` one ante of ``ante``
chips is paid by the big blind alone, dead into the main pot (the engine's ``dead_antes``).
The presets use antes paid by every player, which today's tables already deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from libs.errors import InvalidArgument, echo
from libs.table.config import MAX_CHIPS

from .errors import INVALID_STRUCTURE, UNKNOWN_PRESET

MAX_LEVELS = 200
MAX_LEVEL_MINUTES = 24 * 60
MAX_LEVEL_HANDS = 10_000
MAX_BREAK_MINUTES = 120


class LevelUnit(StrEnum):
    """What a level's ``length`` counts."""

    MINUTES = "minutes"
    # Hands dealt at the busiest table since the level began (with one table: its hands).
    HANDS = "hands"


@dataclass(frozen=True, slots=True)
class BlindLevel:
    small_blind: int
    big_blind: int
    ante: int = 0
    big_blind_ante: bool = False  # the big blind pays one ante of ``ante`` for the table
    length: int = 1  # minutes or hands, as the structure counts
    break_minutes: int = 0  # a break after this level (0: none)


@dataclass(frozen=True, slots=True)
class BlindStructure:
    name: str
    unit: LevelUnit
    levels: tuple[BlindLevel, ...]

    def level(self, number: int) -> BlindLevel:
        """Level ``number`` (1-based); past the last, the last."""
        return self.levels[min(max(number, 1), len(self.levels)) - 1]

    @property
    def by_time(self) -> bool:
        return self.unit is LevelUnit.MINUTES


def _refuse(problem: str) -> InvalidArgument:
    return InvalidArgument(INVALID_STRUCTURE, problem)


def validate_structure(structure: BlindStructure) -> None:
    """Refuse (InvalidArgument INVALID_STRUCTURE, naming the level) a structure nobody could
    play: no levels, a level of no length, blinds that are not whole and ordered, an ante above
    the big blind, blinds that go down or a level that repeats the one before."""
    if not isinstance(structure.unit, LevelUnit):
        raise _refuse(f"unit must be minutes or hands, not {echo(str(structure.unit))}")
    if not 1 <= len(structure.levels) <= MAX_LEVELS:
        raise _refuse(f"a structure needs 1 to {MAX_LEVELS} levels, not {len(structure.levels)}")
    longest = MAX_LEVEL_MINUTES if structure.by_time else MAX_LEVEL_HANDS
    previous: BlindLevel | None = None
    for number, level in enumerate(structure.levels, start=1):
        name = f"level {number}"
        if not 1 <= level.big_blind <= MAX_CHIPS:
            raise _refuse(f"{name}: the big blind must be 1..{MAX_CHIPS}, not {level.big_blind}")
        if not 1 <= level.small_blind <= level.big_blind:
            raise _refuse(
                f"{name}: the small blind must be 1..{level.big_blind} (the big blind), "
                f"not {level.small_blind}"
            )
        if not 0 <= level.ante <= level.big_blind:
            raise _refuse(
                f"{name}: the ante must be 0..{level.big_blind} (the big blind), not {level.ante}"
            )
        if level.big_blind_ante and level.ante == 0:
            raise _refuse(f"{name}: a big blind's ante needs an ante above 0")
        if not 1 <= level.length <= longest:
            raise _refuse(
                f"{name}: a level lasts 1..{longest} {structure.unit.value}, not {level.length}"
            )
        if not 0 <= level.break_minutes <= MAX_BREAK_MINUTES:
            raise _refuse(
                f"{name}: a break lasts 0..{MAX_BREAK_MINUTES} minutes, not {level.break_minutes}"
            )
        if previous is not None:
            if level.big_blind < previous.big_blind or level.small_blind < previous.small_blind:
                raise _refuse(
                    f"{name}: the blinds must not go down ({level.small_blind}/{level.big_blind} "
                    f"after {previous.small_blind}/{previous.big_blind})"
                )
            if _stakes(level) == _stakes(previous):
                raise _refuse(f"{name}: the blinds and ante repeat level {number - 1}'s")
        previous = level


def _stakes(level: BlindLevel) -> tuple[int, int, int, bool]:
    return (level.small_blind, level.big_blind, level.ante, level.big_blind_ante)


# ---- presets ----

#: The presets' big blinds; small blind half (rounded down), an ante of a tenth from 150 up.
PRESET_BIG_BLINDS = (
    20, 30, 40, 60, 80, 100, 150, 200, 300, 400, 500, 600, 800, 1_000, 1_200, 1_500, 2_000,
    2_500, 3_000, 4_000, 5_000, 6_000, 8_000, 10_000, 12_000, 15_000, 20_000, 25_000, 30_000,
    40_000, 50_000, 60_000, 80_000, 100_000, 120_000, 150_000, 200_000, 250_000, 300_000,
    400_000, 500_000, 600_000, 800_000, 1_000_000,
)  # fmt: skip
ANTES_FROM_BIG_BLIND = 150


@dataclass(frozen=True, slots=True)
class Preset:
    """How long a preset's levels last (by time and by hands) and how often it breaks."""

    minutes: int
    hands: int
    break_every: int  # levels between breaks (0: no breaks)
    break_minutes: int


PRESETS: dict[str, Preset] = {
    "regular": Preset(minutes=15, hands=16, break_every=4, break_minutes=5),
    "turbo": Preset(minutes=6, hands=8, break_every=8, break_minutes=5),
    "hyper": Preset(minutes=3, hands=4, break_every=0, break_minutes=0),
}


def preset(name: str, unit: LevelUnit = LevelUnit.MINUTES) -> BlindStructure:
    """The preset ``name`` (regular, turbo, hyper), its levels counted in ``unit``."""
    shape = PRESETS.get(name)
    if shape is None:
        raise InvalidArgument(
            UNKNOWN_PRESET, f"no preset {echo(name)}: one of {', '.join(sorted(PRESETS))}"
        )
    length = shape.minutes if unit is LevelUnit.MINUTES else shape.hands
    levels = []
    for number, big_blind in enumerate(PRESET_BIG_BLINDS, start=1):
        ante = big_blind // 10 if big_blind >= ANTES_FROM_BIG_BLIND else 0
        pause = shape.break_every and number % shape.break_every == 0
        levels.append(
            BlindLevel(
                small_blind=big_blind // 2,
                big_blind=big_blind,
                ante=ante,
                length=length,
                break_minutes=shape.break_minutes if pause else 0,
            )
        )
    return BlindStructure(name, unit, tuple(levels))
