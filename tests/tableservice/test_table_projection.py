"""The table's public projection, the same tests on an in-memory store and on real JetStream +
Redis: no hidden card in it, every commit once and in order, and the commits a dead owner
appended but never published are published by the next."""

from __future__ import annotations

import pytest

from libs.eventstore import (
    EventStore,
    Projection,
    SnapshotStore,
)
from libs.poker import HoleCardsDealt, StreetDealt
from libs.table.events import HandBegan
from libs.tableproto.envelope import decode_commit
from libs.tableproto.public import chain_gaps, decode_public
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from tests.tableservice.harness import (
    FrozenAfter,
    InMemoryStores,
    RealStores,
    TableAppContract,
    bots_table,
    setup,
)


class ProjectionContract(TableAppContract):
    """The public projection of a table's commits."""

    def test_the_public_projection_never_carries_hidden_cards(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore, public: Projection) -> None:
            app = TableApp(events, snapshots, LocalDealer(), projection=public)
            await setup(app, "t6", bots_table("t6", hand_limit=2))
            await app.stream.stop()  # everything queued is published
            published = [p.data for p in await public.read("t6")]
            dealt = seated = 0
            for payload in published:
                for event in decode_commit(payload)[1]:
                    if isinstance(event, HandBegan):
                        seated += len(event.seats)  # 3, or 2 after a bot went broke
                    if isinstance(event, HoleCardsDealt):
                        dealt += 1
                        assert event.cards == ()
                    if isinstance(event, StreetDealt):
                        assert event.burn is None
            assert dealt == seated >= 5

        self.run_public(body)

    def test_every_commit_is_projected_once_in_order_with_its_previous_sequence(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore, public: Projection) -> None:
            app = TableApp(events, snapshots, LocalDealer(), projection=public)
            await setup(app, "p1", bots_table("p1", hand_limit=3))
            await app.stream.stop()
            commits = await events.read("p1")
            projected = [decode_public(p) for p in await public.read("p1")]
            assert [p.sequence for p in projected] == [c.sequence for c in commits]
            assert chain_gaps(projected) == []
            assert projected[0].previous == 0
            assert [p.causation_id for p in projected] == [c.msg_id for c in commits]
            tail = await public.read("p1", after=commits[10].sequence)
            assert [p.sequence for p in tail] == [c.sequence for c in commits[11:]]

        self.run_public(body)

    def test_commits_an_owner_appended_but_never_published_are_projected_by_the_next(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore, public: Projection) -> None:
            frozen = FrozenAfter(public, published=4)
            dying = TableApp(events, snapshots, LocalDealer(), projection=frozen)
            await setup(dying, "p2", bots_table("p2", hand_limit=2))
            await frozen.stuck.wait()  # the owner froze between appending and publishing
            assert len(await public.read("p2")) == 4
            successor = TableApp(events, snapshots, LocalDealer(), projection=public)
            await successor.state("p2")  # loading it projects what is missing, first
            commits = await events.read("p2")
            projected = [decode_public(p) for p in await public.read("p2")]
            assert [p.sequence for p in projected] == [c.sequence for c in commits]
            assert chain_gaps(projected) == []
            frozen.go.set()  # the old owner wakes up and publishes what it had queued
            await dying.stream.stop()
            again = [p.sequence for p in await public.read("p2")]
            assert again == [c.sequence for c in commits]  # nothing twice

        self.run_public(body)


class TestInMemory(InMemoryStores, ProjectionContract):
    pass


@pytest.mark.integration
class TestRealNatsAndRedis(RealStores, ProjectionContract):
    pass
