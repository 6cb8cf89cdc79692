"""The tournament's state (what ``evolve`` folds from its events) and the questions asked of it:
who is still in, who sits where, which windows (registration, rebuy, add-on) are open.

Frozen records throughout: ``evolve`` builds a new state and copies only the containers an
event changes. The books count tournament chips per entrant (``Entrant.stack``): what the
entrant owns in the tournament, on their table or on its way there (a rebuy's chips).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from .config import TournamentConfig, TournamentKind
from .events import Payment


class Status(StrEnum):
    NEW = "new"  # not created
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Bust:
    """An entrant with no chips left, not yet placed."""

    table_id: str
    start_stack: int
    order: int
    rebuy_until: float | None  # may rebuy until then
    in_round: bool  # busted in a hand-for-hand round: ranked when the round is over


@dataclass(frozen=True, slots=True)
class Entrant:
    player_id: str
    entry: int
    key: str  # the registration saga's key
    is_bot: bool
    bot_level: str
    paid: int  # wallet chips paid in: buy-in and fee, rebuys, add-on
    stack: int = 0
    table_id: str = ""  # "" before the draw and once placed
    seat: int = -1
    rebuys: int = 0
    add_ons: int = 0
    bust: Bust | None = None
    place: int = 0  # 0: still in
    tied: int = 1
    prize: int = 0


@dataclass(frozen=True, slots=True)
class Table:
    table_id: str
    number: int
    seats: dict[int, str] = field(default_factory=dict)  # seat -> player
    button: int = -1  # the last hand's button (-1: no hand dealt yet)
    hand: int = 0  # the last hand released here
    in_hand: bool = False  # released and not reported yet
    breaking: bool = False
    hands_this_level: int = 0


@dataclass(frozen=True, slots=True)
class Move:
    move_id: str
    player_id: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int


@dataclass(frozen=True, slots=True)
class TournamentState:
    tournament_id: str = ""
    config: TournamentConfig | None = None
    status: Status = Status.NEW
    created_by: str = ""
    created_at: float = 0.0
    started_at: float = 0.0
    finished_at: float = 0.0
    seed: str = ""
    entrants: dict[str, Entrant] = field(default_factory=dict)  # in registration order
    entries: int = 0  # registrations ever made (the next entry number - 1)
    keys: dict[str, str] = field(default_factory=dict)  # keyed commands decided: key -> player
    tables: dict[str, Table] = field(default_factory=dict)  # open tables
    closed: dict[str, int] = field(default_factory=dict)  # closed tables: their last hand
    tables_opened: int = 0
    most_tables: int = 0  # the most tables open at once
    level: int = 0
    level_started_at: float = 0.0
    break_due: bool = False
    on_break: bool = False
    break_ends_at: float = 0.0
    hand_for_hand: bool = False
    round_tables: frozenset[str] = frozenset()  # tables whose round hand is still being played
    round_order: int = 0
    hand_for_hand_rounds: int = 0
    reports: int = 0  # hands recorded
    hands_released: int = 0
    moves: dict[str, Move] = field(default_factory=dict)  # in flight
    moves_ordered: int = 0
    prize_pool: int = 0
    chips_issued: int = 0  # starting stacks, rebuys and add-ons handed out
    rebuys: int = 0
    add_ons: int = 0
    payments: dict[str, Payment] = field(default_factory=dict)  # owed, not yet settled
    settled: frozenset[str] = frozenset()
    winner: str = ""

    @property
    def cfg(self) -> TournamentConfig:
        assert self.config is not None, "the tournament was not created"
        return self.config

    @property
    def running(self) -> bool:
        return self.status is Status.RUNNING

    @property
    def over(self) -> bool:
        return self.status in (Status.FINISHED, Status.CANCELLED)


def initial(tournament_id: str) -> TournamentState:
    return TournamentState(tournament_id)


# ---- questions ----


def still_in(s: TournamentState) -> Iterator[Entrant]:
    """Entrants without a final place, in registration order."""
    return (e for e in s.entrants.values() if e.place == 0)


def players_left(s: TournamentState) -> int:
    return sum(1 for _ in still_in(s))


def chips_in_play(s: TournamentState) -> int:
    return sum(e.stack for e in s.entrants.values())


def size(s: TournamentState, table: Table) -> int:
    """The players in play at ``table``, what balancing counts: a bust waiting on a rebuy
    decision holds a seat but is not counted until they have chips again."""
    return sum(1 for pid in table.seats.values() if s.entrants[pid].bust is None)


def with_chips(s: TournamentState, table: Table) -> list[int]:
    """The seats of ``table`` whose player has chips, in seat order."""
    return sorted(seat for seat, pid in table.seats.items() if s.entrants[pid].stack > 0)


def moving_tables(s: TournamentState) -> set[str]:
    return {t for m in s.moves.values() for t in (m.from_table, m.to_table)}


def registration_open(s: TournamentState) -> bool:
    """Whether a new entry may register now (seats left aside: see ``full``)."""
    if s.status is Status.REGISTERING:
        return True
    if s.status is not Status.RUNNING or s.cfg.kind is not TournamentKind.SCHEDULED:
        return False
    last = s.cfg.late_registration_levels
    return s.level < last or (s.level == last and not (s.break_due or s.on_break))


def full(s: TournamentState) -> bool:
    return len(s.entrants) >= s.cfg.max_entrants


def rebuy_open(s: TournamentState) -> bool:
    """Rebuys are sold through the rule's last level (not in the break after it)."""
    rule = s.cfg.rebuy
    if rule is None or not s.running:
        return False
    return s.level < rule.last_level or (
        s.level == rule.last_level and not (s.break_due or s.on_break)
    )


def add_on_open(s: TournamentState) -> bool:
    """The add-on is sold during the break after the rule's level (every table is idle)."""
    rule = s.cfg.add_on
    return rule is not None and s.running and s.on_break and s.level == rule.after_level


def hand_for_hand_places(s: TournamentState) -> set[int]:
    """The places decided hand for hand: the configured ones, and the bubble (the best place
    that pays nothing) unless turned off."""
    cfg = s.cfg
    places = set(cfg.hand_for_hand_places)
    if cfg.hand_for_hand_at_bubble:
        paid = cfg.payouts.paid_places(len(s.entrants))
        if paid < len(s.entrants):
            places.add(paid + 1)
    return places
