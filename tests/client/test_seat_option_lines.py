"""The terminal client's lines for sitting out and blinds: the blind question's keys for the
seat asked (with the dead small blind owed), the wait shown to everyone else with its clock, the
viewer's settings beside their stack when not the defaults, "disc" beside a disconnected seat,
and the log lines of the events."""

from __future__ import annotations

import json

from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2 as gw

from libs.table import codec
from libs.table.events import BlindAsked, ConnectionMarked
from libs.tui.model import TableModel


def _between_hands(viewer_seat: int) -> pb.PlayerView:
    view = pb.PlayerView(table_id="t", viewer_seat=viewer_seat, sequence=5)
    view.seats.add(seat=1, player_id="ann", display_name="Ann", stack=100, auto_post_blinds=True)
    view.seats.add(seat=3, player_id="bob", display_name="Bob", stack=90, disconnected=True)
    view.blind_question.seat = 1
    view.blind_question.amount = 2
    view.blind_question.dead_amount = 1
    view.blind_question.deadline.seconds = 1010
    return view


def test_the_seat_asked_gets_the_keys_and_the_others_see_the_wait() -> None:
    asked = TableModel("t")
    asked.set_view(_between_hands(1))
    assert asked.action_line() == "Post your blind of 2 + 1 dead? [y] post  [z] sit out"
    assert asked.turn_line(1000.0) == "Your blind: post it or sit out (10s)"
    other = TableModel("t")
    other.set_view(_between_hands(3))
    assert "[y]" not in other.action_line()
    assert other.turn_line(1004.5) == "Waiting for Ann to post a blind (6s)"


def test_settings_and_disconnection_show_and_the_events_are_logged() -> None:
    model = TableModel("t")
    view = _between_hands(3)
    mine = view.seats[1]
    mine.sit_out_next_big_blind, mine.auto_post_blinds = True, False
    mine.wait_for_big_blind = True
    model.set_view(view)
    assert model.my_cards_line().endswith("stack 90 · out at next BB · blinds asked")
    assert model.seat_lines()[1].endswith("disc")
    for event in (BlindAsked(1, 1010.0), ConnectionMarked(3, False)):
        record = codec.encode(event)
        update = gw.TableUpdate(table_id="t", sequence=6)
        update.commit.recorded.add(
            type=record["type"],
            schema_version=record["v"],
            data=json.dumps(record["data"]).encode(),
        )
        model.apply(update)
    assert model.log[-2:] == ["Ann is asked to post a blind", "You are disconnected"]
