"""Table events: seating, the clock, room limits. Hand events come from libs.poker and are part of
the same stream (a table commit holds both kinds)."""

from __future__ import annotations

from libs.poker.cards import Card
from libs.poker.events import Event as HandEvent
from libs.poker.events import record

from .config import BotDifficulty, TableConfig


@record
class TableOpened:
    table_id: str
    config: TableConfig
    at: float


@record
class PlayerSeated:
    seat: int
    player_id: str
    stack: int
    waits_for_big_blind: bool  # dealt in only when the big blind reaches this seat
    posts_entry_bet: bool = False  # posts a live big blind in the next hand
    is_bot: bool = False
    bot_difficulty: BotDifficulty | None = None  # set for bots only (how the ai service plays it)
    display_name: str = ""  # the name the lobby seated the player under (empty: none given)


@record
class PlayerLeft:
    """The player left; ``stack`` goes back to their wallet (not at a tournament's table:
    ``tournament``, the chips stay the tournament's)."""

    seat: int
    player_id: str
    stack: int
    tournament: bool = False


@record
class PlayerSatOut:
    seat: int
    reason: str = ""  # "asked", "timed out", "no chips" (busted: the lobby closes the buy-in)
    player_id: str = ""  # the seat's player (empty in commits written before it was recorded)
    tournament: bool = False  # a tournament's table: no buy-in of a wallet to close


@record
class PlayerSatIn:
    seat: int
    waits_for_big_blind: bool
    posts_entry_bet: bool = False  # a live big blind (a missed big blind, posted on return)
    posts_dead_small_blind: bool = False  # a missed small blind, posted dead on return


@record
class AutoMuckSet:
    """The seat's auto-muck setting: at showdown a hand that cannot win is mucked unasked."""

    seat: int
    auto_muck: bool


@record
class ChipsAdded:
    """A top-up: ``amount`` more chips on the seat, from the player's wallet."""

    seat: int
    player_id: str
    amount: int


@record
class RunItTimesSet:
    """The seat's run-it setting: 0 = ask me; 1 = always once (decline); 2, 3 = agree at once
    to run the board up to that many times."""

    seat: int
    times: int


@record
class RunItClockStarted:
    """Players were asked how many times to run the board: who has not answered by
    ``deadline`` runs it once (a short clock; it spends no time bank)."""

    deadline: float


@record
class RabbitHunted:
    """The cards that would have come after a hand ended before the river, shown to the table
    at ``seat``'s request: the board of streets ``first_street``..3, from the deck positions
    those streets would have taken (no chips move)."""

    hand_id: str
    seat: int
    first_street: int
    cards: tuple[Card, ...]


@record
class RabbitHuntOpened:
    """Hand ``hand_id`` ended before the river at a table that offers the rabbit hunt: the next
    hand waits until ``until`` (or until somebody hunted), so there is time to ask."""

    hand_id: str
    until: float


@record
class LeaveRequested:
    """The player asked to leave during a hand: they leave when it ends."""

    seat: int


@record
class HandBegan:
    """A hand starts: ``seats[p]`` is the seat at hand position ``p`` (the button is last)."""

    hand_number: int
    hand_id: str
    button: int
    seats: tuple[int, ...]
    commitment: str
    at: float
    deck_id: str = ""
    small_blind_seat: int = -1
    big_blind_seat: int = -1


@record
class ClockStarted:
    seat: int
    deadline: float


@record
class TimeBankStarted:
    seat: int
    deadline: float


@record
class TimeBankUsed:
    seat: int
    seconds: float


@record
class PlayerTimedOut:
    seat: int


@record
class SeedRevealed:
    hand_id: str
    seed: str


@record
class CloseRequested:
    """Someone with the right to close the table asked during a hand: it closes (``TableClosed``)
    at the hand's end, and no hand starts meanwhile."""

    reason: str


@record
class TableClosed:
    """The room closed; every stack (by seat) goes back to its owner's wallet (not at a
    tournament's table: ``tournament``)."""

    reason: str
    stacks: tuple[tuple[int, str, int], ...]  # (seat, player_id, stack)
    tournament: bool = False


@record
class HandReleased:
    """A tournament's table may deal hand ``number`` at these blinds and ante (with
    ``big_blind_ante``: one ante of ``ante`` chips from the big blind, for the table), with the
    tournament's prizes for it (``payouts`` still to win and the ``others``' stacks at its other
    tables; empty when not told: the bots then play chips)."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    big_blind_ante: bool = False
    payouts: tuple[int, ...] = ()
    others: tuple[int, ...] = ()


@record
class SeatChanged:
    """A player moved to a free seat between their hands (stack, settings and owed blinds move
    with them); ``waits_for_big_blind``: they play again when the big blind reaches the new
    seat (a seat change never skips a blind)."""

    from_seat: int
    to_seat: int
    player_id: str
    waits_for_big_blind: bool


@record
class StraddleSet:
    """The seat's straddle setting: with it on, the seat posts the straddle (2 x the big blind,
    live) whenever it is first left of the big blind at a table that allows it."""

    seat: int
    straddle: bool


@record
class BombPotProposed:
    """``seat`` (``player_id``) proposed that the next hand be a bomb pot, and agrees to it;
    ``voters``: the players whose agreement it needs (those ready to be dealt in), who have
    until ``deadline`` to answer."""

    seat: int
    player_id: str
    voters: tuple[str, ...]
    deadline: float


@record
class SeatOptionsSet:
    """The seat's blind settings (docs/table-features.md, "Sitting out and blinds"):
    ``sit_out_next_big_blind``: play on until the big blind would come to the seat, then sit
    out before posting it; ``wait_for_big_blind``: when owing an entry bet (new, back from
    sitting out after missing the big blind), wait for the big blind instead of posting now;
    ``auto_post_blinds``: post every blind due unasked (off: asked, with a short clock)."""

    seat: int
    sit_out_next_big_blind: bool
    wait_for_big_blind: bool
    auto_post_blinds: bool


@record
class BlindAsked:
    """The next hand waits for ``seat`` (auto-post off) to post its blind or sit out; who has
    not answered by ``deadline`` is sat out."""

    seat: int
    deadline: float


@record
class BombPotVoted:
    """A player of the open vote agreed to the bomb pot (a refusal closes the vote:
    ``BombPotVoteClosed``)."""

    seat: int
    player_id: str


@record
class BombPotVoteClosed:
    """The vote is over: ``agreed`` (every voter agreed: the next hand is a bomb pot, if every
    player dealt in agreed) or not (``reason``: refused, or the clock ran out)."""

    agreed: bool
    reason: str = ""


@record
class BlindAgreed:
    """``seat`` answered the blind question: it posts its blind in the next hand."""

    seat: int


@record
class ConnectionMarked:
    """The gateway saw the seat's player connect (``connected``) or go: a disconnected player's
    turn gets the time bank once, then they are folded and sat out (disconnect protection)."""

    seat: int
    connected: bool


TableEvent = (
    TableOpened
    | PlayerSeated
    | PlayerLeft
    | PlayerSatOut
    | PlayerSatIn
    | AutoMuckSet
    | ChipsAdded
    | LeaveRequested
    | HandBegan
    | ClockStarted
    | TimeBankStarted
    | TimeBankUsed
    | PlayerTimedOut
    | SeedRevealed
    | CloseRequested
    | TableClosed
    | HandReleased
    | SeatChanged
    | RunItTimesSet
    | RunItClockStarted
    | RabbitHunted
    | RabbitHuntOpened
    | StraddleSet
    | BombPotProposed
    | BombPotVoted
    | BombPotVoteClosed
    | SeatOptionsSet
    | BlindAsked
    | BlindAgreed
    | ConnectionMarked
)
Event = TableEvent | HandEvent
