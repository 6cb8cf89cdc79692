"""Table commands. ``now`` (seconds) comes with every command so the decider stays pure."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from libs.poker.cards import Card
from libs.poker.commands import DealBoard, DealHoleCards, DealRun
from libs.poker.errors import InvalidCommand

from .config import BotDifficulty, TableConfig
from .errors import UNKNOWN_ACTION


class PlayerAction(StrEnum):
    """What a player may ask for when it is their turn to bet: the one list of actions from the
    wire (``holdem.common.v1.ActionType``, mapped once in libs.tableproto) to the engine's
    commands. ``ALL_IN`` puts the whole stack in; the engine records it as the call, bet or
    raise it amounts to (libs.poker's ``ActionKind`` names what an ``ActionTaken`` records)."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    ALL_IN = "all_in"


@dataclass(frozen=True, slots=True)
class OpenTable:
    """``seats``: players seated by the opening itself, in order, in the same commit (each as
    its own ``SitDown`` would be; a refusal of any refuses the opening)."""

    table_id: str
    config: TableConfig
    now: float
    seats: tuple[SitDown, ...] = ()


@dataclass(frozen=True, slots=True)
class SitDown:
    """``seat``: the seat asked for, or None for the first free one (lowest number)."""

    player_id: str
    seat: int | None
    buy_in: int
    post_entry_bet: bool = False  # else wait for the big blind
    is_bot: bool = False
    now: float = 0.0
    bot_difficulty: BotDifficulty | None = None  # bots only; None: NORMAL
    display_name: str = ""  # as the lobby knows the player; empty: unknown here


@dataclass(frozen=True, slots=True)
class Leave:
    player_id: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class SitOut:
    player_id: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class SitIn:
    """``post_entry_bet``: owing the big blind, post it now (True) or wait for it (False);
    None: as the seat's ``wait_for_big_blind`` setting says."""

    player_id: str
    post_entry_bet: bool | None = None
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class AddChips:
    """More chips to a seat, between that seat's hands (a top-up from the player's wallet)."""

    player_id: str
    amount: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class StartHand:
    """Issued by the table service when ``can_start_hand`` says so, with the dealer's commitment."""

    hand_id: str
    commitment: str
    now: float
    deck_id: str = ""


@dataclass(frozen=True, slots=True)
class ReleaseHand:
    """A tournament's table: hand ``number`` may be dealt, at these blinds and ante (the
    tournament's level). A release of a hand already released or dealt changes nothing.
    ``payouts`` and ``others``: the tournament's prizes for this hand (what the places still to
    win pay, first place first, and the stacks alive at its other tables), so the table's bots
    weigh chips by prize equity; empty when the tournament does not say (a big field)."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    now: float = 0.0
    big_blind_ante: bool = False
    payouts: tuple[int, ...] = ()
    others: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Deal:
    """Cards from the dealer, by hand position (hole cards) or for the next street; several
    deals in one command (e.g. every player's hole cards) make one commit."""

    deals: tuple[DealHoleCards | DealBoard | DealRun, ...]
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Act:
    """``amount``: the total to bet or raise to (ignored by the other actions)."""

    player_id: str
    action: PlayerAction
    amount: int = 0
    now: float = 0.0
    hand_id: str = ""  # when given, the action is refused unless that hand is in play

    def __post_init__(self) -> None:
        if not isinstance(self.action, PlayerAction):  # e.g. a plain string from a tool
            try:
                object.__setattr__(self, "action", PlayerAction(self.action))
            except ValueError:
                raise InvalidCommand(UNKNOWN_ACTION, f"unknown action {self.action!r}") from None


@dataclass(frozen=True, slots=True)
class ShowOrMuck:
    """At showdown, on the player's turn: show or muck. After a hand, ``show`` reveals the
    player's cards voluntarily (``hand_id``, when given, must be the hand just played)."""

    player_id: str
    show: bool
    now: float = 0.0
    hand_id: str = ""


@dataclass(frozen=True, slots=True)
class SetAutoMuck:
    player_id: str
    auto_muck: bool
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class SetRunItTimes:
    """The seat's run-it setting (0 = ask me, 1 = once, 2 or 3 = agree up to that many runs)."""

    player_id: str
    times: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class AnswerRunIt:
    """Asked how many times to run the board: up to ``times`` (1..3; 1 declines)."""

    player_id: str
    times: int
    now: float = 0.0
    hand_id: str = ""


@dataclass(frozen=True, slots=True)
class RabbitHunt:
    """Show the cards that would have come in hand ``hand_id`` (the table's last, over before
    the river); ``cards``: those at the deck positions of the streets not dealt, which the table
    service reads from the hand's revealed seed."""

    player_id: str
    hand_id: str
    cards: tuple[Card, ...]
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class SetStraddle:
    """The seat's straddle setting: post the straddle whenever first left of the big blind."""

    player_id: str
    straddle: bool
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class VoteBombPot:
    """``agree``: propose that the next hand be a bomb pot (no vote open) or agree to the open
    vote's; else refuse the open vote's (which closes it)."""

    player_id: str
    agree: bool
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock: act for a player whose time (and time bank) ran out."""

    now: float


@dataclass(frozen=True, slots=True)
class RevealSeed:
    hand_id: str
    seed: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class VoidCurrentHand:
    reason: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class CloseTable:
    reason: str
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class ChangeSeat:
    """Move to another free seat of the table, between the player's hands."""

    player_id: str
    seat: int
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class SetSeatOptions:
    """The seat's blind settings; None leaves a setting as it is (at least one is given)."""

    player_id: str
    sit_out_next_big_blind: bool | None = None
    wait_for_big_blind: bool | None = None
    auto_post_blinds: bool | None = None
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class AnswerBlind:
    """Asked to post a blind (auto-post off): post it in the next hand, or sit out."""

    player_id: str
    post: bool
    now: float = 0.0


@dataclass(frozen=True, slots=True)
class MarkConnection:
    """The gateway's word on the player's connection (its streams and calls)."""

    player_id: str
    connected: bool
    now: float = 0.0


TableCommand = (
    OpenTable
    | SitDown
    | Leave
    | SitOut
    | SitIn
    | AddChips
    | StartHand
    | ReleaseHand
    | Deal
    | Act
    | ShowOrMuck
    | SetAutoMuck
    | Tick
    | RevealSeed
    | VoidCurrentHand
    | CloseTable
    | ChangeSeat
    | SetRunItTimes
    | AnswerRunIt
    | RabbitHunt
    | SetStraddle
    | VoteBombPot
    | SetSeatOptions
    | AnswerBlind
    | MarkConnection
)
