"""Proto <-> domain for the table service: the view of a table one viewer may see (their own cards
and the cards shown; nobody else's) and the public history of the hand in play. Table configs and
actions translate in libs.tableproto."""

from __future__ import annotations

import functools

from google.protobuf.timestamp_pb2 import Timestamp
from holdem.common.v1 import common_pb2 as pb

from libs.aiproto.mapping import MOVES
from libs.poker.legal import legal_actions, pots_of, showdown_turn
from libs.poker.state import Phase
from libs.table import TableConfig, TableState, plan_hand
from libs.tableproto.config import config_to_proto

STREETS = (pb.STREET_PREFLOP, pb.STREET_FLOP, pb.STREET_TURN, pb.STREET_RIVER)


def card_to_proto(card: int) -> pb.Card:
    return pb.Card(rank=(card >> 2) + 2, suit=(card & 3) + 1)  # type: ignore[arg-type]


@functools.lru_cache(maxsize=1024)
def _config(config: TableConfig) -> pb.TableConfig:
    """A table's config on the wire, built once per config (a table's never changes; views copy
    it, never change it)."""
    return config_to_proto(config)


def player_view(
    table_id: str, state: TableState, sequence: int, viewer: str | None
) -> pb.PlayerView:
    """What ``viewer`` (a player id, or None for a spectator) may see of the table."""
    view = pb.PlayerView(table_id=table_id, sequence=sequence, viewer_player_id=viewer or "")
    if state.config is not None:
        view.config.CopyFrom(_config(state.config))
    view.table_status = (
        pb.TABLE_STATUS_CLOSED
        if state.closed
        else pb.TABLE_STATUS_CLOSING
        if state.close_requested
        else pb.TABLE_STATUS_OPEN
    )
    viewer_seat = state.seat_of(viewer) if viewer else None
    if viewer_seat is not None:
        view.viewer_seat = viewer_seat
    hand = state.hand if state.hand_in_progress else None
    if state.button is not None:
        view.button_seat = state.button
    if hand is not None:
        view.hand_id = state.hand_id
        view.hand_number = state.hands_started
        view.street = STREETS[hand.street]
        view.board.extend(card_to_proto(c) for c in hand.board)
        for pot in pots_of(hand):
            view.pots.add(
                amount=pot.amount, eligible_seats=[state.hand_seats[p] for p in pot.eligible]
            )
        for action in state.actions:
            view.actions.add(
                seat=state.hand_seats[action.position],
                street=STREETS[action.street],
                kind=MOVES[action.move],
                amount=action.amount,
                to=action.to,
                all_in=action.all_in,
            )
        acting = state.acting_seat()
        if acting is not None:
            view.acting_seat = acting
            if state.clock_seat == acting:
                view.action_deadline.CopyFrom(timestamp(state.deadline))
                view.time_bank_running = state.bank_started_at is not None
        _run_it(view, state, viewer_seat)
        turn = showdown_turn(hand)
        if turn is not None and viewer_seat is not None and acting == viewer_seat:
            view.showdown.can_muck = turn.can_muck
        options = legal_actions(hand)
        if options is not None and viewer_seat is not None and acting == viewer_seat:
            view.legal_actions.CopyFrom(
                pb.LegalActions(
                    can_fold=options.can_fold,
                    can_check=options.can_check,
                    can_call=options.can_call,
                    call_amount=options.call_amount,
                    can_bet_or_raise=options.can_raise,
                    min_raise_to=options.min_to,
                    max_raise_to=options.max_to,
                    all_in_amount=options.stack + options.bet,
                )
            )
    for number in sorted(state.seats):
        seat = state.seats[number]
        seat_view = view.seats.add(
            seat=number,
            player_id=seat.player_id,
            display_name=seat.display_name,
            is_bot=seat.is_bot,
            stack=seat.stack,
            time_bank_seconds=int(seat.time_bank),
            run_it_times=seat.run_it_times,
            straddle=seat.straddle,
            disconnected=seat.disconnected,
        )
        if number == viewer_seat:  # the blind settings are the player's own business
            seat_view.sit_out_next_big_blind = seat.sit_out_next_big_blind
            seat_view.auto_post_blinds = seat.auto_post_blinds
            seat_view.wait_for_big_blind = seat.wait_for_big_blind
        position = state.position_of(number) if hand is not None else None
        if hand is not None and position is not None:
            seat_view.stack = hand.stacks[position]
            seat_view.committed = hand.bets[position]
            seat_view.hole_card_count = len(hand.hole[position])
            shown = hand.shown[position]
            if shown is not None:
                seat_view.hole_cards.extend(card_to_proto(c) for c in shown)
            elif number == viewer_seat:
                seat_view.hole_cards.extend(card_to_proto(c) for c in hand.hole[position])
            if hand.folded[position]:
                seat_view.status = pb.SEAT_STATUS_FOLDED
            elif hand.stacks[position] == 0:
                seat_view.status = pb.SEAT_STATUS_ALL_IN
            else:
                seat_view.status = pb.SEAT_STATUS_ACTIVE
        elif seat.sitting_out:
            seat_view.status = pb.SEAT_STATUS_SITTING_OUT
        elif seat.waiting_for_big_blind:
            seat_view.status = pb.SEAT_STATUS_WAITING
        else:
            seat_view.status = pb.SEAT_STATUS_ACTIVE
    if hand is None and state.rabbit and state.rabbit_hand == state.hand_id:
        view.rabbit.CopyFrom(rabbit_to_proto(state))
    view.bomb_pot = hand is not None and hand.config.bomb_pot
    bomb_pot_vote(view, state, viewer)
    if hand is None and state.blind_seat is not None:
        _blind_question(view, state, state.blind_seat)
    return view


def bomb_pot_vote(view: pb.PlayerView, state: TableState, viewer: str | None) -> None:
    """The bomb-pot vote while open, and once agreed until the bomb pot it made is dealt."""
    agreed = state.bomb_vote.for_hand == state.hands_started + 1
    if not (state.bomb_vote.deadline or agreed) or not state.bomb_vote.agreed:
        return
    seats = {seat.player_id: number for number, seat in state.seats.items()}
    vote = view.bomb_pot_vote
    proposer = seats.get(state.bomb_vote.agreed[0])
    if proposer is not None:
        vote.proposer_seat = proposer
    vote.asked_seats.extend(sorted(seats[p] for p in state.bomb_vote.voters if p in seats))
    vote.agreed_seats.extend(sorted(seats[p] for p in state.bomb_vote.agreed if p in seats))
    if state.bomb_vote.deadline:
        vote.deadline.CopyFrom(timestamp(state.bomb_vote.deadline))
    vote.agreed = agreed
    vote.viewer_agreed = viewer is not None and viewer in state.bomb_vote.agreed


def _blind_question(view: pb.PlayerView, state: TableState, seat: int) -> None:
    """The blind question of the next hand: the seat asked and what it owes as planned now."""
    plan = plan_hand(state)
    if plan is None or seat not in plan.seats:
        return
    position = plan.seats.index(seat)
    view.blind_question.CopyFrom(
        pb.BlindQuestion(
            seat=seat,
            amount=plan.config.blinds[position],
            dead_amount=plan.config.dead_blinds[position],
            deadline=timestamp(state.blind_deadline),
        )
    )


def rabbit_to_proto(state: TableState) -> pb.RabbitCards:
    """The table's last rabbit hunt (``rabbit_hand`` says of which hand)."""
    return pb.RabbitCards(
        hand_id=state.rabbit_hand,
        first_street=STREETS[state.rabbit_street],
        cards=[card_to_proto(c) for c in state.rabbit],
        seat=state.rabbit_seat,
    )


def _run_it(view: pb.PlayerView, state: TableState, viewer_seat: int | None) -> None:
    """The run-it question of the hand in play, and each further run of the board once dealt
    (never before: a run's cards are in the state only after its ``RunDealt``)."""
    hand = state.hand
    if hand is None or not hand.run_asked:
        return
    for board in hand.run_boards:
        view.run_boards.add(cards=[card_to_proto(c) for c in board])
    question = view.run_it
    question.most = hand.run_most
    question.asked_seats.extend(state.hand_seats[p] for p in hand.run_asked)
    question.answered_seats.extend(
        state.hand_seats[p] for p in hand.run_asked if hand.run_answers[p]
    )
    if hand.phase is Phase.AGREEING_RUNS:
        if state.run_it_deadline:
            question.deadline.CopyFrom(timestamp(state.run_it_deadline))
    else:
        question.runs = hand.runs
    position = None if viewer_seat is None else state.position_of(viewer_seat)
    if position is not None and position in hand.run_asked:
        question.viewer_answer = hand.run_answers[position]


def timestamp(seconds: float) -> Timestamp:
    """``seconds`` since the epoch as a protobuf Timestamp."""
    return Timestamp(seconds=int(seconds), nanos=int((seconds % 1) * 1e9))
