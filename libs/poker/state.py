"""The state of one hand (``HandState``): what it waits for (``Phase``), every position's chips,
cards and status, and the betting round in progress; ``initial_state`` from its ``HandStarted``.

States are treated as read-only: ``libs.poker.evolve`` makes new ones (and the engine changes
only its private ``copy``, which shares nothing mutable with the state it came from).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cards import Card
from .config import HandConfig
from .events import HandStarted


class Phase(StrEnum):
    """What the hand waits for."""

    DEALING_HOLE = "dealing_hole"  # the dealer gives hole cards
    BETTING = "betting"  # a player acts (``actors[0]``), or the round is about to close
    DEALING_BOARD = "dealing_board"  # the dealer gives the next street
    SHOWDOWN = "showdown"  # players show or muck in turn (``showdown_queue[0]``)
    AWARDING = "awarding"  # transient: pots are about to be paid
    AGREEING_RUNS = "agreeing_runs"  # players answer: run the rest of the board how many times
    DEALING_RUN = "dealing_run"  # the dealer gives the next extra run of the board
    COMPLETE = "complete"


STREET_NAMES = ("preflop", "flop", "turn", "river")


@dataclass
class HandState:
    """Everything about a hand in progress. Treat it as read-only; ``evolve`` makes new ones."""

    config: HandConfig
    hand_id: str
    starting_stacks: tuple[int, ...]
    stacks: list[int]
    bets: list[int]
    committed: list[int]  # chips put in this hand, antes included, uncalled returns excluded
    antes: tuple[int, ...]
    folded: list[bool]
    # Fields that change a few times a hand are tuples (replaced, never mutated), so ``copy``,
    # which runs once per command, only has to copy the lists that betting changes.
    hole: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...] = ()
    burns: tuple[Card, ...] = ()
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
    showdown_queue: tuple[int, ...] = ()
    shown: tuple[tuple[Card, ...] | None, ...] = ()
    mucked: tuple[bool, ...] = ()
    rake: int = 0
    flop_seen: bool = False
    dealt_mask: int = 0  # bit c set once card c is dealt (hole, board or burn)
    dead: tuple[int, ...] = ()  # dead blinds posted, by position
    # Running the board more than once (libs.poker.runs). ``run_asked``: the positions asked
    # (empty: never offered); ``run_answers[p]``: p's answer, 0 while none; ``runs``: how many
    # times the board is run (1 until agreed otherwise); ``run_from``: the street dealt when it
    # was agreed; ``run_boards``: the complete boards of the runs after the first, as dealt.
    run_asked: tuple[int, ...] = ()
    run_answers: tuple[int, ...] = ()
    run_most: int = 1
    runs: int = 1
    run_from: int = 0
    run_boards: tuple[tuple[Card, ...], ...] = ()
    voided: bool = False  # ended by HandVoided

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
        """Every card dealt so far (hole cards, board and burns)."""
        used: set[int] = set(self.board)
        used.update(self.burns)
        for cards in self.hole:
            used.update(cards)
        return used

    def copy(self) -> HandState:
        """A copy sharing nothing mutable with this state (the hot path: one per command)."""
        new = object.__new__(HandState)
        d = new.__dict__
        d.update(self.__dict__)
        d.pop("_legal", None)  # what the old state's player could do (legal.legal_actions)
        _copy_lists(d)
        return new


_LIST_FIELDS = ("stacks", "bets", "committed", "folded", "actors", "acted")


def _list_copier() -> Callable[[dict[str, Any]], None]:
    """``d[name] = d[name][:]`` for every list field, unrolled (no loop on the hot path)."""
    lines = ["def copy_lists(d):"] + [f"    d[{n!r}] = d[{n!r}][:]" for n in _LIST_FIELDS]
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)
    copier: Callable[[dict[str, Any]], None] = namespace["copy_lists"]
    return copier


_copy_lists = _list_copier()


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
        antes=(0,) * n,
        folded=[False] * n,
        hole=((),) * n,
        acted=[False] * n,
        shown=(None,) * n,
        mucked=(False,) * n,
        dead=(0,) * n,
    )
