"""A seat's view as the request a table sends the ai service (``DecideRequest``), and its answer
both ways (``DecideResponse`` <-> ``Decision``).

``decide_request`` writes a seat's view as a ``PlayerView`` exactly as a seated player is shown
it: its own hole cards and nobody else's, every seat's stack, bet and status, the pots, the
board and the public actions of the hand (``PlayerView.actions``), plus the legal actions.
"""

from __future__ import annotations

from dataclasses import dataclass

from holdem.ai.v1 import ai_pb2
from holdem.common.v1 import common_pb2 as pb

from libs.ai.decision import Decision
from libs.ai.policy import Level
from libs.ai.view import Move, Pot, SeatView
from libs.poker.events import ActionKind

from .mapping import ACTIONS, MOVES, STREETS, STRUCTURES, VARIANTS, card_to_proto, level_to_proto


@dataclass(frozen=True)
class TableContext:
    """Where the hand's positions sit at the table and who they are (position order)."""

    seats: tuple[int, ...]  # table seat of each position; the last one holds the button
    max_seats: int
    table_id: str = ""
    hand_id: str = ""
    hand_number: int = 0
    player_ids: tuple[str, ...] = ()
    bots: tuple[bool, ...] = ()

    @staticmethod
    def numbered(players: int, table_id: str = "", hand_id: str = "") -> TableContext:
        """Seats 0..n-1 in position order (the button in the last seat)."""
        return TableContext(
            seats=tuple(range(players)),
            max_seats=players,
            table_id=table_id,
            hand_id=hand_id,
            player_ids=tuple(f"seat-{s}" for s in range(players)),
            bots=(True,) * players,
        )


def decide_request(
    view: SeatView,
    level: Level,
    seed: int,
    time_budget_ms: int,
    table: TableContext | None = None,
) -> ai_pb2.DecideRequest:
    """The request a table sends for the seat of ``view``: its ``PlayerView`` and legal actions
    (and, in a tournament, its prizes)."""
    n = view.players
    ctx = table or TableContext.numbered(n)
    if len(ctx.seats) != n:
        raise ValueError(f"{len(ctx.seats)} seats for {n} positions")
    variant = {v: k for k, v in VARIANTS.items()}[view.variant]
    structure = {v: k for k, v in STRUCTURES.items()}[view.structure]
    ante = max((a.amount for a in view.actions if a.move is Move.ANTE), default=0)
    o = view.options
    legal = pb.LegalActions(
        can_fold=o.can_fold,
        can_check=o.can_check,
        can_call=o.can_call,
        call_amount=o.call_amount,
        can_bet_or_raise=o.can_raise,
        min_raise_to=o.min_to,
        max_raise_to=o.max_to,
        all_in_amount=o.all_in_to,
    )
    me = ctx.seats[view.me]
    out = pb.PlayerView(
        table_id=ctx.table_id,
        config=pb.TableConfig(
            variant=variant,
            betting_structure=structure,
            max_seats=ctx.max_seats,
            small_blind=view.small_blind,
            big_blind=view.big_blind,
            ante=ante,
        ),
        hand_id=ctx.hand_id,
        hand_number=ctx.hand_number,
        street=STREETS[view.street],
        board=[card_to_proto(c) for c in view.board],
        button_seat=ctx.seats[-1],
        acting_seat=me,
        viewer_player_id=ctx.player_ids[view.me] if ctx.player_ids else "",
        viewer_seat=me,
        legal_actions=legal,
        table_status=pb.TABLE_STATUS_OPEN,
    )
    for pot in view.pots or (Pot(view.pot, view.live),):
        out.pots.add(amount=pot.amount, eligible_seats=[ctx.seats[p] for p in pot.eligible])
    for p in range(n):
        if view.folded[p]:
            status = pb.SEAT_STATUS_FOLDED
        elif view.stacks[p] == 0:
            status = pb.SEAT_STATUS_ALL_IN
        else:
            status = pb.SEAT_STATUS_ACTIVE
        seat = out.seats.add(
            seat=ctx.seats[p],
            status=status,
            player_id=ctx.player_ids[p] if ctx.player_ids else "",
            is_bot=ctx.bots[p] if ctx.bots else False,
            stack=view.stacks[p],
            committed=view.bets[p],
            hole_card_count=view.variant.hole_card_count,
        )
        if p == view.me:
            seat.hole_cards.extend(card_to_proto(c) for c in view.hole)
    for action in view.actions:
        out.actions.add(
            seat=ctx.seats[action.position],
            street=STREETS[action.street],
            kind=MOVES[action.move],
            amount=action.amount,
            to=action.to,
            all_in=action.all_in,
        )
    request = ai_pb2.DecideRequest(
        view=out,
        legal_actions=legal,
        difficulty=level_to_proto(level),
        seed=seed,
        time_budget_ms=time_budget_ms,
    )
    if view.prizes is not None:
        request.prizes.payouts.extend(view.prizes.payouts)
        request.prizes.other_stacks.extend(view.prizes.others)
    return request


def response_from_decision(decision: Decision) -> ai_pb2.DecideResponse:
    bet = decision.kind in (ActionKind.BET, ActionKind.RAISE)
    return ai_pb2.DecideResponse(
        action=ACTIONS[decision.kind],
        amount=decision.to if bet else 0,
        rationale=decision.rationale,
    )


def decision_from_response(response: ai_pb2.DecideResponse, view: SeatView) -> Decision | None:
    """The answer of an outside bot as a decision (None for an action type it cannot be;
    whether it is legal is for the caller to check)."""
    action = response.action
    why = response.rationale
    if action == pb.ACTION_TYPE_ALL_IN:  # as the engine's AllIn: a call if that is all
        o = view.options
        stack = o.all_in_to - view.bets[view.me]
        if o.can_call and o.call_amount >= stack:
            return Decision(ActionKind.CALL, 0, why)
        kind = ActionKind.BET if view.is_bet else ActionKind.RAISE
        return Decision(kind, o.all_in_to, why)
    for kind, value in ACTIONS.items():
        if value == action:
            bet = kind in (ActionKind.BET, ActionKind.RAISE)
            return Decision(kind, int(response.amount) if bet else 0, why)
    return None
