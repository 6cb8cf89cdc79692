"""Lobby use cases: accounts (password and guest), tokens, wallets and their ledgers, the table
catalogue. Every change is a commit of an event-sourced aggregate (libs/lobby, stored by
services/lobby/store.py); nothing lives only in memory but caches and read models rebuilt from
the streams at start. Seating (the buy-in and leave sagas) is in sagas.py, cash-outs in
cashout.py, the chip audit in audit.py.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from holdem.common.v1 import common_pb2

from libs.auth import InvalidToken, KeyRing, TokenClaims, issue, verify
from libs.auth.revocation import Revocations
from libs.auth.tokens import INVALID_TOKEN
from libs.errors import (
    INVALID_PAGE_TOKEN,
    AlreadyExists,
    InvalidArgument,
    NotFound,
    PreconditionFailed,
    Unauthenticated,
    echo,
)
from libs.lobby import account, catalogue, wallet
from libs.lobby.account import Account, AccountOpened, account_key
from libs.lobby.catalogue import Listing
from libs.lobby.passwords import DUMMY_HASH, check_strength, hash_password, verify_password
from libs.lobby.stakes import checked_config
from libs.lobby.wallet import Wallet
from libs.poker.config import BettingStructure, Variant
from libs.table import TableConfig
from libs.table.errors import ALREADY_OPEN, TABLE_CLOSED
from libs.tableproto.config import config_from_proto
from services.lobby.limits import GuestLimiter, LoginLimiter
from services.lobby.store import Aggregates, Index, Kind
from services.lobby.tables import TableClient, TableRefusal

# Error codes.
INVALID_USERNAME = "INVALID_USERNAME"
INVALID_DISPLAY_NAME = "INVALID_DISPLAY_NAME"
INVALID_CREDENTIALS = "INVALID_CREDENTIALS"
INVALID_TABLE_NAME = "INVALID_TABLE_NAME"
INVALID_BOTS = "INVALID_BOTS"
TOO_MANY_OPEN_TABLES = "TOO_MANY_OPEN_TABLES"

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")
MAX_DISPLAY_NAME = 32
MAX_TABLE_NAME = 64
MAX_PAGE_SIZE = 100

Clock = Callable[[], float]

#: CreateTable's AI seats: level (the proto's BotDifficulty) -> the house AI's level name.
AI_LEVELS = {
    common_pb2.BOT_DIFFICULTY_EASY: "easy",
    common_pb2.BOT_DIFFICULTY_NORMAL: "normal",
    common_pb2.BOT_DIFFICULTY_HARD: "hard",
}


def ai_levels(bots: Sequence[int], seats: int) -> list[str]:
    """The level names of a table's AI seats; INVALID_ARGUMENT for an unknown level or more AIs
    than seats less one (a seat stays free for a person)."""
    levels = []
    for bot in bots:
        level = AI_LEVELS.get(bot)  # type: ignore[call-overload]
        if level is None:
            raise InvalidArgument(
                INVALID_BOTS, f"bots: unknown level {int(bot)} (EASY, NORMAL or HARD)"
            )
        levels.append(level)
    if len(levels) > seats - 1:
        raise InvalidArgument(
            INVALID_BOTS,
            f"bots: at most {seats - 1} AIs at a {seats}-seat table (one seat stays free), "
            f"{len(levels)} asked",
        )
    return levels


def house_ai_id(level: str, number: int) -> str:
    """The player id of the ``number``-th house AI of ``level`` (1, 2, ...): a table's AIs of
    one level are different players, the same ones at every table."""
    return f"ai-{level}-{number}"


PLAYERS: Kind[Wallet, wallet.Event] = Kind(
    "player",
    wallet.initial,
    wallet.evolve,
    wallet.encode,
    wallet.decode,
    wallet.encode_wallet,
    wallet.decode_wallet,
)
ACCOUNTS: Kind[Account, AccountOpened] = Kind(
    "account",
    account.initial,
    account.evolve,
    account.encode,
    account.decode,
    account.encode_account,
    account.decode_account,
)
CATALOGUE: Kind[Listing, catalogue.Event] = Kind(
    "table",
    catalogue.initial,
    catalogue.evolve,
    catalogue.encode,
    catalogue.decode,
    catalogue.encode_listing,
    catalogue.decode_listing,
)


@dataclass(frozen=True)
class Session:
    token: str
    claims: TokenClaims
    player: Wallet


def encode_config(config: common_pb2.TableConfig) -> str:
    return base64.b64encode(config.SerializeToString()).decode()


def decode_config(text: str) -> common_pb2.TableConfig:
    return common_pb2.TableConfig.FromString(base64.b64decode(text))


def _display_name(text: str, fallback: str) -> str:
    name = text.strip() or fallback
    if not 1 <= len(name) <= MAX_DISPLAY_NAME or not name.isprintable():
        raise InvalidArgument(
            INVALID_DISPLAY_NAME, f"a display name has 1-{MAX_DISPLAY_NAME} printable characters"
        )
    return name


@dataclass
class Stores:
    players: Aggregates[Wallet, wallet.Event]
    accounts: Aggregates[Account, AccountOpened]
    tables: Aggregates[Listing, catalogue.Event]
    player_index: Index
    table_index: Index
    saga_index: Index


class Lobby:
    def __init__(
        self,
        stores: Stores,
        tables: TableClient,
        limiter: LoginLimiter,
        guests: GuestLimiter,
        ring: KeyRing,
        revocations: Revocations,
        *,
        grant: int,
        token_ttl_seconds: int,
        open_tables_per_player: int = 10,
        house_ai_max_buy_in: int = 20_000,
        clock: Clock = time.time,
        accounts: GuestLimiter | None = None,
    ) -> None:
        self.stores = stores
        self.players = stores.players
        self.tables = tables
        self.limiter = limiter
        self.guests = guests
        self.accounts = accounts  # clients' registrations per address (None: not counted)
        self.ring = ring
        self.revocations = revocations
        self.grant = grant
        self.token_ttl = token_ttl_seconds
        self.open_tables_per_player = open_tables_per_player
        self.house_ai_max_buy_in = house_ai_max_buy_in
        self._creators: dict[str, asyncio.Lock] = {}  # one CreateTable of a player at a time
        self.clock = clock
        self.listings: dict[str, Listing] = {}  # read model of the catalogue, oldest first
        self._configs: dict[str, TableConfig] = {}
        self.unopened: set[str] = set()  # listed, not yet opened at the table service
        self.credited = asyncio.Condition()  # notified after the cash-out consumer credits

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

    # ---- accounts and tokens ----

    async def register(
        self,
        username: str,
        password: str,
        display_name: str = "",
        peer: str = "",
        bot: bool = False,
        client: bool = False,
    ) -> Wallet:
        """A new account; ``client``: asked by a client (through the gateway), counted per
        address like guests (RESOURCE_EXHAUSTED, TOO_MANY_ACCOUNTS, before anything is written;
        operators' tools are not counted)."""
        username = username.strip()
        if not USERNAME.match(username):
            raise InvalidArgument(
                INVALID_USERNAME, "a username has 3-32 letters, digits, '_', '-' or '.'"
            )
        display = _display_name(display_name, username)
        check_strength(password)
        key = account_key(username)
        if (await self.stores.accounts.get(key)).exists:
            raise account_taken(username)
        if client and not bot and self.accounts is not None:
            await self.accounts.take(peer)
        digest = await self.limiter.hash_work(peer, lambda: hash_password(password))
        return await self._open(key, username, display, False, digest, bot)

    async def guest(self, display_name: str, peer: str = "") -> Session:
        """A new guest player and its token; at most ``guests.per_address`` per window from one
        client address (RESOURCE_EXHAUSTED, TOO_MANY_GUESTS, before anything is written)."""
        display = _display_name(display_name, "")
        await self.guests.take(peer)
        username = f"guest-{uuid.uuid4().hex[:12]}"
        player = await self._open(account_key(username), username, display, True, "")
        return self._session(player)

    async def _open(
        self, key: str, username: str, display: str, guest: bool, digest: str, bot: bool = False
    ) -> Wallet:
        player_id = uuid.uuid4().hex
        await self.stores.player_index.put(player_id)  # findable before its first commit
        now = self.clock()
        opened = await self.stores.accounts.execute(
            key,
            lambda a: account.open_account(
                a, player_id, username, display, guest, digest, now, bot
            ),
            msg_id=f"open-{player_id}",
        )
        if opened.player_id != player_id:
            raise account_taken(username)
        return await self._complete(opened)

    async def _complete(self, opened: Account) -> Wallet:
        """The player's own stream, written after the account (again, harmlessly, on login: a
        registration cut short between the two is finished here)."""
        now = self.clock()
        player = await self.players.get(opened.player_id)
        if player.registered:
            return player
        return await self.players.execute(
            opened.player_id,
            lambda w: wallet.register(
                w, opened.username, opened.display_name, opened.guest, opened.bot, self.grant, now
            ),
            msg_id="registered",
        )

    async def login(self, username: str, password: str, peer: str) -> Session:
        await self.limiter.check(username, peer)
        found = await self.stores.accounts.get(account_key(username))
        usable = found.exists and not found.guest and bool(found.password_hash)
        encoded = found.password_hash if usable else DUMMY_HASH
        # Verify even for unknown users, so the time taken does not tell which names exist.
        ok = await self.limiter.hash_work(peer, lambda: verify_password(encoded, password))
        if not (ok and usable):
            await self.limiter.failed(username, peer)
            raise Unauthenticated(INVALID_CREDENTIALS, "invalid username or password")
        await self.limiter.succeeded(username, peer)
        return self._session(await self._complete(found))

    def _session(self, player: Wallet) -> Session:
        token, claims = issue(
            self.ring,
            player_id=player.player_id,
            username=player.username,
            display_name=player.display_name,
            guest=player.guest,
            now=self.clock(),
            ttl_seconds=self.token_ttl,
        )
        return Session(token, claims, player)

    def _claims(self, token: str) -> TokenClaims:
        try:
            return verify(self.ring, token, now=self.clock())
        except InvalidToken:
            raise Unauthenticated(INVALID_TOKEN, "invalid, expired or revoked token") from None

    async def logout(self, token: str) -> None:
        await self.revocations.revoke(self._claims(token))

    async def authenticate(self, token: str) -> Wallet:
        claims = self._claims(token)
        if await self.revocations.is_revoked(claims.jti):
            raise Unauthenticated(INVALID_TOKEN, "invalid, expired or revoked token")
        return await self.player(claims.player_id)

    # ---- players and wallets ----

    async def player(self, player_id: str) -> Wallet:
        found = await self.players.get(player_id)
        if not found.registered:
            raise NotFound(wallet.PLAYER_NOT_FOUND, f"no player {echo(player_id)}")
        return found

    async def ledger(
        self, player_id: str, page_size: int, page_token: str
    ) -> tuple[list[wallet.Entry], str]:
        """One page of the player's ledger, oldest first, and the next page's token. The wallet
        keeps its latest entries (``wallet.LEDGER_WINDOW``); a page before them is folded from
        the player's stream, which keeps every event (a read of the stream up to that page)."""
        found = await self.player(player_id)
        size = min(page_size or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        start = _page_start(page_token)
        oldest = found.ledger[0].index if found.ledger else found.entries + 1
        if start + 1 >= oldest or start >= found.entries:
            entries = [e for e in found.ledger if e.index > start][:size]
        else:
            commits = await self.players.repository.events.read(player_id)
            events = (event for commit in commits for event in wallet.decode(commit.data))
            entries = wallet.ledger_of(player_id, events, after=start, limit=size)
        more = bool(entries) and entries[-1].index < found.entries
        return entries, str(entries[-1].index) if more else ""

    # ---- table catalogue ----

    def config_of(self, listing: Listing) -> TableConfig:
        config = self._configs.get(listing.table_id)
        if config is None:
            config = self._configs[listing.table_id] = config_from_proto(
                decode_config(listing.config)
            )
        return config

    def ai_buy_in(self, config: TableConfig) -> int:
        """What a house AI brings to a table: its max buy-in, but at most the house limit (the
        table's creator chooses the max buy-in, up to 10^12: the house would mint that much per
        AI for the creator to win)."""
        return min(config.max_buy_in, self.house_ai_max_buy_in)

    async def house_ai(self, level: str, number: int, buy_in: int, key: str) -> Wallet:
        """The house AI ``house_ai_id(level, number)``, registered on first use (a bot player
        with a wallet and the grant, no account: nobody logs in as it), its balance granted up
        to ``buy_in`` when short (the grant's commit id ``grant-<key>``)."""
        player_id = house_ai_id(level, number)
        now = self.clock()
        if not (await self.players.get(player_id)).registered:
            await self.stores.player_index.put(player_id)  # findable before its first commit
            name = f"{level.capitalize()} AI {number}"
            await self.players.execute(
                player_id,
                lambda w: wallet.register(w, player_id, name, False, True, self.grant, now, level),
                msg_id="registered",
            )
        return await self.players.execute(
            player_id,
            lambda w: wallet.house_grant(w, buy_in, self.grant, now),
            msg_id=f"grant-{key}",
        )

    async def create_table(
        self,
        name: str,
        config: common_pb2.TableConfig,
        created_by: str,
        bots: Sequence[int] = (),
        client: bool = False,
    ) -> Listing:
        """List and open a table; ``client``: asked by a client (through the gateway), whose
        table deals a hand only with a person in it (``needs_a_person``: the AIs wait)."""
        await self.player(created_by)
        if client:
            # a client's table: its AIs do not play each other alone (they would play, and
            # cost, for as long as the table is open, with nobody there)
            people = common_pb2.TableConfig()
            people.CopyFrom(config)
            people.needs_a_person = True
            config = people
        # the whole config, derived buy-ins included, before anything is written
        checked = checked_config(config)
        ai_levels(bots, checked.seats)
        if bots and self.ai_buy_in(checked) < checked.min_buy_in:
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
                lambda t: catalogue.list_table(t, name, encode_config(config), created_by, now),
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
                listing.table_id, listing.name, decode_config(listing.config), listing.created_by
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
    ) -> tuple[list[Listing], str]:
        """One page of matching tables, oldest first, and the next page's token ("" = last)."""
        size = min(page_size or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        start = _page_start(page_token)
        matching = [
            t
            # oldest first, the same order at every replica (each learnt them in its own order)
            for t in sorted(self.listings.values(), key=lambda x: (x.created_at, x.table_id))
            if (variant is None or self.config_of(t).variant is variant)
            and (betting_structure is None or self.config_of(t).structure is betting_structure)
            and (include_closed or t.status != catalogue.CLOSED)
        ]
        page = matching[start : start + size]
        more = start + size < len(matching)
        return page, str(start + size) if more else ""


def _page_start(token: str) -> int:
    if not token:
        return 0
    if not token.isdigit() or len(token) > 12:
        raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid")
    return int(token)


def account_taken(username: str) -> Exception:
    return AlreadyExists(account.USERNAME_TAKEN, f"username {echo(username)} is taken")
