"""What a tournament shows: the clock (level, blinds, what comes next and when), the field
(players left, average and largest stack, the prize pool and what each place pays), and the
standings (players in play by stack, then everyone out by place). Pure reads of the state, for
the gateway's tournament stream, the terminal client and ``holdem tournament --json``."""

from __future__ import annotations

from dataclasses import dataclass

from .clock import level_ends_at
from .payouts import prizes
from .state import TournamentState, chips_in_play, players_left, still_in
from .structure import BlindLevel


@dataclass(frozen=True, slots=True)
class Clock:
    level: int
    blinds: BlindLevel
    on_break: bool
    break_due: bool  # the level is over; the break starts when every table's hand is
    hand_for_hand: bool
    next_change: str  # "level", "break end", or "" (by hands, or the last level)
    seconds_left: float | None  # until ``next_change``


@dataclass(frozen=True, slots=True)
class Standing:
    player_id: str
    stack: int
    table_id: str  # "" once out
    seat: int
    place: int  # 0 while in play
    tied: int
    prize: int


@dataclass(frozen=True, slots=True)
class Summary:
    status: str
    entrants: int
    players_left: int
    tables: int
    most_tables: int  # the most tables open at once
    prize_pool: int
    paid_places: int
    prizes: tuple[int, ...]  # by place, best first, for the field as it is now
    chips_in_play: int
    average_stack: int
    largest_stack: int
    hands: int  # hands released
    moves: int
    hand_for_hand_rounds: int
    clock: Clock | None  # None before the start


def clock(s: TournamentState, now: float) -> Clock | None:
    if s.level == 0:
        return None
    ends = level_ends_at(s)
    if s.on_break:
        change, at = "break end", s.break_ends_at
    elif ends is not None:
        change, at = "level", ends
    else:
        change, at = "", None
    return Clock(
        s.level,
        s.cfg.structure.level(s.level),
        s.on_break,
        s.break_due,
        s.hand_for_hand,
        change,
        None if at is None else max(at - now, 0.0),
    )


def summary(s: TournamentState, now: float) -> Summary:
    left = players_left(s)
    stacks = [e.stack for e in still_in(s)]
    shares = s.cfg.payouts.shares_for(len(s.entrants))
    return Summary(
        status=s.status.value,
        entrants=len(s.entrants),
        players_left=left,
        tables=len(s.tables),
        most_tables=s.most_tables,
        prize_pool=s.prize_pool,
        paid_places=s.cfg.payouts.paid_places(len(s.entrants)),
        prizes=prizes(s.prize_pool, shares),
        chips_in_play=chips_in_play(s),
        average_stack=sum(stacks) // left if left else 0,
        largest_stack=max(stacks, default=0),
        hands=s.hands_released,
        moves=s.moves_ordered,
        hand_for_hand_rounds=s.hand_for_hand_rounds,
        clock=clock(s, now),
    )


def standings(s: TournamentState) -> list[Standing]:
    """Players in play by stack (largest first), then everyone out by place (best first)."""
    rows = [
        Standing(e.player_id, e.stack, e.table_id, e.seat, e.place, e.tied, e.prize)
        for e in s.entrants.values()
    ]
    return sorted(rows, key=lambda r: (r.place != 0, r.place, -r.stack, r.player_id))
