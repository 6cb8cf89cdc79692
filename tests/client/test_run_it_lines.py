"""The terminal client's lines for run it twice and the rabbit hunt: the question's keys while
the viewer is asked (up to the runs offered), nothing once answered, each further run beside the
board, and the rabbit-hunt key between hands at a table that offers it."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.client.view import run_it_asked
from libs.tui.model import TableModel
from services.table.views import card_to_proto


def _asked(most: int, answer: int = 0) -> pb.PlayerView:
    view = pb.PlayerView(table_id="t", hand_id="h", viewer_seat=2)
    view.config.run_it_max = most
    view.seats.add(seat=2, stack=0)
    view.seats.add(seat=4, stack=0)
    view.run_it.most = most
    view.run_it.asked_seats.extend([2, 4])
    view.run_it.viewer_answer = answer
    return view


def test_the_question_shows_its_keys_until_answered() -> None:
    model = TableModel("t")
    model.set_view(_asked(2))
    assert run_it_asked(model.view)
    assert model.action_line() == "Run it how many times? [n] once  [w] twice"
    model.set_view(_asked(3))
    assert "[e] three times" in model.action_line()
    model.set_view(_asked(3, answer=2))
    assert not run_it_asked(model.view)
    assert "Run it" not in model.action_line()


def test_further_runs_show_beside_the_board() -> None:
    model = TableModel("t")
    view = _asked(2, answer=2)
    view.run_it.runs = 2
    view.board.extend(card_to_proto(c) for c in (0, 4, 8, 12, 16))
    view.run_boards.add(cards=[card_to_proto(c) for c in (0, 4, 8, 29, 33)])
    model.set_view(view)
    line = model.board_line()
    assert line.startswith("Board: ") and " | run 2: " in line


def test_the_rabbit_key_between_hands_at_a_table_that_offers_it() -> None:
    model = TableModel("t")
    view = pb.PlayerView(table_id="t", viewer_seat=2)
    view.seats.add(seat=2, stack=100)
    view.config.rabbit_hunt = True
    model.set_view(view)
    assert "[b] rabbit hunt" in model.action_line()
    view.config.rabbit_hunt = False
    model.set_view(view)
    assert "[b]" not in model.action_line()
