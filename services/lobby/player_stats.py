"""Players' statistics and private notes (docs/stats.md): the use cases behind GetPlayerStats,
SetPlayerNote, DeletePlayerNote and ListPlayerNotes.

Each viewer has a statistics book (libs.stats.book, stream ``holdem.lobby.stats.<viewer>``)
that stats_feed.py adds each finished hand of theirs to, and one per table they played
(``holdem.lobby.tablestats.<hash of viewer and table>``, what a table filter reads); a
statistic is read from a book, never recomputed from hands. Each author has their notes
(libs.lobby.notes, stream ``holdem.lobby.notes.<author>``), read only by them. A note or a
statistic about a player the lobby does not know is PLAYER_NOT_FOUND, and nothing is
written."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from libs.errors import NotFound, echo
from libs.lobby import notes, wallet
from libs.lobby.notes import Note, Notes
from libs.lobby.wallet import Wallet
from libs.stats import ALL_VARIANTS, Counts, HandCount, HandCounted, StatsBook, count_hand
from libs.stats import book as stats_book
from services.lobby.base import page_start
from services.lobby.store import Aggregates, Kind

BOOKS: Kind[StatsBook, HandCounted] = Kind(
    "stats",
    stats_book.initial,
    stats_book.evolve,
    stats_book.encode,
    stats_book.decode,
    stats_book.encode_book,
    stats_book.decode_book,
)
#: The same books, one per (viewer, table): what a table filter reads.
TABLE_BOOKS: Kind[StatsBook, HandCounted] = Kind(
    "tablestats",
    stats_book.initial,
    stats_book.evolve,
    stats_book.encode,
    stats_book.decode,
    stats_book.encode_book,
    stats_book.decode_book,
)
NOTES: Kind[Notes, notes.Event] = Kind(
    "notes",
    notes.initial,
    notes.evolve,
    notes.encode,
    notes.decode,
    notes.encode_notes,
    notes.decode_notes,
)
DEFAULT_NOTES_PAGE = 100


def table_book_key(viewer: str, table_id: str) -> str:
    """The stream id of a viewer's book at one table (two ids in one subject token)."""
    return hashlib.sha256(f"{viewer}\0{table_id}".encode()).hexdigest()[:40]


@dataclass(frozen=True)
class NotesPage:
    notes: list[tuple[str, Note]]  # (player id, note), by player id
    next_page_token: str


class PlayerStats:
    def __init__(
        self,
        books: Aggregates[StatsBook, HandCounted],
        table_books: Aggregates[StatsBook, HandCounted],
        notes_store: Aggregates[Notes, notes.Event],
        players: Aggregates[Wallet, wallet.Event],
        clock: Callable[[], float],
    ) -> None:
        self.books = books
        self.table_books = table_books
        self.notes = notes_store
        self.players = players
        self.clock = clock

    async def _known(self, player_id: str) -> Wallet:
        found = await self.players.get(player_id)
        if not found.registered:
            raise NotFound(wallet.PLAYER_NOT_FOUND, f"no player {echo(player_id)}")
        return found

    async def stats(
        self, viewer: str, player_id: str = "", variant: str = ALL_VARIANTS, table_id: str = ""
    ) -> tuple[str, Counts, Note | None]:
        """``player_id``'s counters (the viewer's own when empty) from the viewer's hands (at
        ``table_id`` only, when given), and the viewer's note about them."""
        subject = player_id or viewer
        await self._known(subject)
        if table_id:
            book = await self.table_books.get(table_book_key(viewer, table_id))
        else:
            book = await self.books.get(viewer)
        note = (await self.notes.get(viewer)).notes.get(subject) if subject != viewer else None
        return subject, book.of(subject, variant), note

    async def set_note(self, author: str, player_id: str, text: str, key: str) -> Note:
        await self._known(player_id)
        state = await self.notes.execute(
            author,
            functools.partial(notes.write_note, about=player_id, text=text, now=self.clock()),
            msg_id=f"note-{key}",
        )
        return state.notes[player_id]

    async def delete_note(self, author: str, player_id: str, key: str) -> None:
        await self._known(player_id)
        await self.notes.execute(
            author,
            functools.partial(notes.delete_note, about=player_id, now=self.clock()),
            msg_id=f"unnote-{key}",
        )

    async def list_notes(self, author: str, page_size: int, page_token: str) -> NotesPage:
        start = page_start(page_token)
        size = min(page_size or DEFAULT_NOTES_PAGE, notes.MAX_NOTES)
        ordered = sorted((await self.notes.get(author)).notes.items())
        page = ordered[start : start + size]
        more = start + size < len(ordered)
        return NotesPage(page, str(start + size) if more else "")

    async def count(self, hand: HandCount) -> int:
        """Add a finished hand to the book of each person dealt into it (bots and players the
        lobby does not know keep no book); how many books it was added to (0 when counted
        before)."""
        added = 0
        for viewer in hand.players:
            if not viewer:
                continue
            player = await self.players.get(viewer)
            if not player.registered or player.bot:
                continue
            counted = False
            for store, key in (
                (self.table_books, table_book_key(viewer, hand.table_id)),
                (self.books, viewer),
            ):
                before = await store.get(key)
                if before.last_hand.get(hand.table_id, 0) >= hand.hand_number:
                    continue
                await store.execute(
                    key,
                    functools.partial(count_hand, hand=hand, now=self.clock()),
                    msg_id=f"hand-{hand.table_id}-{hand.hand_number}",
                )
                counted = True
            added += counted
        return added
