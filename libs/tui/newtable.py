"""What a new table is asked for (``NewTable``: by the lobby screen's form or ``holdem play
--create``), the words for its variant, structure and AI levels on the command line, and the
buy-in a player brings by default."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from holdem.common.v1 import common_pb2 as pb

LEVELS = {
    "easy": pb.BOT_DIFFICULTY_EASY,
    "normal": pb.BOT_DIFFICULTY_NORMAL,
    "hard": pb.BOT_DIFFICULTY_HARD,
}
VARIANT_ARGS = {
    "holdem": pb.VARIANT_HOLDEM,
    "omaha": pb.VARIANT_OMAHA,
    "omaha-hi-lo": pb.VARIANT_OMAHA_HI_LO,
}
STRUCTURE_ARGS = {
    "nl": pb.BETTING_STRUCTURE_NO_LIMIT,
    "pl": pb.BETTING_STRUCTURE_POT_LIMIT,
    "fl": pb.BETTING_STRUCTURE_FIXED_LIMIT,
}


@dataclass
class NewTable:
    """What the create-table form (or ``holdem play --create``) asks for."""

    variant: pb.Variant.ValueType = pb.VARIANT_HOLDEM
    structure: pb.BettingStructure.ValueType = pb.BETTING_STRUCTURE_NO_LIMIT
    small_blind: int = 1
    big_blind: int = 2
    seats: int = 6
    bots: Sequence[pb.BotDifficulty.ValueType] = field(default_factory=list)
    name: str = ""
    hand_limit: int = 0
    run_it_max: int = 1  # run it twice: 2 or 3 offered (docs/table-features.md)
    rabbit_hunt: bool = False
    straddle: bool = False  # a seat may opt in to straddle
    bomb_pot_ante: int = 0  # bomb pots: chips each player antes (0: none)
    bomb_pot_every: int = 0  # every N hands (0: not on a schedule)
    bomb_pot_vote: bool = False  # by the players' vote
    private: bool = False  # not listed: joined with the password or the invite code
    password: str = ""  # a private table's (empty: the invite code only)
    approve_seats: bool = False  # the creator approves each seat (makes the table private)

    @property
    def is_private(self) -> bool:
        return self.private or bool(self.password) or self.approve_seats

    def config(self) -> pb.TableConfig:
        return pb.TableConfig(
            variant=self.variant,
            betting_structure=self.structure,
            max_seats=self.seats,
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            hand_limit=self.hand_limit,
            run_it_max=self.run_it_max,
            rabbit_hunt=self.rabbit_hunt,
            straddle_allowed=self.straddle,
            bomb_pot_ante=self.bomb_pot_ante,
            bomb_pot_every=self.bomb_pot_every,
            bomb_pot_vote=self.bomb_pot_vote,
        )


def parse_blinds(text: str) -> tuple[int, int]:
    """ "1/2" -> (1, 2); anything else raises ValueError saying the form (the table checks the
    amounts)."""
    small, slash, big = text.strip().partition("/")
    if slash and small.strip().isdigit() and big.strip().isdigit():
        return int(small), int(big)
    raise ValueError(f"blinds are SMALL/BIG, e.g. 1/2, not {text[:32]!r}")


def parse_levels(text: str) -> list[pb.BotDifficulty.ValueType]:
    """ "normal,easy,hard" -> levels; unknown words raise ValueError."""
    words = [w.strip().lower() for w in text.replace(" ", ",").split(",") if w.strip()]
    unknown = [w for w in words if w not in LEVELS]
    if unknown:
        raise ValueError(f"unknown AI level {unknown[0]!r} (easy, normal, hard)")
    return [LEVELS[w] for w in words]


def default_buy_in(config: pb.TableConfig) -> int:
    return config.max_buy_in or config.big_blind * 100
