"""When time alone makes something due at a table (pure): the clock of the decision in play,
the question how many times to run the board, the blind question of a seat with auto-post off,
the moment the next hand may follow a hand that waits for a rabbit hunt, the bomb-pot vote. The
driver of the table service sleeps until ``wake_at``."""

from __future__ import annotations

from libs.poker.state import Phase

from .bombvote import vote_open
from .state import TableState


def wake_at(s: TableState) -> float | None:
    """When a clock runs out at ``s`` (None: nothing waits for time alone)."""
    at = _hand_wake_at(s)
    if vote_open(s):  # the bomb-pot vote's clock
        return s.bomb_vote.deadline if at is None else min(at, s.bomb_vote.deadline)
    return at


def _hand_wake_at(s: TableState) -> float | None:
    if not s.hand_in_progress or s.hand is None:
        hunted = s.rabbit_hand == s.hand_id
        rabbit = s.rabbit_until if s.rabbit_until and not hunted else None
        if s.blind_seat is not None:  # the blind question's clock
            return s.blind_deadline if rabbit is None else min(rabbit, s.blind_deadline)
        return rabbit
    if s.hand.phase is Phase.AGREEING_RUNS:
        return s.run_it_deadline or None
    return s.deadline if s.clock_seat is not None else None


def rabbit_window_open(s: TableState, now: float) -> bool:
    """The last hand waits for a rabbit hunt until ``rabbit_until`` (nobody hunted yet)."""
    if s.hand_in_progress or now >= s.rabbit_until:
        return False
    return s.rabbit_hand != s.hand_id
