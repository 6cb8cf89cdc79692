"""A hand's seed makes every card of it known, folded and mucked hands too: it leaves the table
in no public projection at the hand's end, and ``GetDecks`` hands it to anyone only
``HOLDEM_TABLE_SEED_DISCLOSURE_SECONDS`` after the hand (the commitment at once); with 0 the
public projection carries it as before. The decks it lists check against their commitments and
every card dealt (red team, rt/seedleak.py: a spectator computed a folded hand's hole cards)."""

from __future__ import annotations

import asyncio
from typing import Any

from holdem.table.v1 import table_pb2

from libs.eventstore import InMemoryEventStore, InMemoryProjection, InMemorySnapshotStore
from libs.fairdeck import commitment
from libs.fairdeck.audit import outcomes_from_stream
from libs.table.events import SeedRevealed
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.server import TableServiceServicer
from tests.tableservice.harness import SteppingClock, bots_table, setup


async def _played(disclosure: float, clock: SteppingClock) -> tuple[TableApp, InMemoryProjection]:
    public = InMemoryProjection()
    app = TableApp(
        InMemoryEventStore(),
        InMemorySnapshotStore(),
        LocalDealer(),
        projection=public,
        clock=clock,
        seed_disclosure=disclosure,
    )
    await setup(app, "t1", bots_table("t1", hand_limit=3))
    assert app.stream.projector is not None
    await app.stream.projector.flush()
    return app, public


def test_no_seed_is_public_before_its_time_and_every_deck_checks_after() -> None:
    async def run() -> None:
        clock = SteppingClock()
        app, public = await _played(3600.0, clock)
        servicer = TableServiceServicer(app)
        context: Any = None
        shown = [
            event
            for projected in await public.read("t1")
            for event in decode_commit(projected.data)[1]
            if isinstance(event, SeedRevealed)
        ]
        assert len(shown) == 3 and all(e.seed == "" for e in shown)  # hand ids only
        stored = [e for c in await app.events.read("t1") for e in decode_commit(c.data)[1]]
        seeds = {e.hand_id: e.seed for e in stored if isinstance(e, SeedRevealed)}
        assert len(seeds) == 3 and all(seeds.values())

        request = table_pb2.GetDecksRequest(table_id="t1")
        early = await servicer.GetDecks(request, context)
        assert [d.hand_number for d in early.decks] == [3, 2, 1] and not early.more
        assert all(d.seed == "" and d.commitment for d in early.decks)
        clock.now += 3600.0  # an hour after the hands ended
        later = await servicer.GetDecks(request, context)
        assert {d.hand_id: d.seed for d in later.decks} == seeds
        for deck in later.decks:
            assert commitment(bytes.fromhex(deck.seed)) == deck.commitment
            assert deck.algorithm == "holdem-deck-v1" and not deck.voided
        assert all(outcome.ok for outcome in outcomes_from_stream(stored))
        one = await servicer.GetDecks(
            table_pb2.GetDecksRequest(table_id="t1", limit=1, before_hand_number=3), context
        )
        assert [d.hand_number for d in one.decks] == [2] and one.more
        await app.stop()

    asyncio.run(run())


def test_with_no_delay_the_seed_is_in_the_public_projection_at_the_hand_s_end() -> None:
    async def run() -> None:
        app, public = await _played(0.0, SteppingClock())
        shown = [
            event
            for projected in await public.read("t1")
            for event in decode_commit(projected.data)[1]
            if isinstance(event, SeedRevealed)
        ]
        assert len(shown) == 3 and all(e.seed for e in shown)
        await app.stop()

    asyncio.run(run())
