"""GetHandHistory for a player who was never dealt into a hand at the table is an empty page
answered from the table's state, without reading the stream (red team, rt/histdos.py: a guest
who never sat at a long bot table had each call read and project its whole stream); a player
who was dealt in, or a table whose state does not know (an old snapshot), reads it as ever."""

from __future__ import annotations

import asyncio
from typing import Any

from holdem.table.v1 import table_pb2

from libs.eventstore import InMemoryEventStore, InMemorySnapshotStore
from libs.eventstore.store import Commit
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.server import TableServiceServicer
from tests.tableservice.harness import bots_table, setup


class CountedReads(InMemoryEventStore):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        self.reads += 1
        return await super().read(stream_id, after)


def test_a_player_never_dealt_in_gets_an_empty_page_without_a_read_of_the_stream() -> None:
    async def run() -> None:
        events = CountedReads()
        app = TableApp(events, InMemorySnapshotStore(), LocalDealer())
        await setup(app, "t1", bots_table("t1", hand_limit=3))
        servicer = TableServiceServicer(app)
        context: Any = None

        async def history(player_id: str) -> table_pb2.GetHandHistoryResponse:
            request = table_pb2.GetHandHistoryRequest(table_id="t1", player_id=player_id)
            return await servicer.GetHandHistory(request, context)

        reads = events.reads
        stranger = await history("stranger")
        assert not stranger.hands and not stranger.more
        assert events.reads == reads  # answered from the state alone
        dealt = await history("bot0")
        # dealt into the first hand, and into each one after until busted (the deck is random:
        # a bot can lose its stack before the table's third and last hand)
        assert 1 <= len(dealt.hands) <= 3 and events.reads == reads + 1
        assert sorted(h.hand_number for h in dealt.hands)[0] == 1
        # a state that does not know who was dealt (read from an old snapshot): the stream
        (await app.table("t1")).state.dealt_players = None
        assert not (await history("stranger")).hands and events.reads == reads + 2
        await app.stop()

    asyncio.run(run())
