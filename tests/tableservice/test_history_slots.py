"""The table's hand histories are worked on at most ``concurrency`` at a time, and a caller who
leaves does not free its place before its worker thread is done (services/table/history.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from libs.eventstore import InMemoryEventStore
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
