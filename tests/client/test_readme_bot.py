"""The README's bot plays a table to its end through the (stand-in) gateway."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from holdem.common.v1 import common_pb2 as pb

from libs.client import GatewayClient
from tests.client import fake_gateway

README = Path(__file__).resolve().parents[2] / "README.md"


def bot_source() -> str:
    text = README.read_text()
    match = re.search(r"<!-- bot-example.*?-->\n```python\n(.*?)```", text, re.S)
    assert match, "the README has no bot example"
    return match.group(1)


def test_the_readme_bot_plays_until_the_table_closes() -> None:
    source = bot_source()
    assert len([line for line in source.splitlines() if line.strip()]) <= 20
    namespace: dict[str, Any] = {}
    exec(compile(source, "README.md", "exec"), namespace)

    async def main() -> None:
        server = await fake_gateway.start()
        try:
            async with GatewayClient(server.address) as owner:
                await owner.guest_login("owner")
                config = pb.TableConfig(
                    variant=pb.VARIANT_OMAHA,
                    # fixed limit, 4 hands: at most 48 chips a hand (4 bets a street), so
                    # nobody's 200 can run out and leave fewer than the 3 a hand needs
                    betting_structure=pb.BETTING_STRUCTURE_FIXED_LIMIT,
                    small_blind=1,
                    big_blind=2,
                    hand_limit=4,
                    min_players_to_start=3,
                )
                table = await owner.create_table(config, "", [pb.BOT_DIFFICULTY_EASY] * 2)
            await asyncio.wait_for(namespace["call_bot"](server.address, table.table_id), 30)
            state = server.gateway.tables[table.table_id].state
            assert state.closed and state.hands_started == 4
        finally:
            await server.server.stop(None)

    asyncio.run(main())
