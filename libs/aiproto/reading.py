"""A request to the ai service checked and rebuilt as the seat view it describes
(``read_request``): anything inconsistent raises ``InvalidRequest`` with its code, and the
service answers INVALID_ARGUMENT with its message."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from holdem.ai.v1 import ai_pb2
from holdem.common.v1 import common_pb2 as pb

from libs.ai.policy import Level
from libs.ai.view import BOARD_SIZE_BY_STREET, Options, Pot, Prizes, PublicAction, SeatView
from libs.poker.cards import Card
from libs.poker.errors import DUPLICATE_CARD, NOT_YOUR_TURN

from .errors import (
    AMOUNT_OUT_OF_RANGE,
    BAD_ACTION,
    BAD_BOARD,
    BAD_DIFFICULTY,
    BAD_HOLE_CARDS,
    BAD_LEGAL_ACTIONS,
    BAD_SEATS,
    BAD_STREET,
    BAD_STRUCTURE,
    BAD_VARIANT,
    DUPLICATE_SEAT,
    MISSING_FIELD,
    InvalidRequest,
)
from .mapping import DIFFICULTIES, MOVES, STREETS, STRUCTURES, VARIANTS, card_from_proto

MAX_TIME_BUDGET_MS = 10_000
_IN_HAND = (pb.SEAT_STATUS_ACTIVE, pb.SEAT_STATUS_FOLDED, pb.SEAT_STATUS_ALL_IN)


@dataclass(frozen=True)
class Request:
    """A checked request: the view, the level and how to decide."""

    view: SeatView
    level: Level
    seed: int  # 0: the caller wants a fresh random decision
    time_budget_ms: int  # 0: the service's default


def _cards(cards: Iterable[pb.Card], where: str) -> tuple[Card, ...]:
    return tuple(card_from_proto(c, where) for c in cards)


def _hand_seats(view: pb.PlayerView) -> list[pb.SeatView]:
    """Seats dealt into the hand, in position order (the first left of the button first)."""
    dealt = [
        s for s in view.seats if s.status in _IN_HAND and (s.hole_card_count > 0 or s.hole_cards)
    ]
    numbers = [s.seat for s in dealt]
    if len(set(numbers)) != len(numbers):
        raise InvalidRequest(DUPLICATE_SEAT, "a seat number appears twice in view.seats")
    if not 2 <= len(dealt) <= 10:
        raise InvalidRequest(
            BAD_SEATS,
            "a hand has 2 to 10 seats dealt in (status ACTIVE, FOLDED or ALL_IN with "
            f"hole_card_count > 0), the view has {len(dealt)}",
        )
    if not view.HasField("button_seat"):
        raise InvalidRequest(MISSING_FIELD, "view.button_seat is required")
    button = view.button_seat
    size = max(view.config.max_seats, max(numbers) + 1, button + 1)
    return sorted(dealt, key=lambda s: (s.seat - button - 1) % size)


def _options(legal: pb.LegalActions, stack: int, bet: int) -> Options:
    o = Options(
        can_fold=legal.can_fold,
        can_check=legal.can_check,
        can_call=legal.can_call,
        call_amount=legal.call_amount,
        can_raise=legal.can_bet_or_raise,
        min_to=legal.min_raise_to,
        max_to=legal.max_raise_to,
        all_in_to=stack + bet,
    )
    if o.can_check == o.can_call:
        raise InvalidRequest(BAD_LEGAL_ACTIONS, "exactly one of can_check and can_call must be set")
    if o.can_fold and o.can_check:
        raise InvalidRequest(BAD_LEGAL_ACTIONS, "folding is never offered when checking is free")
    if o.can_call and not 0 < o.call_amount <= stack:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE,
            f"call_amount {o.call_amount} must be above 0 and at most the stack {stack}",
        )
    if not o.can_call and o.call_amount != 0:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE, "call_amount must be 0 when there is nothing to call"
        )
    if o.can_raise and not bet < o.min_to <= o.max_to <= stack + bet:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE,
            f"raise bounds {o.min_to}..{o.max_to} must lie above the bet {bet} and within "
            f"the chips {stack + bet}",
        )
    if not o.can_raise and (o.min_to or o.max_to):
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE, "raise bounds must be 0 when raising is not allowed"
        )
    return o


def _prizes(request: ai_pb2.DecideRequest) -> Prizes:
    """A tournament's payouts and the other tables' stacks, checked."""
    payouts, others = tuple(request.prizes.payouts), tuple(request.prizes.other_stacks)
    try:
        return Prizes(payouts, others)
    except ValueError as error:
        raise InvalidRequest(AMOUNT_OUT_OF_RANGE, f"prizes: {error}") from None


def read_request(request: ai_pb2.DecideRequest, viewer_cards: bool = True) -> Request:
    """Check a request and rebuild the seat view it describes. Without ``viewer_cards`` (a
    policy request) the viewer's seat must show none, and the view's ``hole`` is empty."""
    level = DIFFICULTIES.get(request.difficulty)
    if level is None:
        raise InvalidRequest(
            BAD_DIFFICULTY,
            f"difficulty must be EASY, NORMAL or HARD, got {request.difficulty}",
        )
    if request.time_budget_ms > MAX_TIME_BUDGET_MS:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE,
            f"time_budget_ms must be at most {MAX_TIME_BUDGET_MS}, got {request.time_budget_ms}",
        )
    if not request.HasField("view"):
        raise InvalidRequest(MISSING_FIELD, "view is required")
    view = request.view
    config = view.config
    variant = VARIANTS.get(config.variant)
    structure = STRUCTURES.get(config.betting_structure)
    if variant is None:
        raise InvalidRequest(BAD_VARIANT, f"view.config.variant is required, got {config.variant}")
    if structure is None:
        raise InvalidRequest(
            BAD_STRUCTURE,
            f"view.config.betting_structure is required, got {config.betting_structure}",
        )
    if config.big_blind <= 0 or not 0 <= config.small_blind <= config.big_blind:
        raise InvalidRequest(
            AMOUNT_OUT_OF_RANGE,
            f"blinds must satisfy 0 <= small ({config.small_blind}) <= big ({config.big_blind})"
            " and big > 0",
        )
    if view.street not in STREETS:
        raise InvalidRequest(BAD_STREET, f"view.street must be PREFLOP..RIVER, got {view.street}")
    street = STREETS.index(view.street)
    board = _cards(view.board, "view.board")
    if len(board) != BOARD_SIZE_BY_STREET[street]:
        raise InvalidRequest(
            BAD_BOARD,
            f"the board has {BOARD_SIZE_BY_STREET[street]} cards on this street, not {len(board)}",
        )
    seats = _hand_seats(view)
    position = {s.seat: p for p, s in enumerate(seats)}
    if view.button_seat not in position:
        raise InvalidRequest(BAD_SEATS, f"the button seat {view.button_seat} is not in the hand")
    if not view.HasField("viewer_seat") or view.viewer_seat not in position:
        raise InvalidRequest(BAD_SEATS, "view.viewer_seat must be a seat in the hand")
    if view.HasField("acting_seat") and view.acting_seat != view.viewer_seat:
        raise InvalidRequest(
            NOT_YOUR_TURN, f"seat {view.acting_seat} is to act, not the viewer's seat"
        )
    me = position[view.viewer_seat]
    count = variant.hole_card_count
    if len(set(board)) != len(board):
        raise InvalidRequest(DUPLICATE_CARD, "a card appears in the board twice")
    seen: dict[int, str] = {c: "the board" for c in board}
    hole: tuple[Card, ...] = ()
    for s in seats:
        cards = _cards(s.hole_cards, f"seat {s.seat}")
        if s.seat == view.viewer_seat and not viewer_cards and cards:
            raise InvalidRequest(
                BAD_HOLE_CARDS,
                "the viewer's seat shows hole cards: a policy is asked for the holdings "
                "listed instead, so leave them out",
            )
        if s.seat == view.viewer_seat and viewer_cards and len(cards) != count:
            raise InvalidRequest(
                BAD_HOLE_CARDS,
                f"{variant.value} deals {count} hole cards, the viewer's seat shows {len(cards)}",
            )
        if cards and len(cards) != count:
            raise InvalidRequest(
                BAD_HOLE_CARDS, f"seat {s.seat} shows {len(cards)} cards, not {count}"
            )
        if s.stack < 0 or s.committed < 0:
            raise InvalidRequest(AMOUNT_OUT_OF_RANGE, f"seat {s.seat}: stack and bet must be >= 0")
        if s.stack == 0 and s.status == pb.SEAT_STATUS_ACTIVE:
            raise InvalidRequest(
                AMOUNT_OUT_OF_RANGE,
                f"seat {s.seat} is ACTIVE with a stack of 0 (a seat with no chips left is ALL_IN)",
            )
        for c in cards:
            if c in seen:
                raise InvalidRequest(
                    DUPLICATE_CARD, f"{c} appears in {seen[c]} and in seat {s.seat}"
                )
            seen[c] = f"seat {s.seat}"
        if s.seat == view.viewer_seat:
            hole = cards
    actions: list[PublicAction] = []
    kinds = {v: k for k, v in MOVES.items()}
    for i, a in enumerate(view.actions):
        move = kinds.get(a.kind)
        if move is None:
            raise InvalidRequest(BAD_ACTION, f"view.actions[{i}]: unknown kind {a.kind}")
        if a.seat not in position:
            raise InvalidRequest(BAD_ACTION, f"view.actions[{i}]: seat {a.seat} is not in the hand")
        if a.street not in STREETS or STREETS.index(a.street) > street:
            raise InvalidRequest(
                BAD_ACTION, f"view.actions[{i}]: street {a.street} is not played yet"
            )
        if a.amount < 0 or a.to < 0:
            raise InvalidRequest(AMOUNT_OUT_OF_RANGE, f"view.actions[{i}]: amounts must be >= 0")
        actions.append(
            PublicAction(position[a.seat], STREETS.index(a.street), move, a.amount, a.to, a.all_in)
        )
    legal = request.legal_actions if request.HasField("legal_actions") else view.legal_actions
    mine = seats[me]
    if mine.stack <= 0 or mine.status != pb.SEAT_STATUS_ACTIVE:
        raise InvalidRequest(NOT_YOUR_TURN, "the viewer's seat has no chips left to act with")
    options = _options(legal, mine.stack, mine.committed)
    pots = tuple(
        Pot(p.amount, tuple(position[s] for s in p.eligible_seats if s in position))
        for p in view.pots
    )
    if any(p.amount < 0 for p in pots):
        raise InvalidRequest(AMOUNT_OUT_OF_RANGE, "pot amounts must be >= 0")
    bets = tuple(s.committed for s in seats)
    total = sum(p.amount for p in pots) if pots else sum(a.amount for a in actions)
    if total < sum(bets):
        raise InvalidRequest(AMOUNT_OUT_OF_RANGE, f"the pots ({total}) hold less than the bets")
    big_bet = 2 * config.big_blind
    prizes = _prizes(request) if request.HasField("prizes") else None
    return Request(
        view=SeatView(
            variant=variant,
            structure=structure,
            small_blind=config.small_blind,
            big_blind=config.big_blind,
            big_bet=big_bet,
            me=me,
            hole=hole,
            board=board,
            street=street,
            stacks=tuple(s.stack for s in seats),
            bets=bets,
            folded=tuple(s.status == pb.SEAT_STATUS_FOLDED for s in seats),
            pot=total,
            actions=tuple(actions),
            options=options,
            pots=pots,
            prizes=prizes,
        ),
        level=level,
        seed=request.seed,
        time_budget_ms=request.time_budget_ms,
    )
