"""Tournaments stored on JetStream and Redis: one commit per decided command, appended on the
expected sequence with a message id (a retry appends nothing), snapshots, and a restarted
process loading the same state."""

from __future__ import annotations

import asyncio

import pytest

from libs.errors import PreconditionFailed
from libs.tournament import commands as C
from libs.tournament.codec import decode_events
from libs.tournament.state import Status
from tests.tournamentservice.conftest import config, create, parts


def test_each_command_is_one_commit_and_a_retry_appends_nothing(
    nats_url: str, redis_url: str
) -> None:
    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            store = await p.tournaments()
            tid = await create(store, config(6, 6), 3)
            commits = await store.events.read(tid)
            assert len(commits) == 4  # created, three registrations
            again = await store.execute(tid, C.Register("p0", "reg-p0", 3.0), "reg-p0")
            assert len(again.entrants) == 3
            assert len(await store.events.read(tid)) == 4
            assert tid in await store.ids()
            # another process with a cache of its own sees the same and appends on top
            other = await p.tournaments()
            await other.execute(tid, C.Register("p9", "reg-p9", 3.0), "reg-p9")
            assert set((await store.get(tid)).entrants) == {"p0", "p1", "p2", "p9"}
            events = [e for c in await store.events.read(tid) for e in decode_events(c.data)]
            assert [type(e).__name__ for e in events][-1] == "PlayerRegistered"

    asyncio.run(scenario())


def test_a_refusal_appends_nothing_and_a_snapshot_loads_the_same_state(
    nats_url: str, redis_url: str
) -> None:
    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            store = await p.tournaments(snapshot_every=2)
            tid = await create(store, config(6, 6), 5)
            with pytest.raises(PreconditionFailed):  # not full yet
                await store.execute(tid, C.Start("seed", 3.0), "start")
            assert len(await store.events.read(tid)) == 6
            snap = await store.aggregates.repository.snapshots.load(tid)  # type: ignore[union-attr]
            assert snap is not None and snap.sequence > 0
            restarted = await p.tournaments()
            loaded = await restarted.aggregates.repository.load(tid)
            assert loaded.from_snapshot and loaded.state == await store.get(tid)
            assert loaded.state.status is Status.REGISTERING

    asyncio.run(scenario())
