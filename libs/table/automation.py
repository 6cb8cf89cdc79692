"""What a table needs next that no player decides: ``next_due(state, now)``, pure.

The table service's driver turns each item into a command (asking the dealer for cards or a
seed, the bot policy for a decision) and commits it; then it asks again. Priorities, first
match wins: reveal the seed of a hand that ended; deal the hole cards; deal the next street
(or the next run of the board; the clock of the question how many times to run it); the
bomb-pot vote's clock;
a bot's turn (betting, or showing at showdown); the action clock of a player whose time ran out;
the blinds of the next hand (a seat sitting out at its big blind, the blind question of a seat
with auto-post off and its clock); start the next hand. Deck positions come from
``libs.poker.dealing.DealLayout``, so asking the dealer again for the same item returns the same
cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from libs.poker.dealing import DealLayout
from libs.poker.legal import LegalActions, legal_actions, showdown_turn
from libs.poker.runs import flatten_run
from libs.poker.state import Phase

from .bombvote import vote_open
from .planning import BlindStepKind, blind_step, can_start_hand
from .state import TableState


@dataclass(frozen=True, slots=True)
class RevealDue:
    """The hand ended and its deck's seed is not in the stream yet."""

    hand_id: str
    deck_id: str


@dataclass(frozen=True, slots=True)
class HoleCardsDue:
    """Every player's hole cards: ``positions[p]`` are the deck positions of hand position p."""

    deck_id: str
    positions: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class BoardDue:
    """The next street: its burn card and board cards, by deck position."""

    deck_id: str
    street: int
    burn: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunDue:
    """A further run of the board (``run`` 2 or 3): its burns and board cards, by deck position
    (after a single run's river: ``DealLayout.run_streets``)."""

    deck_id: str
    run: int
    burns: tuple[int, ...]
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RunItClockDue:
    """The players asked how many times to run the board were waited for long enough."""


@dataclass(frozen=True, slots=True)
class BombPotClockDue:
    """The bomb-pot vote's clock ran out (a ``Tick`` closes it: not agreed)."""


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A bot is to act: bet (``options``: what it may do) or, with ``options`` None, show or
    muck at showdown."""

    player_id: str
    options: LegalActions | None


@dataclass(frozen=True, slots=True)
class ClockDue:
    """The action clock of ``seat`` ran out (a ``Tick`` extends it with the time bank or acts)."""

    seat: int


@dataclass(frozen=True, slots=True)
class BlindsDue:
    """Before the next hand: a seat sits out at its big blind, a seat with auto-post off is
    asked to post, or one asked did not answer in time (a ``Tick`` does each)."""


@dataclass(frozen=True, slots=True)
class HandDue:
    """A new hand may start; ``hand_id`` is its number."""

    hand_id: str


Due = (
    RevealDue
    | HoleCardsDue
    | BoardDue
    | RunDue
    | RunItClockDue
    | BombPotClockDue
    | BotTurn
    | ClockDue
    | BlindsDue
    | HandDue
)


def next_due(s: TableState, now: float) -> Due | None:
    """The one thing the table needs next without a player's decision, or None."""
    if s.config is None:
        return None
    if not s.hand_in_progress and s.hand_id and s.deck_id and s.hand_id not in s.revealed_seeds:
        return RevealDue(s.hand_id, s.deck_id)
    if s.closed:
        return None
    if vote_open(s) and now >= s.bomb_vote.deadline:
        return BombPotClockDue()
    hand = s.hand
    if s.hand_in_progress and hand is not None:
        layout = DealLayout(hand.player_count, hand.config.variant.hole_card_count)
        if hand.phase is Phase.DEALING_HOLE:
            holes = tuple(layout.hole(p) for p in range(hand.player_count))
            return HoleCardsDue(s.deck_id, holes)
        if hand.phase is Phase.DEALING_BOARD:
            street = hand.street + 1
            return BoardDue(s.deck_id, street, layout.burn(street), layout.board(street))
        if hand.phase is Phase.DEALING_RUN:
            run = len(hand.run_boards) + 2
            burns, cards = flatten_run(layout.run_streets(run, hand.run_from))
            return RunDue(s.deck_id, run, tuple(burns), tuple(cards))
        if hand.phase is Phase.AGREEING_RUNS:
            return RunItClockDue() if s.run_it_deadline and now >= s.run_it_deadline else None
        seat = s.acting_seat()
        if seat is not None and s.seats[seat].is_bot:
            options = legal_actions(hand)
            if options is not None or showdown_turn(hand) is not None:
                return BotTurn(s.seats[seat].player_id, options)
            return None
        if s.clock_seat is not None and now >= s.deadline:
            return ClockDue(s.clock_seat)
        return None
    step = blind_step(s, now)
    if step is not None:
        return None if step.kind is BlindStepKind.WAIT else BlindsDue()
    if can_start_hand(s, now):
        return HandDue(f"{s.hands_started + 1}")
    return None
