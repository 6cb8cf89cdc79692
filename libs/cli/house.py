"""The table ``make run`` opens on a terminal: a 6-seat no-limit hold'em table with AI opponents of
mixed levels, created through the gateway's CreateTable with ``bots``: the lobby seats house AIs
(bot players with wallets of their own, bought in by its saga, so the chip audit stays one sum over
every wallet) and the table asks the ai service for their decisions at their levels.
"""

from __future__ import annotations

from collections.abc import Sequence

from holdem.common.v1 import common_pb2 as pb

from libs.client import GatewayClient

MIXED = (
    pb.BOT_DIFFICULTY_HARD,
    pb.BOT_DIFFICULTY_NORMAL,
    pb.BOT_DIFFICULTY_EASY,
    pb.BOT_DIFFICULTY_NORMAL,
    pb.BOT_DIFFICULTY_HARD,
)


def house_config(seats: int = 6, hand_limit: int = 0) -> pb.TableConfig:
    return pb.TableConfig(
        variant=pb.VARIANT_HOLDEM,
        betting_structure=pb.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=seats,
        small_blind=1,
        big_blind=2,
        hand_limit=hand_limit,
    )


async def open_house_table(
    gateway_address: str,
    *,
    levels: Sequence[pb.BotDifficulty.ValueType] = MIXED,
    seats: int = 6,
    hand_limit: int = 0,
) -> str:
    """Create the table (by a "house" guest) with its AIs seated (each bought in with the
    table's max buy-in, 200 here); its id."""
    async with GatewayClient(gateway_address) as house:
        await house.guest_login("house")
        table = await house.create_table(house_config(seats, hand_limit), "make run", list(levels))
    return table.table_id
