"""SubmitCommand's table commands from their protos (the servicer's translation, one place):
the commands decided and committed like any other; ``start_hand``, ``show_or_muck``,
``answer_run_it`` and ``rabbit_hunt`` are answered by the servicer itself (``rabbit_command``
reads the rabbit's cards from the last hand's revealed seed)."""

from __future__ import annotations

from holdem.table.v1 import table_pb2

from libs.fairdeck import deck_from_seed
from libs.poker.cards import DECK
from libs.table import TableState
from libs.table import commands as tc
from libs.table.extras import rabbit_positions
from libs.tableproto.config import bot_difficulty_from_proto, config_from_proto


def table_command(
    request: table_pb2.SubmitCommandRequest, which: str, table_id: str, now: float
) -> tc.TableCommand | None:
    """The command ``request`` carries (its oneof ``which``), or None for one that is not a
    plain table command."""
    if which == "open_table":
        opening = request.open_table
        seats = tuple(_sit_down(seat, now) for seat in opening.seats)
        return tc.OpenTable(table_id, config_from_proto(opening.config), now, seats)
    if which == "seat_player":
        return _sit_down(request.seat_player, now)
    if which == "leave_seat":
        return tc.Leave(request.leave_seat.player_id, now)
    if which == "sit_out":
        return tc.SitOut(request.sit_out.player_id, now)
    if which == "sit_in":
        return tc.SitIn(request.sit_in.player_id, now=now)
    if which == "add_chips":
        return tc.AddChips(request.add_chips.player_id, request.add_chips.amount, now)
    if which == "set_auto_muck":
        return tc.SetAutoMuck(request.set_auto_muck.player_id, request.set_auto_muck.auto_muck, now)
    if which == "change_seat":
        return tc.ChangeSeat(request.change_seat.player_id, request.change_seat.seat, now)
    if which == "set_run_it_times":
        r_times = request.set_run_it_times
        return tc.SetRunItTimes(r_times.player_id, r_times.times, now)
    if which == "set_straddle":
        return tc.SetStraddle(request.set_straddle.player_id, request.set_straddle.straddle, now)
    if which == "vote_bomb_pot":
        return tc.VoteBombPot(request.vote_bomb_pot.player_id, request.vote_bomb_pot.agree, now)
    if which == "set_seat_options":
        o = request.set_seat_options
        return tc.SetSeatOptions(
            o.player_id,
            o.sit_out_next_big_blind if o.HasField("sit_out_next_big_blind") else None,
            o.wait_for_big_blind if o.HasField("wait_for_big_blind") else None,
            o.auto_post_blinds if o.HasField("auto_post_blinds") else None,
            now,
        )
    if which == "answer_blind":
        return tc.AnswerBlind(request.answer_blind.player_id, request.answer_blind.post, now)
    if which == "mark_connection":
        m = request.mark_connection
        return tc.MarkConnection(m.player_id, m.connected, now)
    if which == "close_table":
        return tc.CloseTable("closed by owner", now)
    if which == "release_hand":
        r = request.release_hand
        return tc.ReleaseHand(
            r.number,
            r.small_blind,
            r.big_blind,
            r.ante,
            now,
            big_blind_ante=r.big_blind_ante,
            payouts=tuple(r.payouts),
            others=tuple(r.other_stacks),
        )
    return None


def rabbit_command(state: TableState, request: table_pb2.RabbitHunt, now: float) -> tc.RabbitHunt:
    """The rabbit hunt ``request`` asks for, its cards read from the last hand's revealed seed
    at the positions of the streets never dealt; the table's refusal (a hand in play, no rabbit
    hunt here, the river reached, the seed not out yet) as ``rabbit_positions`` raises it. The
    command is decided like any other, so a refusal there too changes nothing."""
    hand_id = request.hand_id or state.hand_id
    positions = rabbit_positions(state, request.player_id, hand_id)
    deck = deck_from_seed(bytes.fromhex(state.revealed_seeds[state.hand_id]))
    cards = tuple(DECK[deck[i]] for i in positions)
    return tc.RabbitHunt(request.player_id, hand_id, cards, now)


def _sit_down(seat: table_pb2.SeatPlayer, now: float) -> tc.SitDown:
    return tc.SitDown(
        seat.player_id,
        seat.seat if seat.HasField("seat") else None,
        seat.buy_in,
        post_entry_bet=not seat.wait_for_big_blind,
        is_bot=seat.is_bot,
        now=now,
        bot_difficulty=bot_difficulty_from_proto(seat.bot_difficulty),
        display_name=seat.display_name,
    )
