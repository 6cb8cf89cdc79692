"""What the director (the process manager of phase 2) does for each tournament event: table
commands and wallet credits, each with an idempotency key derived from the event, so a
director that crashed and runs the same events again repeats nothing.

The contract:
- The director reads the tournament's stream in order and carries out each event's directives
  to completion before the next event's (``directives(state_before, event)``; it remembers the
  last event it finished, and redoes the rest after a crash, keys making repeats harmless).
- A tournament table deals a hand only on ``DealHand`` (the table service's tournament mode):
  holding a table between hands - for a break, hand-for-hand, a move - is not sending it.
  Everybody seated with chips is dealt in (no waiting for the big blind); an away player is
  dealt in and blinded off; a busted one sits out until removed. Its chips are the
  tournament's: closing it pays nothing to wallets.
- What the director reports back, as commands: ``ReportHand`` at each hand's end (every dealt
  player's stack at its start and end, the button), ``CompleteMove`` when a move's player sits
  at the destination, ``SettlePayment`` when a wallet was credited, ``Tick`` at
  ``clock.next_deadline``, ``Start`` with a fresh seed when a sit & go is full or a scheduled
  start is due.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.poker.config import BettingStructure, Variant

from . import events as E
from .state import TournamentState, players_left, still_in
from .structure import BlindLevel


@dataclass(frozen=True, slots=True)
class OpenTable:
    """Open a tournament table (hands only on ``DealHand``) at ``blinds``."""

    table_id: str
    variant: Variant
    betting: BettingStructure
    seats: int
    blinds: BlindLevel
    key: str


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    table_id: str
    player_id: str
    seat: int
    stack: int
    is_bot: bool
    bot_level: str
    key: str


@dataclass(frozen=True, slots=True)
class MovePlayer:
    """The move saga: the player leaves ``from_table`` with their stack and sits at
    ``to_seat`` of ``to_table`` with exactly that stack (each step keyed, each repeatable),
    then ``CompleteMove(move_id)``. Both tables are between hands and stay held meanwhile."""

    move_id: str
    player_id: str
    from_table: str
    to_table: str
    to_seat: int
    key: str


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    """A placed player leaves their table (their stack there is 0)."""

    table_id: str
    player_id: str
    key: str


@dataclass(frozen=True, slots=True)
class AddChips:
    """A rebuy's or add-on's chips on the player's seat (the table adds them between the
    seat's hands)."""

    table_id: str
    player_id: str
    amount: int
    key: str


@dataclass(frozen=True, slots=True)
class DealHand:
    """Deal hand number ``hand`` at level ``level``'s blinds, then report it. ``payouts`` and
    ``others``: the prizes for the table's bots (``prizes_of``); empty when not told."""

    table_id: str
    hand: int
    level: int
    blinds: BlindLevel
    key: str
    payouts: tuple[int, ...] = ()
    others: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CloseTable:
    """Close the table: between hands, or (a cancellation) at once, the hand in play voided
    (every chip back where it was before the hand: the rules' fault procedure)."""

    table_id: str
    key: str


@dataclass(frozen=True, slots=True)
class PayPlayer:
    """Credit the wallet (once by ``payment.key``), then ``SettlePayment(payment.key)``."""

    payment: E.Payment


Directive = (
    OpenTable
    | SeatPlayer
    | MovePlayer
    | RemovePlayer
    | AddChips
    | DealHand
    | CloseTable
    | PayPlayer
)


def _table_of(s: TournamentState, player_id: str) -> str:
    """Where the player's chips go: their table, or the one a move in flight takes them to
    (the director finished that move before it reaches this event)."""
    for move in s.moves.values():
        if move.player_id == player_id:
            return move.to_table
    return s.entrants[player_id].table_id


#: A release carries the prizes once at most this many players are left (Hard weighs whatever
#: prizes reach it, libs/ai/shortstack/prizes.py), and in every hand-for-hand round of at most
#: ``PRIZES_MOST`` players (the bubble, when every table waits anyway).
PRIZES_FIELD = 20
#: The most players whose prizes a release names (the table takes at most 100 places).
PRIZES_MOST = 100


def prizes_of(s: TournamentState, table_id: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What a hand released at ``table_id`` tells its bots: the payout shares of the places still
    to win (first place first: every place from 1 to the players left) and the stacks of the
    players with chips at every other table (none at the final table), from the books (each
    table's stacks at its last reported hand; stacks are public, cards never travel). Nothing
    (two empty tuples) while the field is bigger than ``PRIZES_FIELD`` outside hand-for-hand."""
    left = players_left(s)
    if left > PRIZES_MOST or (left > PRIZES_FIELD and not s.hand_for_hand):
        return (), ()
    payouts = s.cfg.payouts.shares_for(len(s.entrants))[:left]
    others = tuple(
        e.stack for e in still_in(s) if e.stack > 0 and e.table_id and e.table_id != table_id
    )
    return payouts, others


def directives(s: TournamentState, event: E.Event) -> list[Directive]:
    """The directives of ``event``, given ``s``, the state it applies to."""
    tid = s.tournament_id
    match event:
        case E.TableOpened():
            cfg = s.cfg
            return [
                OpenTable(
                    event.table_id,
                    cfg.variant,
                    cfg.betting,
                    cfg.seats_per_table,
                    cfg.structure.level(s.level),
                    f"{tid}:open:{event.table_id}",
                )
            ]
        case E.PlayerSeated():
            return [
                SeatPlayer(
                    event.table_id,
                    event.player_id,
                    event.seat,
                    event.stack,
                    event.is_bot,
                    event.bot_level,
                    f"{tid}:seat:{event.player_id}",
                )
            ]
        case E.MoveOrdered():
            return [
                MovePlayer(
                    event.move_id,
                    event.player_id,
                    event.from_table,
                    event.to_table,
                    event.to_seat,
                    f"{tid}:move:{event.move_id}",
                )
            ]
        case E.PlayersPlaced():
            return [
                RemovePlayer(
                    s.entrants[p.player_id].table_id,
                    p.player_id,
                    f"{tid}:remove:{p.player_id}",
                )
                for p in event.placings
                if s.entrants[p.player_id].table_id and p.place > 1  # the winner stays to the close
            ]
        case E.RebuyBought() | E.AddOnBought():
            return [
                AddChips(
                    _table_of(s, event.player_id),
                    event.player_id,
                    event.chips,
                    f"{tid}:chips:{event.key}",
                )
            ]
        case E.HandReleased():
            return [
                DealHand(
                    event.table_id,
                    event.hand,
                    event.level,
                    s.cfg.structure.level(event.level),
                    f"{tid}:deal:{event.table_id}:{event.hand}",
                    *prizes_of(s, event.table_id),
                )
            ]
        case E.TableClosed():
            return [CloseTable(event.table_id, f"{tid}:close:{event.table_id}")]
        case E.PlayerUnregistered():
            return [] if event.refund is None else [PayPlayer(event.refund)]
        case E.TournamentCancelled():
            return [PayPlayer(p) for p in event.refunds]
        case E.PrizesAwarded():
            return [PayPlayer(p) for p in event.prizes]
    return []
