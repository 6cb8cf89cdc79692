"""A table's settings: game, stakes, buy-ins, clock and room limits, and their one validator
(the table service and the lobby both build tables with it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from itertools import pairwise

from libs.poker.config import NO_RAKE, BettingStructure, RakeRule, Variant, fixed_limit_blinds
from libs.poker.errors import InvalidCommand

INVALID_TABLE_CONFIG = "INVALID_TABLE_CONFIG"
#: The most chips one amount may name (buy-ins, top-ups, bets: the proto rules of every request
#: that carries chips), so a table's buy-ins, given or derived, are joinable.
MAX_CHIPS = 10**12
MAX_RAKE_PERCENT = 10.0
MAX_ACTION_SECONDS = 600.0
MAX_TIME_BANK_SECONDS = 3600.0
#: The showdown question's clock (``TableConfig.showdown_seconds``), at most the action clock.
SHOWDOWN_SECONDS = 10.0
#: How long a bomb-pot vote stays open (docs/table-features.md): who has not agreed by then
#: refused, and the next hand waits for the vote until then (or until everyone answered).
BOMB_POT_VOTE_SECONDS = 20.0
#: The most hands a bomb-pot schedule may name (``bomb_pot_every``).
MAX_BOMB_POT_EVERY = 1000
#: The blind question's clock (auto-post off: post the blind or sit out), at most the action
#: clock; who has not answered by then is sat out.
BLIND_SECONDS = 15.0
#: How long the next hand waits after one that ended before the river at a table that offers
#: the rabbit hunt (or until somebody hunted): the time there is to ask.
RABBIT_HUNT_SECONDS = 5.0
#: The most places a released hand's prizes name (``ReleaseHand.payouts``).
MAX_PAYOUTS = 100
#: The most other tables' stacks a released hand carries (``ReleaseHand.others``).
MAX_OTHER_STACKS = 1000


class BotDifficulty(StrEnum):
    """How well a bot seat plays (the ai service's levels; ``libs.ai.Level`` has the same values).
    A bot seated without one plays ``NORMAL``."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class TableConfigError(InvalidCommand):
    """A setting out of range: ``field`` names it, ``problem`` says what it must be."""

    code = INVALID_TABLE_CONFIG

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(INVALID_TABLE_CONFIG, f"{field} {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Stakes: ``small_blind``/``big_blind`` for no-limit and pot-limit. For fixed-limit,
    ``big_blind`` is the small bet (the big bet is twice that) and the small blind is derived
    (half the small bet, rounded down): build those with ``TableConfig.fixed_limit``.

    Buy-ins default to 20 and 100 big blinds; fixed-limit tables require at least 10 small bets.
    ``hand_limit`` (hands) and ``duration_seconds`` close the room after the hand in progress.
    Hands start automatically while at least ``min_players_to_start`` players are ready;
    with ``needs_a_person``, only when one of them is a person (not a bot): bots do not play
    each other alone (the lobby's tables, which anyone may create with AIs: a table of AIs alone
    would play, and cost, forever).
    """

    variant: Variant = Variant.HOLDEM
    structure: BettingStructure = BettingStructure.NO_LIMIT
    seats: int = 6
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    straddle: bool = False
    min_buy_in: int = 0
    max_buy_in: int = 0
    rake: RakeRule = field(default=NO_RAKE)
    action_seconds: float = 30.0
    time_bank_seconds: float = 60.0
    timeouts_before_sit_out: int = 2
    hand_limit: int = 0
    duration_seconds: float = 0.0
    min_players_to_start: int = 2
    needs_a_person: bool = False
    # A tournament's table (docs/tournaments.md): hands only when the tournament releases one
    # (``ReleaseHand``, with its blinds), any stack of 1 chip or more, everybody with chips dealt
    # in, and the chips the tournament's (leaving or closing pays nothing to wallets).
    tournament: bool = False
    #: A big blind's ante (tournaments' levels): the big blind alone posts ``ante`` for the whole
    #: table, dead into the main pot (no part of their bet); nobody else posts one.
    big_blind_ante: bool = False
    #: Spectators chat apart from the seated players (the gateway's chat, docs/chat.md).
    separate_spectator_chat: bool = False
    #: Run it twice: with no betting left before the river the players may agree to deal the
    #: rest of the board up to this many times (1 = not offered; docs/table-features.md).
    run_it_max: int = 1
    #: Rabbit hunt: after a hand that ended before the river, a seated player may ask to see the
    #: cards that would have come (docs/table-features.md).
    rabbit_hunt: bool = False
    #: Bomb pots (docs/table-features.md): every player dealt in antes this many chips, no
    #: blinds, and the hand starts on the flop; 0 = no bomb pots. At most ``min_buy_in`` (a
    #: fresh buy-in covers it); a bomb pot is dealt every ``bomb_pot_every`` hands (hand
    #: numbers N, 2N, ...; 0 = never by schedule) and/or when the players vote for one
    #: (``bomb_pot_vote``). Not at a tournament's table.
    bomb_pot_ante: int = 0
    bomb_pot_every: int = 0
    bomb_pot_vote: bool = False

    def __post_init__(self) -> None:
        if self.tournament:
            if self.needs_a_person:
                raise TableConfigError("needs_a_person", "is not for a tournament's table")
            object.__setattr__(self, "min_buy_in", 1)  # the tournament's stacks, any size
            object.__setattr__(self, "max_buy_in", MAX_CHIPS)
        if not 2 <= self.seats <= 10:
            raise TableConfigError("seats", f"must be 2..10, not {self.seats}")
        if self.big_blind < 1:
            raise TableConfigError("big_blind", "must be at least 1")
        if not 1 <= self.small_blind <= self.big_blind:
            raise TableConfigError("small_blind", "must be at least 1 and at most the big blind")
        if not 0 <= self.ante <= self.big_blind:
            raise TableConfigError("ante", "must be between 0 and the big blind")
        if self.rake.percent > MAX_RAKE_PERCENT:
            raise TableConfigError("rake", f"must be at most {MAX_RAKE_PERCENT:g} % of the pot")
        derived = {name for name in ("min_buy_in", "max_buy_in") if getattr(self, name) <= 0}
        if self.min_buy_in <= 0:
            object.__setattr__(self, "min_buy_in", 20 * self.big_blind)
        if self.max_buy_in <= 0:
            object.__setattr__(self, "max_buy_in", max(100 * self.big_blind, self.min_buy_in))
        for name in ("min_buy_in", "max_buy_in"):  # a table nobody could ever join
            value = getattr(self, name)
            if value > MAX_CHIPS:
                if name in derived:
                    raise TableConfigError(
                        "big_blind",
                        f"{self.big_blind} makes the default {name} {value}, above "
                        f"{MAX_CHIPS}: set {name} or lower the blinds",
                    )
                raise TableConfigError(name, f"must be at most {MAX_CHIPS}")
        if self.structure is BettingStructure.FIXED_LIMIT:
            if self.straddle:
                raise TableConfigError("straddle", "is not allowed at fixed-limit tables")
            small_blind = fixed_limit_blinds(self.big_blind)[0]
            if self.small_blind != small_blind:
                raise TableConfigError(
                    "small_blind",
                    f"must be {small_blind} at fixed limit (half the small bet, rounded down)",
                )
            if self.min_buy_in < 10 * self.big_blind and not self.tournament:
                raise TableConfigError(
                    "min_buy_in", f"must be at least {10 * self.big_blind} (10 small bets)"
                )
        elif self.min_buy_in < self.big_blind and not self.tournament:
            raise TableConfigError(
                "min_buy_in", f"must be at least {self.big_blind} (the big blind)"
            )
        if self.min_buy_in > self.max_buy_in:
            raise TableConfigError("max_buy_in", f"must be at least min_buy_in ({self.min_buy_in})")
        if not 0 < self.action_seconds <= MAX_ACTION_SECONDS:
            raise TableConfigError(
                "action_seconds", f"must be more than 0 and at most {MAX_ACTION_SECONDS:g}"
            )
        if not 0 <= self.time_bank_seconds <= MAX_TIME_BANK_SECONDS:
            raise TableConfigError("time_bank_seconds", f"must be 0..{MAX_TIME_BANK_SECONDS:g}")
        if self.timeouts_before_sit_out < 1:
            raise TableConfigError("timeouts_before_sit_out", "must be at least 1")
        if not 2 <= self.min_players_to_start <= self.seats:
            raise TableConfigError("min_players_to_start", f"must be 2..{self.seats} (the seats)")
        if not 1 <= self.run_it_max <= 3:
            raise TableConfigError(
                "run_it_max", f"must be 1..3 (1: not offered), not {self.run_it_max}"
            )
        self._check_bomb_pots()
        if self.hand_limit < 0:
            raise TableConfigError("hand_limit", "must not be negative")
        if self.duration_seconds < 0:
            raise TableConfigError("duration_seconds", "must not be negative")

    def _check_bomb_pots(self) -> None:
        if not 0 <= self.bomb_pot_every <= MAX_BOMB_POT_EVERY:
            raise TableConfigError(
                "bomb_pot_every", f"must be 0 (no schedule) .. {MAX_BOMB_POT_EVERY} hands"
            )
        wanted = self.bomb_pot_every > 0 or self.bomb_pot_vote
        if self.bomb_pot_ante < 0:
            raise TableConfigError("bomb_pot_ante", "must not be negative")
        if self.bomb_pot_ante == 0:
            if wanted:
                raise TableConfigError(
                    "bomb_pot_ante",
                    "must be at least 1 chip for bomb pots (every N hands or by vote)",
                )
            return
        if not wanted:
            raise TableConfigError(
                "bomb_pot_ante", "needs bomb_pot_every or bomb_pot_vote (when bomb pots are dealt)"
            )
        if self.tournament:
            raise TableConfigError("bomb_pot_ante", "is not for a tournament's table")
        if self.bomb_pot_ante > self.min_buy_in:
            raise TableConfigError(
                "bomb_pot_ante",
                f"must be at most min_buy_in ({self.min_buy_in}): a fresh buy-in covers it",
            )

    @property
    def bomb_pots(self) -> bool:
        """The table deals bomb pots (on a schedule, by vote, or both)."""
        return self.bomb_pot_ante > 0

    @property
    def showdown_seconds(self) -> float:
        """The clock of the showdown's question (show or muck a hand that cannot win): short,
        and never longer than the action clock; it spends no time bank."""
        return min(self.action_seconds, SHOWDOWN_SECONDS)

    @property
    def blind_seconds(self) -> float:
        """The clock of the blind question (a seat with auto-post off is asked to post or sit
        out before the hand): short, never longer than the action clock, no time bank."""
        return min(self.action_seconds, BLIND_SECONDS)

    @staticmethod
    def fixed_limit(small_bet: int, **kwargs: object) -> TableConfig:
        if small_bet < 1:
            raise TableConfigError("big_blind", "(the small bet) must be at least 1")
        small_blind, big_blind = fixed_limit_blinds(small_bet)
        return TableConfig(
            structure=BettingStructure.FIXED_LIMIT,
            small_blind=small_blind,
            big_blind=big_blind,
            **kwargs,  # type: ignore[arg-type]
        )


def check_prizes(payouts: tuple[int, ...], others: tuple[int, ...]) -> None:
    """A released hand's prizes (``ReleaseHand``): what the places still to win pay, first place
    first, never rising (any unit), and the stacks of the players alive at the tournament's other
    tables (each above 0); none at all when the tournament does not say. Raises
    ``TableConfigError`` naming what is wrong."""
    if len(payouts) > MAX_PAYOUTS or any(not 0 <= p <= MAX_CHIPS for p in payouts):
        raise TableConfigError(
            "payouts", f"must be at most {MAX_PAYOUTS} amounts of 0..{MAX_CHIPS}"
        )
    if any(a < b for a, b in pairwise(payouts)):
        raise TableConfigError("payouts", "must run first place first, never rising")
    if len(others) > MAX_OTHER_STACKS or any(not 1 <= o <= MAX_CHIPS for o in others):
        raise TableConfigError(
            "other_stacks", f"must be at most {MAX_OTHER_STACKS} stacks of 1..{MAX_CHIPS}"
        )
    if others and not payouts:
        raise TableConfigError("other_stacks", "come with the payouts they are priced by")
