"""What the table itself decided, read from its own commit stream, for the browser tests to hold the
page against: each ended hand's awards (who won how much of which share of a pot)."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from libs.eventstore.jetstream import JetStreamEventStore
from libs.platform.natsconn import connect_nats
from libs.tableproto.envelope import decode_commit

#: (player id, amount, share): share is "whole", "high" or "low" (PotAwarded).
Award = tuple[str, int, str]


async def _awards(nats_url: str, table_id: str) -> dict[int, list[Award]]:
    nc = await connect_nats(nats_url)
    try:
        commits = await JetStreamEventStore(nc).read(table_id)
    finally:
        await nc.close()
    seated: dict[int, str] = {}
    seats: list[int] = []
    number = 0
    awards: dict[int, list[Award]] = {}
    ended: set[int] = set()
    for stored in commits:
        for record in decode_commit(stored.data)[0].recorded:
            data = json.loads(record.data)
            if record.type == "PlayerSeated":
                seated[data["seat"]] = data["player_id"]
            elif record.type == "HandBegan":
                number, seats = data["hand_number"], data["seats"]
                awards[number] = []
            elif record.type == "PotAwarded":
                awards[number].extend(
                    (seated[seats[position]], amount, data["share"])
                    for position, amount in data["winners"]
                )
            elif record.type == "HandEnded":
                ended.add(number)
    return {hand: paid for hand, paid in awards.items() if hand in ended}


def awards_in_stream(nats_url: str, table_id: str) -> dict[int, list[Award]]:
    """Every ended hand's awards by hand number, in the order the table paid them."""
    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in the caller's thread
        return pool.submit(asyncio.run, _awards(nats_url, table_id)).result()
