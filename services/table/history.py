"""Hand histories (``GetHandHistory``), served from the table's own stream: the gateway asks for
the authenticated player and never reads the stream itself (docs/hardening.md, least privilege).

The table's commits are read from JetStream, the latest ``MAX_HISTORY_COMMITS`` decoded, and the
player's hands cut from them and projected for that player (libs.history, pure: their own hole
cards, cards shown, never anyone else's). The decoding and the writing of PHH and PokerStars text
run in a worker thread (about 0.3 s of CPU for 20,000 commits), so the tables this replica serves
keep playing meanwhile, and at most ``concurrency`` histories are worked on at once (later calls
wait their turn, within their deadline; a history whose caller left still holds its place until
its thread is done)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from libs.eventstore import EventStore
from libs.eventstore.store import Commit
from libs.history import MAX_HISTORY_COMMITS, HistoryPage, StoredCommit, history_page
from libs.poker.errors import IllegalAction
from libs.table.errors import TABLE_NOT_FOUND
from libs.tableproto.envelope import decode_commit, recorded_seconds

#: Histories worked on at once by one replica.
HISTORY_CONCURRENCY = 2


class HandHistories:
    def __init__(self, events: EventStore, concurrency: int = HISTORY_CONCURRENCY) -> None:
        self.events = events
        self._slots = asyncio.Semaphore(concurrency)

    async def page(
        self, table_id: str, player_id: str, *, hand_id: str, before: int, limit: int
    ) -> HistoryPage:
        """``player_id``'s hands at ``table_id`` that the request asks for (libs.history.page);
        ``TABLE_NOT_FOUND`` for a table that was never opened."""
        await self._slots.acquire()
        try:
            commits = await self.events.read(table_id)
            if not commits:
                raise IllegalAction(TABLE_NOT_FOUND, "no such table")
            work = asyncio.ensure_future(
                asyncio.to_thread(
                    _page, commits[-MAX_HISTORY_COMMITS:], player_id, hand_id, before, limit
                )
            )
        except BaseException:
            self._slots.release()
            raise
        # the slot is free once the thread is done, not when a caller who left stops waiting:
        # callers who give up cannot pile up threads
        work.add_done_callback(self._done)
        return await asyncio.shield(work)

    def _done(self, work: asyncio.Future[HistoryPage]) -> None:
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
