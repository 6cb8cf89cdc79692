"""The terminal client's straddle and bomb-pot lines (libs/tui/bomb.py): the vote with its keys
while the viewer is asked, the agreed next hand, the bomb pot in play, the schedule, and the
straddle and propose keys between turns where the table offers them."""

from __future__ import annotations

import pytest
from holdem.common.v1 import common_pb2 as pb

from libs.table.config import TableConfigError
from libs.tableproto.config import config_from_proto
from libs.tui.bomb import bomb_keys, bomb_line
from libs.tui.model import TableModel
from libs.tui.newtable import NewTable


def _view(**config: object) -> pb.PlayerView:
    view = pb.PlayerView(table_id="t", viewer_seat=2, viewer_player_id="me")
    view.seats.add(seat=2, player_id="me", stack=100)
    view.seats.add(seat=4, player_id="you", stack=100)
    for name, value in config.items():
        setattr(view.config, name, value)
    return view


def test_an_open_vote_shows_who_agreed_the_clock_and_the_keys_until_agreed() -> None:
    view = _view(bomb_pot_ante=4, bomb_pot_vote=True)
    vote = view.bomb_pot_vote
    vote.proposer_seat = 4
    vote.asked_seats.extend([2, 4])
    vote.agreed_seats.append(4)
    vote.deadline.seconds = 120
    assert bomb_line(view, 100.0) == (
        "Bomb pot vote (seat 4): 1/2 agreed, 20s left  [v] agree  [x] refuse"
    )
    assert "[v] propose" not in bomb_keys(view)
    vote.agreed_seats.append(2)
    vote.viewer_agreed = True
    assert bomb_line(view, 100.0).endswith("2/2 agreed, 20s left")
    vote.ClearField("deadline")
    vote.agreed = True
    assert bomb_line(view, 100.0) == "Next hand: a bomb pot (everyone agreed)"


def test_the_bomb_pot_in_play_and_the_schedule() -> None:
    view = _view(bomb_pot_ante=5, bomb_pot_every=3)
    assert bomb_line(view, 0.0) == "Bomb pot every 3 hands (ante 5)"
    view.hand_id, view.hand_number = "h4", 4
    assert bomb_line(view, 0.0) == "Bomb pot every 3 hands (ante 5): next hand #6"
    view.bomb_pot = True
    assert bomb_line(view, 0.0).startswith("BOMB POT: everyone anted 5")
    model = TableModel("t")
    model.set_view(view)
    assert "BOMB POT" in model.header()


def test_the_straddle_and_propose_keys_where_the_table_offers_them() -> None:
    model = TableModel("t")
    model.set_view(_view(straddle_allowed=True, bomb_pot_ante=4, bomb_pot_vote=True))
    line = model.action_line()
    assert "[t] straddle on" in line and "[v] propose a bomb pot" in line
    view = _view()
    assert bomb_keys(view) == "" and bomb_line(view, 0.0) == ""
    view.seats[0].straddle = True
    view.config.straddle_allowed = True
    assert bomb_keys(view) == "[t] straddle off  "


def test_the_new_table_form_carries_the_options_and_the_table_validates_them() -> None:
    form = NewTable(straddle=True, bomb_pot_ante=4, bomb_pot_every=5, bomb_pot_vote=True)
    config = config_from_proto(form.config())
    assert config.straddle and config.bomb_pot_ante == 4 and config.bomb_pot_every == 5
    assert config.bomb_pot_vote
    with pytest.raises(TableConfigError) as refused:
        config_from_proto(NewTable(bomb_pot_ante=10**6, bomb_pot_every=2).config())
    assert refused.value.field == "bomb_pot_ante"
