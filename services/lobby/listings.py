"""The table catalogue: listing a table (checked, counted against its creator's open tables),
opening it at the table service (again after a crash: ``open_pending``), reading it, closing it
(its creator only), recording what its public commits say, and listing tables by page. The
read model (``listings``) follows the catalogue's streams, whoever wrote them (every replica
lists, records and closes tables)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from libs.errors import InvalidArgument, PreconditionFailed
from libs.lobby import catalogue
from libs.lobby.catalogue import Listing
from libs.poker.config import BettingStructure, Variant
from libs.table import TableConfig
from libs.table.errors import ALREADY_OPEN, TABLE_CLOSED
from services.lobby.base import MAX_PAGE_SIZE, LobbyBase, table_key
from services.lobby.tables import TableRefusal

INVALID_TABLE_NAME = "INVALID_TABLE_NAME"
INVALID_BOTS = "INVALID_BOTS"
TOO_MANY_OPEN_TABLES = "TOO_MANY_OPEN_TABLES"

MAX_TABLE_NAME = 64


@dataclass(frozen=True)
class NewTable:
    """A table to list: its config (checked whole, derived values included) and that config as
    the catalogue keeps it (opaque here: the servicer's encoding, read back by
    ``LobbyBase.read_config``)."""

    config: TableConfig
    stored: str


def check_ai_seats(levels: Sequence[str], seats: int) -> None:
    """INVALID_ARGUMENT for more AIs than seats less one (a seat stays free for a person)."""
    if len(levels) > seats - 1:
        raise InvalidArgument(
            INVALID_BOTS,
            f"bots: at most {seats - 1} AIs at a {seats}-seat table (one seat stays free), "
            f"{len(levels)} asked",
        )


class Listings(LobbyBase):
    async def start(self) -> None:
        """Rebuild the catalogue's read model from its streams."""
        loaded = [await self.stores.tables.get(t) for t in await self.stores.table_index.keys()]
        for listing in sorted((x for x in loaded if x.exists), key=lambda x: x.created_at):
            self._remember(listing)
            if listing.status != catalogue.CLOSED:
                self.unopened.add(listing.table_id)  # opened again (idempotent) by open_pending

    def _remember(self, listing: Listing) -> None:
        if listing.exists:
            self.listings[listing.table_id] = listing

    async def refresh_table(self, table_id: str) -> None:
        """The catalogue's read model follows the table streams, whoever wrote them (every
        replica lists tables, records activity, closes them): read one again after a commit.
        A table first seen here is opened again at the table service (idempotently), in case
        the replica that listed it stopped before opening it."""
        listing = await self.stores.tables.get(table_id)
        if not listing.exists:
            return
        new = listing.table_id not in self.listings
        self._remember(listing)
        if new and listing.status != catalogue.CLOSED:
            self.unopened.add(table_id)

    async def refresh_tables(self) -> None:
        """Every listed table read again (the audit: it must not miss one another replica
        listed a moment ago)."""
        for table_id in await self.stores.table_index.keys():
            await self.refresh_table(table_id)

    def config_of(self, listing: Listing) -> TableConfig:
        config = self._configs.get(listing.table_id)
        if config is None:
            config = self._configs[listing.table_id] = self.read_config(listing.config)
        return config

    def ai_buy_in(self, config: TableConfig) -> int:
        """What a house AI brings to a table: its max buy-in, but at most the house limit (the
        table's creator chooses the max buy-in, up to 10^12: the house would mint that much per
        AI for the creator to win)."""
        return min(config.max_buy_in, self.house_ai_max_buy_in)

    async def create_table(
        self,
        name: str,
        table: NewTable,
        created_by: str,
        levels: Sequence[str] = (),
        privacy: catalogue.TableListed | None = None,
    ) -> Listing:
        """List and open ``table`` (checked whole by the servicer, wire.py ``new_table``), with
        AI seats of ``levels`` to come (checked here, seated by the sagas)."""
        await self.player(created_by)
        checked = table.config
        check_ai_seats(levels, checked.seats)
        if levels and self.ai_buy_in(checked) < checked.min_buy_in:
            raise InvalidArgument(
                INVALID_BOTS,
                f"bots: a house AI buys in with at most {self.house_ai_max_buy_in} chips, below "
                f"this table's min_buy_in ({checked.min_buy_in})",
            )
        name = name.strip() or f"Table {len(self.listings) + 1}"
        if len(name) > MAX_TABLE_NAME or not name.isprintable():
            raise InvalidArgument(
                INVALID_TABLE_NAME, f"a table name has 1-{MAX_TABLE_NAME} characters"
            )
        table_id = uuid.uuid4().hex
        async with self._creating(created_by):  # counted and listed at once (in this process)
            self._check_open_tables(created_by)
            await self.stores.table_index.put(table_id)
            now = self.clock()
            listing = await self.stores.tables.execute(
                table_id,
                lambda t: catalogue.list_table(t, name, table.stored, created_by, now, privacy),
                msg_id="listed",
            )
            self._remember(listing)
        try:
            await self.open_at_table(listing)
        except TableRefusal as refusal:
            if refusal.definitive:
                raise
            # Listed; opened at the table service when it answers (the process manager retries).
            self.unopened.add(table_id)
        return listing

    def _creating(self, player_id: str) -> asyncio.Lock:
        lock = self._creators.get(player_id)
        if lock is None:
            lock = self._creators[player_id] = asyncio.Lock()
        return lock

    def _check_open_tables(self, player_id: str) -> None:
        """Refuse a player who already has ``open_tables_per_player`` open tables (from the
        catalogue's read model, which follows every replica's listings a moment later)."""
        mine = sum(
            1
            for t in self.listings.values()
            if t.created_by == player_id and t.status != catalogue.CLOSED
        )
        if mine >= self.open_tables_per_player:
            raise PreconditionFailed(
                TOO_MANY_OPEN_TABLES,
                f"you have {mine} open tables, the most allowed: close one first",
            )

    async def open_at_table(self, listing: Listing) -> None:
        """Open the listed table at the table service (idempotent: again after a crash)."""
        try:
            await self.tables.open(
                listing.table_id, listing.name, listing.config, listing.created_by
            )
        except TableRefusal as refusal:
            if refusal.code != ALREADY_OPEN:
                raise
        self.unopened.discard(listing.table_id)

    async def open_pending(self) -> None:
        """Open the listed tables the table service has not confirmed yet."""
        for table_id in sorted(self.unopened):
            listing = self.listings.get(table_id)
            if listing is None or listing.status == catalogue.CLOSED:
                self.unopened.discard(table_id)
                continue
            with contextlib.suppress(TableRefusal):
                await self.open_at_table(listing)

    async def table(self, table_id: str) -> Listing:
        listing = self.listings.get(table_id)
        if listing is None:
            listing = catalogue.require(await self.stores.tables.get(table_id))
            self._remember(listing)
        return listing

    async def record_activity(
        self, table_id: str, sequence: int, seated_delta: int, rake: int, closed: str
    ) -> None:
        now = self.clock()
        listing = await self.stores.tables.execute(
            table_id,
            lambda t: catalogue.record(t, sequence, seated_delta, rake, closed, now),
            msg_id=f"activity-{sequence}",
        )
        self._remember(listing)

    async def close_table(self, table_id: str, requested_by: str) -> Listing:
        listing = await self.table(table_id)
        catalogue.may_close(listing, requested_by)
        if listing.status != catalogue.CLOSED:
            try:
                await self.tables.close(table_id, f"close-{table_id}", requested_by)
            except TableRefusal as refusal:
                if refusal.code != TABLE_CLOSED:
                    raise
        return listing

    def list_tables(
        self,
        variant: Variant | None = None,
        betting_structure: BettingStructure | None = None,
        include_closed: bool = False,
        page_size: int = 0,
        page_token: str = "",
        newest_first: bool = False,
    ) -> tuple[list[Listing], str]:
        """One page of matching tables, oldest first (newest first if asked), and the next
        page's token ("" = last). The token names the last table shown (``table_key``), and the
        next page starts after it: a table opened or closed between two reads shifts no row."""
        size = min(page_size or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        after = table_key(page_token)
        matching = [
            t
            # oldest first, the same order at every replica (each learnt them in its own order)
            for t in sorted(
                self.listings.values(),
                key=lambda x: (x.created_at, x.table_id),
                reverse=newest_first,
            )
            if (variant is None or self.config_of(t).variant is variant)
            and (betting_structure is None or self.config_of(t).structure is betting_structure)
            and (include_closed or t.status != catalogue.CLOSED)
            and not t.private  # entered with a password or an invite, never listed
            and (
                after is None
                or (
                    (t.created_at, t.table_id) < after
                    if newest_first
                    else after < (t.created_at, t.table_id)
                )
            )
        ]
        page = matching[:size]
        if len(matching) <= size:
            return page, ""
        last = page[-1]
        return page, f"{last.created_at!r}/{last.table_id}"
