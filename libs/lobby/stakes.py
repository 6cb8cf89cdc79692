"""What the lobby accepts as a table (CreateTable): the whole config, the values it derives
included. ``TableConfig`` fills what the client left 0 (the buy-ins default to 20 and 100 big
blinds); every amount a client may name is at most ``MAX_CHIPS`` (the proto rules of
JoinTable.buy_in, TopUp.amount and the table's SeatPlayer.buy_in), so a table whose derived
buy-ins pass it could be listed but never joined, and a house AI bought in with its maximum
would be refused by the table after its chips were granted. Such a config is refused here,
naming the field the client sent (``config.big_blind``), before anything is written.
"""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.errors import InvalidArgument
from libs.table.config import INVALID_TABLE_CONFIG, MAX_CHIPS, TableConfig, TableConfigError
from libs.tableproto.config import config_from_proto

__all__ = ["MAX_CHIPS", "checked_config", "refusal"]


def refusal(field: str, problem: str) -> InvalidArgument:
    """INVALID_ARGUMENT / INVALID_TABLE_CONFIG naming the request's field ``config.<field>``."""
    return InvalidArgument(INVALID_TABLE_CONFIG, f"config.{field}: {problem}")


def checked_config(wire: pb.TableConfig) -> TableConfig:
    """The table ``wire`` describes, refused (``refusal``) unless every setting is in range and
    the table can be joined: ``TableConfig`` itself refuses minimum and maximum buy-ins, given
    or derived, above ``MAX_CHIPS``, naming ``big_blind`` when a derived one is too big."""
    try:
        return config_from_proto(wire)
    except TableConfigError as error:
        raise refusal(error.field, error.problem) from None
