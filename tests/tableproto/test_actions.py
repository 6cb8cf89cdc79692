"""One list of player actions from the wire to the engine: every ActionType the proto defines
maps to exactly one PlayerAction and back."""

from __future__ import annotations

import pytest
from holdem.common.v1 import common_pb2 as pb

from libs.poker import InvalidCommand
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.tableproto.actions import action_from_proto, action_to_proto


def test_every_wire_action_maps_to_one_player_action_and_back() -> None:
    wire = [v for v in pb.ActionType.values() if v != pb.ACTION_TYPE_UNSPECIFIED]
    actions = [action_from_proto(v) for v in wire]
    assert sorted(a for a in actions if a is not None) == sorted(PlayerAction)
    for action in PlayerAction:
        assert action_from_proto(action_to_proto(action)) is action
    assert action_from_proto(pb.ACTION_TYPE_UNSPECIFIED) is None


def test_an_unknown_action_is_refused_when_the_command_is_built() -> None:
    assert tc.Act("p", "fold").action is PlayerAction.FOLD  # type: ignore[arg-type]
    with pytest.raises(InvalidCommand) as err:
        tc.Act("p", "hop")  # type: ignore[arg-type]
    assert err.value.code == "UNKNOWN_ACTION"
