"""The steps no player decides (deals, reveals, the next hand, bots, the clock), the same tests on
an in-memory store and on real JetStream + Redis: bots play on by themselves, the tick wakes a
table that stands due, a step worked out on a state that moved on is dropped, an action is
answered before the steps it enables; and hands whose deck the dealer lost are voided."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from libs.eventstore import (
    EventStore,
    InMemoryEventStore,
    InMemorySnapshotStore,
    SnapshotStore,
)
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.dealing import DeckLost, LocalDealer
from tests.tableservice.harness import (
    CONFIG,
    GatedDealer,
    HeldDeals,
    HeldSaves,
    InMemoryStores,
    RealStores,
    TableAppContract,
    act_in_turn,
    board_of,
    bots_table,
    seat_two,
    setup,
)


class AutomationContract(TableAppContract):
    """The steps no player decides."""

    def test_bot_hands_play_themselves_until_the_room_limit(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer())
            await setup(app, "t1", bots_table("t1", hand_limit=5))
            state = await app.state("t1")
            assert state.closed and state.hands_started == 5
            # only the last hand's seed is kept (each hand's is in its commit)
            assert list(state.revealed_seeds) == [state.hand_id]
            # the commit that ends a hand also reveals its seed
            for commit in await events.read("t1"):
                kinds = [type(e).__name__ for e in decode_commit(commit.data)[1]]
                if "HandEnded" in kinds:
                    assert kinds.index("SeedRevealed") > kinds.index("HandEnded")

        self.run(body)

    def test_a_table_due_with_nothing_driving_it_is_woken_by_the_tick_after_next(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            app = TableApp(events, snapshots, LocalDealer())
            app.auto_start = False  # seated, nothing driving: as after a lost lease taken back
            for i, command in enumerate(bots_table("t9", hand_limit=3)):
                await app.execute("t9", command, f"t9-setup-{i}")
            app.auto_start = True
            before = (await app.table("t9")).sequence
            await app.tick()  # the first tick only notes that the table stands still
            await asyncio.sleep(0.05)
            assert (await app.table("t9")).sequence == before
            await app.tick()
            for _ in range(400):  # the woken driver plays the hands out
                if (await app.state("t9")).closed:
                    break
                await asyncio.sleep(0.05)
            assert (await app.state("t9")).closed
            await app.stop()

        self.run(body)

    def test_an_automatic_step_worked_out_before_the_table_moved_is_dropped(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            dealer = GatedDealer()
            app = TableApp(events, snapshots, dealer, auto_start=False)
            await setup(app, "t11", [tc.OpenTable("t11", CONFIG, 0.0), *seat_two()])
            app.auto_start = True
            driving = asyncio.create_task(app.drive("t11"))
            await dealer.asked.wait()  # "start a hand" was worked out; the deck is on its way
            await app.execute("t11", tc.Leave("b"), "leave-b")  # now one player is left
            dealer.go.set()
            assert await driving == 0  # dropped, and nothing else is due
            assert (await app.state("t11")).hands_started == 0

        self.run(body)

    def test_an_automatic_step_that_lost_a_race_to_another_writer_is_dropped(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            other = TableApp(events, snapshots, LocalDealer(), auto_start=False)
            await setup(other, "t12", [tc.OpenTable("t12", CONFIG, 0.0), *seat_two()])
            dealer = GatedDealer()
            app = TableApp(events, snapshots, dealer)
            await app.state("t12")
            driving = asyncio.create_task(app.drive("t12"))
            await dealer.asked.wait()
            await other.execute("t12", tc.Leave("b"), "leave-b")  # app's copy is stale now
            dealer.go.set()
            assert await driving == 0  # its append conflicted: reloaded, nothing is due
            state = await app.state("t12")
            assert state.hands_started == 0 and set(state.seats) == {0}

        self.run(body)

    def test_an_action_is_answered_at_its_own_commit_before_the_steps_it_enables(self) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            dealer = HeldDeals()
            app = TableApp(events, snapshots, dealer)
            await setup(app, "t13", [tc.OpenTable("t13", CONFIG, 0.0), *seat_two()])
            dealer.hold()  # the flop will wait for the dealer
            await act_in_turn(app, "t13", PlayerAction.CALL, "call")
            checked = await act_in_turn(app, "t13", PlayerAction.CHECK, "check")  # round over
            assert (await app.table("t13")).sequence == checked  # answered before the flop
            await dealer.asked.wait()  # a background driver asks for it
            dealer.go.set()
            assert await board_of(app, "t13", 3)
            state = await app.state("t13")
            retry = tc.Act(state.seats[state.acting_seat() or 0].player_id, PlayerAction.CHECK)
            again = await app.act("t13", retry, "check")  # the key's first outcome, nothing new
            assert again.duplicate and again.sequence == checked
            await app.stop()

        self.run(body)

    def test_a_driver_that_found_nothing_due_looks_again_for_an_action_made_meanwhile(
        self,
    ) -> None:
        async def body(events: EventStore, snapshots: SnapshotStore) -> None:
            saves = HeldSaves(snapshots)
            app = TableApp(events, saves, LocalDealer(), snapshot_every=1)
            await setup(app, "t14", [tc.OpenTable("t14", CONFIG, 0.0), *seat_two()])
            saves.go.clear()
            await act_in_turn(app, "t14", PlayerAction.CALL, "call")
            await saves.waiting.wait()
            await asyncio.sleep(0.05)  # its driver found nothing due and waits for the write
            await act_in_turn(app, "t14", PlayerAction.CHECK, "check")  # the flop is due now
            saves.go.set()
            assert await board_of(app, "t14", 3)  # no tick runs here: only the driver deals it
            await app.stop()

        self.run(body)


def test_a_hand_the_dealer_can_no_longer_deal_is_voided_and_play_goes_on() -> None:
    async def main() -> None:
        dealer = LocalDealer()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), dealer)
        await app.execute("tv", tc.OpenTable("tv", CONFIG, 0.0), "open")
        await app.execute("tv", tc.SitDown("a", 0, 100), "sit-a")
        await app.execute("tv", tc.SitDown("b", 1, 100), "sit-b")
        state = await app.state("tv")
        assert state.hand_in_progress and state.hands_started == 1
        dealer._seeds.clear()  # the dealer's store was wiped mid-hand
        actor = state.acting_seat()
        assert actor is not None
        await app.execute(
            "tv", tc.Act(state.seats[actor].player_id, PlayerAction.CALL, now=app.clock()), "call"
        )
        other = (await app.state("tv")).acting_seat()
        assert other is not None
        outcome = await app.execute(
            "tv", tc.Act(state.seats[other].player_id, PlayerAction.CHECK, now=app.clock()), "check"
        )
        assert outcome.events  # the round closed; dealing the flop failed: the hand is void
        state = await app.state("tv")
        assert state.hands_started == 2  # voided, seed marked, and the next hand began
        assert state.total_chips() == 200
        commits = await app.events.read("tv")
        types = [type(e).__name__ for c in commits for e in decode_commit(c.data)[1]]
        assert "HandVoided" in types

    asyncio.run(main())


def test_a_hand_whose_deck_was_revealed_by_a_lost_hand_end_is_voided_and_play_goes_on() -> None:
    """The table asks for the seed just before appending the commit that ends a hand; when that
    append never lands (killed, or a conflict) and the step is decided again differently (a
    bot's new decision), the hand goes on with a deck the dealer no longer deals from. It is
    voided, not left waiting for cards (chaos stood still on it, DECK_CLOSED for good)."""

    class ClosingDealer(LocalDealer):
        """Deals no card once a deck's seed is out, as the dealer service (DECK_CLOSED)."""

        def __init__(self) -> None:
            super().__init__()
            self.revealed: set[str] = set()

        async def deal(self, deck_id: str, indexes: Sequence[int]) -> list[int]:
            if deck_id in self.revealed:
                raise DeckLost(f"{deck_id} was revealed")
            return await super().deal(deck_id, indexes)

        async def reveal(self, deck_id: str) -> str:
            self.revealed.add(deck_id)
            return await super().reveal(deck_id)

    async def main() -> None:
        dealer = ClosingDealer()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), dealer)
        await app.execute("tr", tc.OpenTable("tr", CONFIG, 0.0), "open")
        await app.execute("tr", tc.SitDown("a", 0, 100), "sit-a")
        await app.execute("tr", tc.SitDown("b", 1, 100), "sit-b")
        state = await app.state("tr")
        assert state.hand_in_progress and state.hands_started == 1 and state.deck_id
        await dealer.reveal(state.deck_id)  # the lost hand-end commit's reveal
        actor = state.acting_seat()
        assert actor is not None
        await app.execute(
            "tr", tc.Act(state.seats[actor].player_id, PlayerAction.CALL, now=app.clock()), "call"
        )
        other = (await app.state("tr")).acting_seat()
        assert other is not None
        await app.execute(
            "tr", tc.Act(state.seats[other].player_id, PlayerAction.CHECK, now=app.clock()), "check"
        )
        state = await app.state("tr")
        assert state.hands_started == 2  # voided, and the next hand began with a new deck
        assert state.total_chips() == 200
        commits = await app.events.read("tr")
        types = [type(e).__name__ for c in commits for e in decode_commit(c.data)[1]]
        assert "HandVoided" in types

    asyncio.run(main())


class TestInMemory(InMemoryStores, AutomationContract):
    pass


@pytest.mark.integration
class TestRealNatsAndRedis(RealStores, AutomationContract):
    pass
