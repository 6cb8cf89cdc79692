"""The table ``make run`` opens on a terminal: a 6-seat no-limit hold'em table with AI opponents of
mixed levels, created through the gateway, the AIs seated as lobby players (each with a wallet and
its grant, so the chip audit stays one sum over every wallet).

The gateway's CreateTable seats bots itself once it can (contract 13 §5); until then it answers
UNIMPLEMENTED for ``bots`` and the AIs are registered and seated here through the lobby's internal
API, exactly as the lobby would (RegisterPlayer with is_bot, then the JoinTable saga). The level
is in the AI's name only: the lobby's JoinTable carries no difficulty yet.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence

import grpc
from holdem.common.v1 import common_pb2 as pb
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from libs.client import GatewayClient, GatewayError
from libs.devstack.identity import aio_channel_as, cli_service_keys

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
) -> list[str]:
    """Register one AI player per level and seat it through the lobby; their player ids."""
    ids = []
    async with aio_channel_as(lobby_address, keys=cli_service_keys()) as channel:
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
    lobby_address: str,
    *,
    levels: Sequence[pb.BotDifficulty.ValueType] = MIXED,
    seats: int = 6,
    buy_in: int = 200,
    hand_limit: int = 0,
) -> str:
    """Create the table (by a "house" guest) with its AIs seated; its id."""
    config = house_config(seats, hand_limit)
    async with GatewayClient(gateway_address) as house:
        await house.guest_login("house")
        try:
            table = await house.create_table(config, "make run", list(levels))
            return table.table_id
        except GatewayError as error:
            if error.status != grpc.StatusCode.UNIMPLEMENTED:
                raise
        table = await house.create_table(config, "make run")
    await seat_ais(lobby_address, table.table_id, levels, buy_in)
    return table.table_id
