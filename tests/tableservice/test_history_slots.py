"""The table's hand histories are worked on at most ``concurrency`` at a time, and a caller who
leaves does not free its place before its worker thread is done (services/table/history.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from libs.eventstore import Commit, InMemoryEventStore
from libs.history import HistoryPage
from libs.poker.errors import IllegalAction
from services.table import history
from services.table.history import HandHistories


def test_a_caller_who_leaves_keeps_its_place_until_its_thread_is_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    running: list[str] = []

    def slow_page(*args: object) -> HistoryPage:
        running.append(str(args[1]))
        release.wait(10)
        return HistoryPage((), False)

    monkeypatch.setattr(history, "_page", slow_page)

    async def scenario() -> None:
        events = InMemoryEventStore()
        await events.append("t1", b"", expected_last=0, msg_id="1")
        histories = HandHistories(events, concurrency=1)
        first = asyncio.create_task(histories.page("t1", "ann", hand_id="", before=0, limit=0))
        while not running:
            await asyncio.sleep(0.01)
        first.cancel()  # the caller left; its thread goes on
        with pytest.raises(asyncio.CancelledError):
            await first
        second = asyncio.create_task(histories.page("t1", "ben", hand_id="", before=0, limit=0))
        await asyncio.sleep(0.2)
        assert running == ["ann"]  # ben waits for ann's thread, not for ann
        release.set()
        assert await asyncio.wait_for(second, 10) == HistoryPage((), False)
        assert running == ["ann", "ben"]
        with pytest.raises(IllegalAction):  # a table never opened; its place is given back
            await histories.page("nosuchtable", "ann", hand_id="", before=0, limit=0)
        assert await asyncio.wait_for(
            histories.page("t1", "cat", hand_id="", before=0, limit=0), 10
        ) == HistoryPage((), False)

    asyncio.run(scenario())


def test_a_long_tables_history_is_read_from_its_latest_commits_from_the_second_read_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The red team's second pass: GetDecks(limit=1) of a long bot table took 69, 205, 337 ms
    as its stream grew, every call reading the whole stream. A replica remembers where a
    table's latest MAX_HISTORY_COMMITS began and reads from there."""
    monkeypatch.setattr(history, "MAX_HISTORY_COMMITS", 10)
    seen: list[list[int]] = []

    def record(commits: object, *args: object) -> HistoryPage:
        seen.append([c.sequence for c in commits])  # type: ignore[attr-defined]
        return HistoryPage((), False)

    monkeypatch.setattr(history, "_page", record)

    class Counting(InMemoryEventStore):
        def __init__(self) -> None:
            super().__init__()
            self.reads: list[int] = []

        async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
            commits = await super().read(stream_id, after)
            self.reads.append(len(commits))
            return commits

    async def scenario() -> None:
        events = Counting()
        last = 0
        for n in range(50):  # another table's commits in between: sequences are the stream's
            last = (await events.append("t1", b"", expected_last=last, msg_id=str(n))).sequence
            await events.append(f"other{n}", b"", expected_last=0, msg_id="x")
        histories = HandHistories(events, remembered=1)
        for _ in range(2):
            await histories.page("t1", "ann", hand_id="", before=0, limit=0)
        assert events.reads == [50, 10]  # the whole stream once, then its latest only
        assert seen[0] == seen[1] and len(seen[0]) == 10
        more = last
        for n in range(5):
            more = (await events.append("t1", b"", expected_last=more, msg_id=f"m{n}")).sequence
        await histories.page("t1", "ann", hand_id="", before=0, limit=0)
        assert events.reads[-1] == 15 and seen[-1][-1] == more and len(seen[-1]) == 10
        # a replica remembers so many tables; one it forgot is read whole again
        await events.append("t2", b"", expected_last=0, msg_id="1")
        await histories.page("t2", "ann", hand_id="", before=0, limit=0)
        await histories.page("t1", "ann", hand_id="", before=0, limit=0)
        assert events.reads[-1] == 55

    asyncio.run(scenario())
