"""The state of one hand and ``evolve``, which applies one event to it.

``evolve`` never fails and never mutates its input: it returns a new state. The engine (``decide``)
works on a private copy with ``apply``, the in-place form of the same function, so the two can
never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from .cards import Card
from .config import HandConfig
from .events import (
    ActionKind,
    ActionTaken,
    AntePosted,
    BettingRoundEnded,
    BlindPosted,
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    PotAwarded,
    RakeTaken,
    StreetDealt,
    UncalledBetReturned,
)


class Phase(StrEnum):
    """What the hand waits for."""

    DEALING_HOLE = "dealing_hole"  # the dealer gives hole cards
    BETTING = "betting"  # a player acts (``actors[0]``), or the round is about to close
    DEALING_BOARD = "dealing_board"  # the dealer gives the next street
    SHOWDOWN = "showdown"  # players show or muck in turn (``showdown_queue[0]``)
    AWARDING = "awarding"  # transient: pots are about to be paid
    COMPLETE = "complete"


STREET_NAMES = ("preflop", "flop", "turn", "river")


@dataclass(slots=True)
class HandState:
    """Everything about a hand in progress. Treat it as read-only; ``evolve`` makes new ones."""

    config: HandConfig
    hand_id: str
    starting_stacks: tuple[int, ...]
    stacks: list[int]
    bets: list[int]
    committed: list[int]  # chips put in this hand, antes included, uncalled returns excluded
    antes: list[int]
    folded: list[bool]
    hole: list[tuple[Card, ...]]
    board: list[Card] = field(default_factory=list)
    burns: list[Card] = field(default_factory=list)
    phase: Phase = Phase.DEALING_HOLE
    street: int = 0
    actors: list[int] = field(default_factory=list)
    acted: list[bool] = field(default_factory=list)
    current_bet: int = 0
    increment: int = 0
    raise_count: int = 0
    last_aggressor: int | None = None
    pot: int = 0  # chips collected from finished betting rounds (antes included)
    runout: bool = False  # at most one player can still bet: the board is dealt out
    showdown_queue: list[int] = field(default_factory=list)
    shown: list[tuple[Card, ...] | None] = field(default_factory=list)
    mucked: list[bool] = field(default_factory=list)
    rake: int = 0
    flop_seen: bool = False

    @property
    def player_count(self) -> int:
        return len(self.stacks)

    @property
    def live(self) -> list[int]:
        """Positions still in the hand (not folded, not mucked)."""
        return [i for i in range(len(self.stacks)) if not self.folded[i] and not self.mucked[i]]

    @property
    def actor(self) -> int | None:
        """The position to act in a betting round, else None."""
        if self.phase is Phase.BETTING and self.actors:
            return self.actors[0]
        return None

    @property
    def total_pot(self) -> int:
        """Collected pot plus the bets in front of the players."""
        return self.pot + sum(self.bets)

    @property
    def is_complete(self) -> bool:
        return self.phase is Phase.COMPLETE

    def used_cards(self) -> set[int]:
        used: set[int] = set(self.board)
        used.update(self.burns)
        for cards in self.hole:
            used.update(cards)
        return used

    def copy(self) -> HandState:
        return HandState(
            config=self.config,
            hand_id=self.hand_id,
            starting_stacks=self.starting_stacks,
            stacks=self.stacks[:],
            bets=self.bets[:],
            committed=self.committed[:],
            antes=self.antes[:],
            folded=self.folded[:],
            hole=self.hole[:],
            board=self.board[:],
            burns=self.burns[:],
            phase=self.phase,
            street=self.street,
            actors=self.actors[:],
            acted=self.acted[:],
            current_bet=self.current_bet,
            increment=self.increment,
            raise_count=self.raise_count,
            last_aggressor=self.last_aggressor,
            pot=self.pot,
            runout=self.runout,
            showdown_queue=self.showdown_queue[:],
            shown=self.shown[:],
            mucked=self.mucked[:],
            rake=self.rake,
            flop_seen=self.flop_seen,
        )


def initial_state(event: HandStarted) -> HandState:
    n = event.config.player_count
    if len(event.stacks) != n:
        raise ValueError("one starting stack per position")
    return HandState(
        config=event.config,
        hand_id=event.hand_id,
        starting_stacks=event.stacks,
        stacks=list(event.stacks),
        bets=[0] * n,
        committed=[0] * n,
        antes=[0] * n,
        folded=[False] * n,
        hole=[()] * n,
        acted=[False] * n,
        shown=[None] * n,
        mucked=[False] * n,
    )


def _begin_round(s: HandState) -> None:
    """Open the betting round of ``s.street``: who acts, the bet to call, the raise size."""
    n = len(s.stacks)
    if s.street == 0:
        nominal = [
            s.config.blinds[i] if s.config.blinds[i] > 0 and not s.folded[i] else 0
            for i in range(n)
        ]
        top = max(nominal)
        s.current_bet = max(top, max(s.bets))
        s.increment = top
        s.raise_count = 1 if top > 0 else 0
        # Action starts left of the largest blind (the last one, if several are equal).
        first = (max(range(n), key=lambda i: (nominal[i], i)) + 1) % n if top > 0 else 0
    else:
        s.current_bet = 0
        s.increment = 0
        s.raise_count = 0
        first = 0
    s.last_aggressor = None
    s.acted = [False] * n
    totals = [s.bets[i] + s.stacks[i] if not s.folded[i] else -1 for i in range(n)]
    actors: list[int] = []
    for k in range(n):
        i = (first + k) % n
        if s.folded[i] or s.stacks[i] == 0:
            continue
        # Someone else must be able to put in more than this player already has in.
        if max(totals[j] for j in range(n) if j != i) <= s.bets[i]:
            continue
        actors.append(i)
    if len(actors) == 1 and s.bets[actors[0]] >= s.current_bet:
        actors = []
    s.actors = actors
    s.phase = Phase.BETTING


def _showdown_order(s: HandState) -> list[int]:
    n = len(s.stacks)
    start = s.last_aggressor if s.last_aggressor is not None else 0
    return [
        (start + k) % n
        for k in range(n)
        if not s.folded[(start + k) % n] and not s.mucked[(start + k) % n]
    ]


def apply(s: HandState, event: Event) -> None:
    """Apply ``event`` to ``s`` in place (the engine's private copy)."""
    if isinstance(event, ActionTaken):
        p = event.player
        s.stacks[p] -= event.amount
        s.bets[p] += event.amount
        s.committed[p] += event.amount
        kind = event.kind
        if kind is ActionKind.FOLD:
            s.folded[p] = True
        if kind is ActionKind.BET or kind is ActionKind.RAISE:
            raised_by = event.to - s.current_bet
            full = raised_by >= s.increment
            s.current_bet = event.to
            if full:
                s.increment = raised_by
                s.acted = [False] * len(s.stacks)
            s.raise_count += 1
            s.last_aggressor = p
            n = len(s.stacks)
            s.actors = [
                (p + k) % n
                for k in range(1, n)
                if not s.folded[(p + k) % n] and s.stacks[(p + k) % n] > 0
            ]
        else:
            s.actors.pop(0)
        s.acted[p] = True
    elif isinstance(event, HoleCardsDealt):
        s.hole[event.player] = event.cards
        if all(s.hole):
            _begin_round(s)
    elif isinstance(event, BettingRoundEnded):
        s.pot += sum(s.bets)
        s.bets = [0] * len(s.bets)
        s.actors = []
        live = s.live
        if len(live) <= 1:
            s.phase = Phase.AWARDING
        else:
            can_bet = sum(1 for i in live if s.stacks[i] > 0)
            if can_bet <= 1:
                s.runout = True
            if s.street == 3:
                s.phase = Phase.SHOWDOWN
                s.showdown_queue = [i for i in _showdown_order(s) if s.shown[i] is None]
            else:
                s.phase = Phase.DEALING_BOARD
    elif isinstance(event, StreetDealt):
        if event.burn is not None:
            s.burns.append(event.burn)
        s.board.extend(event.cards)
        s.street = event.street
        s.flop_seen = True
        _begin_round(s)
    elif isinstance(event, UncalledBetReturned):
        p = event.player
        s.bets[p] -= event.amount
        s.committed[p] -= event.amount
        s.stacks[p] += event.amount
    elif isinstance(event, HandShown):
        s.shown[event.player] = event.cards
        if event.player in s.showdown_queue:
            s.showdown_queue.remove(event.player)
    elif isinstance(event, HandMucked):
        s.mucked[event.player] = True
        if event.player in s.showdown_queue:
            s.showdown_queue.remove(event.player)
    elif isinstance(event, AntePosted):
        p = event.player
        s.stacks[p] -= event.amount
        s.committed[p] += event.amount
        s.antes[p] += event.amount
        s.pot += event.amount
    elif isinstance(event, BlindPosted):
        p = event.player
        s.stacks[p] -= event.amount
        s.bets[p] += event.amount
        s.committed[p] += event.amount
    elif isinstance(event, RakeTaken):
        s.rake += event.amount
        s.pot -= event.amount
    elif isinstance(event, PotAwarded):
        for player, amount in event.winners:
            s.stacks[player] += amount
        s.pot -= event.amount
    elif isinstance(event, HandEnded):
        s.phase = Phase.COMPLETE
        s.actors = []
        s.showdown_queue = []
    elif isinstance(event, HandVoided):
        s.stacks = list(event.stacks)
        s.bets = [0] * len(s.bets)
        s.pot = 0
        s.actors = []
        s.showdown_queue = []
        s.phase = Phase.COMPLETE
    elif isinstance(event, HandStarted):  # pragma: no cover - handled by replay()
        raise ValueError("HandStarted begins a new hand; use replay()")


def evolve(state: HandState, event: Event) -> HandState:
    """Return the state after ``event``; ``state`` itself is left as it was."""
    new = state.copy()
    apply(new, event)
    return new


def replay(events: Iterable[Event]) -> HandState:
    """Rebuild a hand from its events; the first must be ``HandStarted``."""
    iterator = iter(events)
    first = next(iterator, None)
    if not isinstance(first, HandStarted):
        raise ValueError("a hand's events begin with HandStarted")
    s = initial_state(first)
    for event in iterator:
        apply(s, event)
    return s
