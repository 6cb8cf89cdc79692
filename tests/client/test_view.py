"""The view helpers and the terminal client's lines at a showdown turn: the turn is the view's
explicit ``showdown`` choice (not the absence of ``legal_actions``), muck is offered only when
allowed, and the showdown's clock shows no time bank."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.client.view import bet_sizes, can_muck, is_my_turn, is_showdown_turn


def _view(*, showdown: bool | None, betting: bool = False) -> pb.PlayerView:
    view = pb.PlayerView(table_id="t", hand_id="h", viewer_seat=2, acting_seat=2)
    view.seats.add(seat=2, stack=100, time_bank_seconds=30)
    view.action_deadline.seconds = 1_000
    if showdown is not None:
        view.showdown.can_muck = showdown
    if betting:
        view.legal_actions.can_fold = True
        view.legal_actions.can_bet_or_raise = True
        view.legal_actions.min_raise_to = 4
        view.legal_actions.max_raise_to = 100
    return view


def test_a_showdown_turn_is_the_explicit_choice() -> None:
    asked = _view(showdown=True)
    assert is_my_turn(asked) and is_showdown_turn(asked) and can_muck(asked)
    assert bet_sizes(asked) == {}
    only_show = _view(showdown=False)
    assert is_showdown_turn(only_show) and not can_muck(only_show)
    betting = _view(showdown=None, betting=True)
    assert is_my_turn(betting) and not is_showdown_turn(betting) and not can_muck(betting)
    assert bet_sizes(betting)["min"] == 4
    # a view that is nobody's betting turn and carries no choice is not a showdown turn
    assert not is_showdown_turn(_view(showdown=None))


def test_the_terminal_client_offers_muck_only_when_allowed_and_no_bank() -> None:
    from libs.tui.model import TableModel

    model = TableModel("t")
    model.set_view(_view(showdown=True))
    assert model.action_line() == "[s] show  [k] muck"
    assert model.turn_line(990.0) == "Your turn to show or muck 10s"
    model.set_view(_view(showdown=False))
    assert model.action_line() == "[s] show"
    assert model.turn_line(990.0) == "Your turn to show 10s"
