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

from libs.platform.errors import InvalidArgument
from libs.table.config import INVALID_TABLE_CONFIG, TableConfig, TableConfigError
from libs.tableproto.config import config_from_proto

#: The most chips a client names in one amount (docs/platform.md, "Request validation").
MAX_CHIPS = 10**12


def refusal(field: str, problem: str) -> InvalidArgument:
    """INVALID_ARGUMENT / INVALID_TABLE_CONFIG naming the request's field ``config.<field>``."""
    return InvalidArgument(INVALID_TABLE_CONFIG, f"config.{field}: {problem}")


def checked_config(wire: pb.TableConfig) -> TableConfig:
    """The table ``wire`` describes, refused (``refusal``) unless every setting is in range and
    the table can be joined: its minimum and maximum buy-in, given or derived, at most
    ``MAX_CHIPS``."""
    try:
        config = config_from_proto(wire)
    except TableConfigError as error:
        raise refusal(error.field, error.problem) from None
    for name, value, blinds, given in (
        ("min_buy_in", config.min_buy_in, 20, wire.min_buy_in),
        ("max_buy_in", config.max_buy_in, 100, wire.max_buy_in),
    ):
        if value <= MAX_CHIPS:
            continue
        if given:  # the proto rules bound what is given: only a derived value gets here
            raise refusal(name, f"at most {MAX_CHIPS} (got {value})")
        raise refusal(
            "big_blind",
            f"{config.big_blind} makes the default {name} {value} "
            f"({blinds} big blinds, at least min_buy_in), above {MAX_CHIPS}: "
            f"set {name} or lower the blinds",
        )
    return config
