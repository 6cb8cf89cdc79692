"""Player actions on the wire: ``holdem.common.v1.ActionType`` <-> ``libs.table``'s
``PlayerAction``, the one mapping both ways."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.table.commands import PlayerAction

ACTION_TYPES: dict[PlayerAction, pb.ActionType.ValueType] = {
    PlayerAction.FOLD: pb.ACTION_TYPE_FOLD,
    PlayerAction.CHECK: pb.ACTION_TYPE_CHECK,
    PlayerAction.CALL: pb.ACTION_TYPE_CALL,
    PlayerAction.BET: pb.ACTION_TYPE_BET,
    PlayerAction.RAISE: pb.ACTION_TYPE_RAISE,
    PlayerAction.ALL_IN: pb.ACTION_TYPE_ALL_IN,
}
_ACTIONS = {wire: action for action, wire in ACTION_TYPES.items()}


def action_from_proto(action: pb.ActionType.ValueType) -> PlayerAction | None:
    """The action a wire value names; None for ``ACTION_TYPE_UNSPECIFIED`` or an unknown value."""
    return _ACTIONS.get(action)


def action_to_proto(action: PlayerAction) -> pb.ActionType.ValueType:
    return ACTION_TYPES[action]
