"""A resumed WatchTable stream ends its catch-up with the caller's view (the last update of a burst
carries ``view``), even when the commits it read from the store also reached its live queue.

The gateway subscribes to the live feed before it reads what the client missed, so a commit made
in between arrives both ways. The duplicate left in the queue used to count as "more to come":
the last stored commit went out without a view, the duplicate was then skipped, and a client
whose turn that commit was never saw its legal actions (the end-to-end run's missed turns: the
table waited out the player's clock). No services needed: the stream's logic with a fake store
and a fake table."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from holdem.common.v1 import common_pb2
from holdem.events.v1 import events_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.eventstore.projection import Projected
from services.gateway.server import GatewayServicer
from services.gateway.watch import Listener

TABLE = "t1"


def commit(sequence: int) -> Projected:
    return Projected(TABLE, sequence, sequence - 1, events_pb2.Commit().SerializeToString(), 0)


class Store:
    def __init__(self, commits: list[Projected]) -> None:
        self.commits = commits

    async def read(self, table_id: str, after: int, limit: int) -> list[Projected]:
        return [c for c in self.commits if c.sequence > after][:limit]


def servicer(store: Store, now: int) -> GatewayServicer:
    gateway: Any = GatewayServicer.__new__(GatewayServicer)
    gateway.feeds = store
    gateway.config = SimpleNamespace(watch_buffer=16)
    gateway.rpc_timeout = 1.0

    async def view(table_id: str, player_id: str, timeout: float) -> common_pb2.PlayerView:
        return common_pb2.PlayerView(table_id=table_id, sequence=now, acting_seat=1, viewer_seat=1)

    gateway._view = view
    return gateway  # type: ignore[no-any-return]


async def first_updates(
    gateway: GatewayServicer, listener: Listener, from_sequence: int, count: int
) -> list[gateway_pb2.TableUpdate]:
    now = common_pb2.PlayerView(sequence=12)
    stream = gateway._follow(TABLE, "p1", from_sequence, now, listener)
    return [await asyncio.wait_for(anext(stream), 5.0) for _ in range(count)]


def test_the_last_stored_commit_carries_the_view_when_the_live_queue_has_it_too() -> None:
    async def run() -> list[gateway_pb2.TableUpdate]:
        store = Store([commit(s) for s in range(1, 13)])
        listener = Listener(16)
        for sequence in (11, 12):  # published while the stream read its backlog
            listener.offer(commit(sequence))
        return await first_updates(servicer(store, 12), listener, 10, 2)

    updates = asyncio.run(run())
    assert [u.sequence for u in updates] == [11, 12]
    assert not updates[0].HasField("view")  # more of the burst follows
    assert updates[1].HasField("view"), "the catch-up ended without the caller's view"
    assert updates[1].view.acting_seat == updates[1].view.viewer_seat


def test_a_newer_live_commit_still_carries_the_view_of_the_burst() -> None:
    async def run() -> list[gateway_pb2.TableUpdate]:
        store = Store([commit(s) for s in range(1, 14)])
        listener = Listener(16)
        for sequence in (12, 13):  # 12 was read from the store too; 13 is new
            listener.offer(commit(sequence))
        store.commits = store.commits[:12]  # the read happened before 13 was stored
        return await first_updates(servicer(store, 13), listener, 10, 3)

    updates = asyncio.run(run())
    assert [u.sequence for u in updates] == [11, 12, 13]
    assert [u.HasField("view") for u in updates] == [False, False, True]
