"""Hand histories (``GetHandHistory``) and the table's decks (``GetDecks``), served from the
table's own stream: the gateway asks for the authenticated player and never reads the stream
itself (docs/hardening.md, least privilege).

The table's commits are read from JetStream, the latest ``MAX_HISTORY_COMMITS`` decoded (a
replica remembers where a table's latest began at its last read and reads from there the next
time: a long table's history costs its latest commits from the second read on, not its whole
stream), and the player's hands cut from them and projected for that player (libs.history,
pure: their own hole cards, cards shown, never anyone else's). The decoding and the writing of
PHH and PokerStars text run in a worker thread (about 0.3 s of CPU for 20,000 commits), so the
tables this replica serves keep playing meanwhile, and at most ``concurrency`` histories are
worked on at once (later calls wait their turn, within their deadline; a history whose caller
left still holds its place until its thread is done)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from libs.eventstore import EventStore
from libs.eventstore.store import Commit
from libs.fairdeck.disclosure import DeckDisclosure, disclosed_decks
from libs.history import MAX_HISTORY_COMMITS, HistoryPage, StoredCommit, history_page
from libs.poker.errors import IllegalAction
from libs.table.errors import TABLE_NOT_FOUND
from libs.tableproto.envelope import decode_commit, recorded_seconds

#: Histories (and deck listings) worked on at once by one replica.
HISTORY_CONCURRENCY = 2
DEFAULT_DECKS, MAX_DECKS = 10, 100  # decks in one GetDecks page
_T = TypeVar("_T")


#: Tables whose history start this replica remembers (an int each; the least recently read
#: is forgotten first).
HISTORY_STARTS = 4096


class HandHistories:
    def __init__(
        self,
        events: EventStore,
        concurrency: int = HISTORY_CONCURRENCY,
        remembered: int = HISTORY_STARTS,
    ) -> None:
        self.events = events
        self._slots = asyncio.Semaphore(concurrency)
        # per table, the stream sequence of the oldest of its latest MAX_HISTORY_COMMITS commits
        # when it was last read: a later read starts there (a long table's history costs its
        # last commits, not its whole stream, from the second read on)
        self._starts: OrderedDict[str, int] = OrderedDict()
        self._remembered = remembered

    async def page(
        self, table_id: str, player_id: str, *, hand_id: str, before: int, limit: int
    ) -> HistoryPage:
        """``player_id``'s hands at ``table_id`` that the request asks for (libs.history.page);
        ``TABLE_NOT_FOUND`` for a table that was never opened."""
        return await self._in_thread(
            table_id, lambda commits: _page(commits, player_id, hand_id, before, limit)
        )

    async def decks(
        self,
        table_id: str,
        *,
        now: float,
        delay: float,
        hand_id: str,
        before: int,
        limit: int,
    ) -> tuple[list[DeckDisclosure], bool]:
        """The decks of ``table_id``'s finished hands as anyone may know them at ``now``
        (libs.fairdeck.disclosure: seeds ``delay`` seconds after their hand), read and worked
        out as a history is (the same slots); ``TABLE_NOT_FOUND`` for a table never opened."""
        limit = min(limit or DEFAULT_DECKS, MAX_DECKS)
        return await self._in_thread(
            table_id,
            lambda commits: disclosed_decks(
                ((at, events) for _, at, events in stored_commits(commits)),
                now=now,
                delay=delay,
                hand_id=hand_id,
                before=before,
                limit=limit,
            ),
        )

    async def _in_thread(self, table_id: str, work_on: Callable[[Sequence[Commit]], _T]) -> _T:
        """``work_on`` the table's latest commits in a worker thread, in one of the slots."""
        await self._slots.acquire()
        try:
            start = self._starts.get(table_id, 1)
            commits = await self.events.read(table_id, after=start - 1)
            if not commits:
                raise IllegalAction(TABLE_NOT_FOUND, "no such table")
            latest = commits[-MAX_HISTORY_COMMITS:]
            self._remember(table_id, latest[0].sequence)
            work = asyncio.ensure_future(asyncio.to_thread(work_on, latest))
        except BaseException:
            self._slots.release()
            raise
        # the slot is free once the thread is done, not when a caller who left stops waiting:
        # callers who give up cannot pile up threads
        work.add_done_callback(self._done)
        return await asyncio.shield(work)

    def _remember(self, table_id: str, start: int) -> None:
        self._starts[table_id] = start
        self._starts.move_to_end(table_id)
        while len(self._starts) > self._remembered:
            self._starts.popitem(last=False)

    def _done(self, work: asyncio.Future[Any]) -> None:
        self._slots.release()
        if not work.cancelled():
            work.exception()  # retrieved: a caller who left is not told, nor is the log


def _page(
    commits: Sequence[Commit], player_id: str, hand_id: str, before: int, limit: int
) -> HistoryPage:
    return history_page(
        stored_commits(commits), player_id, hand_id=hand_id, before=before, limit=limit
    )


def stored_commits(commits: Sequence[Commit]) -> list[StoredCommit]:
    """Stored commits decoded: sequence, when recorded (seconds), events."""
    out: list[StoredCommit] = []
    for commit in commits:
        envelope, events = decode_commit(commit.data)
        out.append((commit.sequence, recorded_seconds(envelope), events))
    return out
