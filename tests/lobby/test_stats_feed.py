"""The lobby's statistics feed and books, in process (services/lobby/stats_feed.py,
player_stats.py): the hands the feed cuts from a table's public commits are counted exactly as
libs.stats counts the spectator's projection of the same commits; a hand delivered again adds
nothing to a book; bots and strangers keep no book; notes about unknown players are refused with
nothing written."""

from __future__ import annotations

import asyncio

import pytest

from libs.errors import NotFound
from libs.eventstore.aggregates import Aggregates
from libs.eventstore.memory import InMemoryEventStore
from libs.history import played_hands
from libs.poker.config import BettingStructure, Variant
from libs.stats import hand_count
from libs.table import TableConfig
from libs.tableproto.public import PublicCommit
from services.lobby.player_stats import BOOKS, NOTES, TABLE_BOOKS, PlayerStats
from services.lobby.stats_feed import _Table, fold
from tests.history.tables import PLAYERS, Commits, play
from tests.lobby.inprocess import in_process


def _public(commits: Commits) -> list[PublicCommit]:
    return [
        PublicCommit("t1", seq, seq - 1, list(events), "", "", at) for seq, at, events in commits
    ]


@pytest.mark.parametrize(
    "config",
    [
        TableConfig(seats=6),
        TableConfig(seats=6, variant=Variant.OMAHA_HI_LO, structure=BettingStructure.POT_LIMIT),
    ],
)
def test_the_feed_counts_each_hand_as_the_spectator_saw_it(config: TableConfig) -> None:
    commits = play(25, 7, config=config, shove=0.1)
    table = _Table()
    counted = [c for commit in _public(commits) for c in fold(table, "t1", commit)]
    expected = [hand_count(h) for h in played_hands(commits, None)]
    assert counted == [c for c in expected if c is not None] and len(counted) == 25
    assert all(set(c.players) <= set(PLAYERS) for c in counted)


def _stats() -> tuple[PlayerStats, object]:
    lobby = in_process()
    stats = PlayerStats(  # a store per kind, as each kind has its subjects on JetStream
        Aggregates(BOOKS, InMemoryEventStore(), None),
        Aggregates(TABLE_BOOKS, InMemoryEventStore(), None),
        Aggregates(NOTES, InMemoryEventStore(), None),
        lobby.lobby.players,
        lambda: 1.0,
    )
    return stats, lobby


def test_a_hand_delivered_again_adds_nothing_and_only_people_keep_books() -> None:
    async def main() -> None:
        stats, lobby = _stats()
        ann = (await lobby.register("ann")).player_id  # type: ignore[attr-defined]
        bob = (await lobby.register("bob")).player_id  # type: ignore[attr-defined]
        commits = play(2, 3, players=(ann, bob, "stranger"))
        table = _Table()
        hands = [c for commit in _public(commits) for c in fold(table, "t1", commit)]
        for hand in hands:
            assert await stats.count(hand) == 2  # ann's and bob's books; no stranger's
            assert await stats.count(hand) == 0  # delivered again
        _, mine, _ = await stats.stats(ann)
        assert mine.hands == 2
        assert (await stats.stats(ann, table_id="t1"))[1] == mine  # the table's book
        assert (await stats.stats(ann, table_id="t2"))[1].hands == 0
        _, theirs, _ = await stats.stats(bob, ann)
        assert theirs == mine  # the same public hands, the same numbers
        with pytest.raises(NotFound):
            await stats.stats(ann, "stranger")  # not a lobby player
        with pytest.raises(NotFound):
            await stats.set_note(ann, "stranger", "who?", "k1")
        assert (await stats.list_notes(ann, 0, "")).notes == []
        await stats.set_note(ann, bob, "tight", "k2")
        assert [p for p, _ in (await stats.list_notes(ann, 0, "")).notes] == [bob]
        assert (await stats.list_notes(bob, 0, "")).notes == []

    asyncio.run(main())
