"""Planning the table: which seat a newcomer gets, who is dealt into the next hand, the button,
the blinds, the straddle (of a seat that opted in) and entry bets (or a bomb pot:
``bombplan``), and whether a hand may start at all (enough players ready, the
room's limits not reached)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

from libs.poker.config import BettingStructure, HandConfig
from libs.poker.errors import IllegalAction

from . import errors as TE
from .bombplan import bomb_pot_plan, is_bomb_pot
from .bombvote import vote_open
from .state import TableState
from .timing import rabbit_window_open


def free_seat(s: TableState) -> int:
    """The lowest free seat; SEAT_TAKEN when every seat is taken."""
    assert s.config is not None
    for seat in range(s.config.seats):
        if seat not in s.seats:
            return seat
    raise IllegalAction(TE.SEAT_TAKEN, "every seat is taken")


@dataclass(frozen=True, slots=True)
class HandPlan:
    button: int
    seats: tuple[int, ...]  # by position
    config: HandConfig
    stacks: tuple[int, ...]
    small_blind: int  # seats
    big_blind: int


def _after(seat: int, pool: list[int], size: int) -> int:
    """The first seat of ``pool`` clockwise after ``seat`` (``seat`` itself if it is alone)."""
    for k in range(1, size + 1):
        candidate = (seat + k) % size
        if candidate in pool:
            return candidate
    raise ValueError("empty pool")


def plan_hand(s: TableState) -> HandPlan | None:
    """Who is dealt in next, the button and the forced bets; None if a hand cannot start."""
    cfg = s.config
    if cfg is None or s.closed or s.hand_in_progress:
        return None
    ready = _ready(s)
    active = [n for n in ready if not s.seats[n].waiting_for_big_blind]
    if not active:
        return None
    size = cfg.seats
    button = active[0] if s.button is None else _after(s.button, active, size)
    if is_bomb_pot(s, active) and _may_deal(s, active):
        seats, bomb = bomb_pot_plan(s, button, active)
        return HandPlan(button, seats, bomb, tuple(s.seats[n].stack for n in seats), -1, -1)
    if len(active) >= 2:
        sb = _after(button, active, size)
        bb = _after(sb, ready, size)
        if bb == button:  # two players: the button posts the small blind
            sb, bb = button, sb
    else:
        waiting = [n for n in ready if n not in active]
        if not waiting:
            return None
        sb, bb = button, _after(button, waiting, size)
    dealt = set(active) | {bb}
    if not _may_deal(s, dealt):
        return None
    order = [(button + k) % size for k in range(1, size + 1) if (button + k) % size in dealt]
    n = len(order)
    blinds = [0] * n
    blinds[order.index(sb)] = cfg.small_blind
    blinds[order.index(bb)] = cfg.big_blind
    big_blind_position = order.index(bb)
    if cfg.straddle and n >= 3 and s.seats[order[2]].straddle:  # a straddle is voluntary
        blinds[2] = 2 * cfg.big_blind
        big_blind_position = 2
    dead = [0] * n
    for position, number in enumerate(order):
        if blinds[position]:
            continue  # posting a blind in turn settles what was missed
        if s.seats[number].dead_small_due:
            dead[position] = cfg.small_blind  # a missed small blind, dead
        if s.seats[number].entry_due:
            blinds[position] = cfg.big_blind  # a live entry bet (or missed big blind)
    fixed = cfg.structure is BettingStructure.FIXED_LIMIT
    antes = (cfg.ante,) * n
    if cfg.big_blind_ante:  # one ante for the table, from the big blind, dead
        antes = tuple(cfg.ante if number == bb else 0 for number in order)
    config = HandConfig(
        variant=cfg.variant,
        structure=cfg.structure,
        blinds=tuple(blinds),
        antes=antes,
        dead_antes=cfg.big_blind_ante,
        min_bet=cfg.big_blind,
        big_bet=2 * cfg.big_blind if fixed else 0,
        rake=cfg.rake,
        big_blind_position=big_blind_position,
        dead_blinds=tuple(dead),
        run_it_max=cfg.run_it_max,
    )
    stacks = tuple(s.seats[number].stack for number in order)
    return HandPlan(button, tuple(order), config, stacks, sb, bb)


def _may_deal(s: TableState, dealt: Collection[int]) -> bool:
    """Enough players, and a person among them where the table needs one (bots do not play
    each other alone here)."""
    assert s.config is not None
    if len(dealt) < s.config.min_players_to_start:
        return False
    return not (s.config.needs_a_person and all(s.seats[n].is_bot for n in dealt))


def can_start_hand(s: TableState, now: float) -> bool:
    return start_hand_refusal(s, now) is None


class BlindStepKind(StrEnum):
    SIT_OUT = "sit out"  # the big blind would come to a seat set to sit out at it
    ASK = "ask"  # a seat with auto-post off owes a blind: ask it
    TIMED_OUT = "timed out"  # the seat asked did not answer in time: sit it out
    WAIT = "wait"  # the seat asked may still answer


@dataclass(frozen=True, slots=True)
class BlindStep:
    kind: BlindStepKind
    seat: int


def blind_step(s: TableState, now: float) -> BlindStep | None:
    """What the blinds need before the next hand may start (a hand that could start otherwise),
    first match wins: the big blind's seat set to sit out at it sits out; the seat asked to post
    (auto-post off) is waited for until its deadline, then sat out; the first seat owing a blind
    (small, big, entry bet or dead small blind) with auto-post off is asked. None: the hand may
    start. A tournament's table posts every blind (no settings there)."""
    if all(seat.auto_post_blinds and not seat.sit_out_next_big_blind for seat in s.seats.values()):
        return None  # every seat as by default (most tables): nothing to plan
    if _refusal_before_blinds(s, now) is not None:
        return None
    assert s.config is not None
    plan = plan_hand(s)
    if s.config.tournament or plan is None or plan.config.bomb_pot:
        return None  # a bomb pot has no blinds: its ante is every player's way in
    if s.seats[plan.big_blind].sit_out_next_big_blind:
        return BlindStep(BlindStepKind.SIT_OUT, plan.big_blind)
    owing = [
        number
        for position, number in enumerate(plan.seats)
        if (plan.config.blinds[position] or plan.config.dead_blinds[position])
        and not s.seats[number].auto_post_blinds
        and not s.seats[number].blind_agreed
        and not s.seats[number].is_bot
    ]
    if not owing:
        return None
    if s.blind_seat in owing:
        timed_out = now >= s.blind_deadline
        return BlindStep(BlindStepKind.TIMED_OUT if timed_out else BlindStepKind.WAIT, s.blind_seat)
    return BlindStep(BlindStepKind.ASK, owing[0])


def start_hand_refusal(s: TableState, now: float) -> IllegalAction | None:
    """Why no hand may start now (the error a ``StartHand`` meets), or None when one may."""
    refusal = _refusal_before_blinds(s, now)
    if refusal is not None:
        return refusal
    step = blind_step(s, now)
    if step is not None:
        return IllegalAction(
            TE.BLIND_PENDING, f"the next hand waits for seat {step.seat}'s blind ({step.kind})"
        )
    return None


def _refusal_before_blinds(s: TableState, now: float) -> IllegalAction | None:
    if s.config is None:
        return IllegalAction(TE.TABLE_NOT_FOUND, "the table is not open")
    if s.closed:
        return IllegalAction(TE.TABLE_CLOSED, "the table is closed")
    if s.hand_in_progress:
        return IllegalAction(TE.HAND_IN_PROGRESS, "a hand is already in progress")
    limit = room_limit_reached(s, now)
    if limit is not None:
        return IllegalAction(TE.TABLE_CLOSED, limit)
    if rabbit_window_open(s, now):
        return IllegalAction(
            TE.RABBIT_HUNT_WINDOW,
            "the last hand's rabbit hunt may still be asked for: the next hand follows shortly",
        )
    if vote_open(s) and now < s.bomb_vote.deadline:
        return IllegalAction(
            TE.BOMB_POT_VOTE_OPEN, "a bomb pot is being voted on: the next hand waits for it"
        )
    if s.config.tournament and s.released != s.hands_started + 1:
        return IllegalAction(
            TE.NOT_RELEASED, "a tournament's table deals when its hand is released"
        )
    if plan_hand(s) is None:
        if s.config.needs_a_person and _ready_bots_only(s):
            return IllegalAction(
                TE.NOT_ENOUGH_PLAYERS, "a hand here needs a person dealt in: bots do not play alone"
            )
        return IllegalAction(TE.NOT_ENOUGH_PLAYERS, "a hand needs at least two players ready")
    return None


def _ready(s: TableState) -> list[int]:
    """The seats that may be dealt in, in seat order. At a tournament's table a player sitting
    out (away) is dealt in too: they keep their seat and are blinded off (``hand_flow.away``)."""
    tournament = s.config is not None and s.config.tournament
    return sorted(
        n
        for n, seat in s.seats.items()
        if seat.stack > 0 and (tournament or not seat.sitting_out) and not seat.leaving
    )


def _ready_bots_only(s: TableState) -> bool:
    ready = _ready(s)
    return len(ready) >= 2 and all(s.seats[n].is_bot for n in ready)


def room_limit_reached(s: TableState, now: float) -> str | None:
    """Why the room is over (a close asked for during a hand, its hand or time limit), or None
    while it may go on."""
    cfg = s.config
    if cfg is None:
        return None
    if s.close_requested:  # asked during a hand: over at its end
        return s.close_requested
    if cfg.hand_limit and s.hands_started >= cfg.hand_limit:
        return f"the room's limit of {cfg.hand_limit} hands was reached"
    if cfg.duration_seconds and now >= s.opened_at + cfg.duration_seconds:
        return "the room's time limit was reached"
    return None
