"""The table ``make run`` opens on a terminal: a 6-seat no-limit hold'em table with AI opponents of
mixed levels, created through the gateway's CreateTable with ``bots``: the lobby seats house AIs
(bot players with wallets of their own, bought in by its saga, so the chip audit stays one sum over
every wallet) and the table asks the ai service for their decisions at their levels.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.client import GatewayClient
from libs.devstack.identity import aio_channel_as, cli_service_key, cli_tls

LEVEL_NAMES = {
    pb.BOT_DIFFICULTY_EASY: "easy",
    pb.BOT_DIFFICULTY_NORMAL: "normal",
    pb.BOT_DIFFICULTY_HARD: "hard",
}
AI_NAMES = ("Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy")

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


async def seat_ais(
    lobby_address: str,
    table_id: str,
    levels: Sequence[pb.BotDifficulty.ValueType],
    buy_in: int,
    key: str | None = None,
) -> list[str]:
    """Register one AI player per level and seat it at an existing table through the lobby's
    internal API (RegisterPlayer with is_bot, then the JoinTable saga); their player ids. For
    tests and tools that add AIs to a table already running (the gateway seats AIs only when it
    creates a table). The table plays them at NORMAL: the level is in their names only. Calls
    are signed as ``tools`` with the private ``key`` (default: the CLI's, ``cli_service_key``)."""
    ids = []
    async with aio_channel_as(
        lobby_address, key=key or cli_service_key(), tls=cli_tls()
    ) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        for i, level in enumerate(levels):
            tag = secrets.token_hex(4)
            name = f"{AI_NAMES[i % len(AI_NAMES)]} ({LEVEL_NAMES.get(level, 'ai')})"
            request = lobby_pb2.RegisterPlayerRequest(
                username=f"ai-{tag}",
                password=secrets.token_urlsafe(24),
                display_name=name,
                is_bot=True,
            )
            for attempt in range(30):  # account creation is rate limited per caller
                try:
                    registered = await lobby.RegisterPlayer(request, timeout=30)
                    break
                except grpc.aio.AioRpcError as error:
                    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or attempt == 29:
                        raise
                    await asyncio.sleep(1.0)
            player_id = registered.player.player_id
            await lobby.JoinTable(
                lobby_pb2.JoinTableRequest(
                    player_id=player_id,
                    table_id=table_id,
                    buy_in=buy_in,
                    idempotency_key=f"ai-seat-{tag}",
                ),
                timeout=60,
            )
            ids.append(player_id)
    return ids


async def open_house_table(
    gateway_address: str,
    *,
    levels: Sequence[pb.BotDifficulty.ValueType] = MIXED,
    seats: int = 6,
    hand_limit: int = 0,
    tls: bool | bytes = False,
) -> str:
    """Create the table (by a "house" guest) with its AIs seated (each bought in with the
    table's max buy-in, 200 here); its id. ``tls``: libs.client.channel.gateway_channel."""
    async with GatewayClient(gateway_address, tls=tls) as house:
        await house.guest_login("house")
        table = await house.create_table(house_config(seats, hand_limit), "make run", list(levels))
    return table.table_id
