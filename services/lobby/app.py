"""Lobby use cases: register and log in players, resolve tokens, read wallets, keep the table
catalogue.

In memory for now (a restart forgets everything); the lobby's own event stream on NATS replaces
these dictionaries in a later issue. Buy-ins, cash-outs and closing tables arrive with seating.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import hmac
import re
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from libs.platform.errors import AlreadyExists, InvalidArgument, NotFound, Unauthenticated
from libs.poker.config import BettingStructure, Variant
from libs.table import TableConfig

# Error codes.
INVALID_USERNAME = "INVALID_USERNAME"
INVALID_PASSWORD = "INVALID_PASSWORD"
INVALID_DISPLAY_NAME = "INVALID_DISPLAY_NAME"
USERNAME_TAKEN = "USERNAME_TAKEN"
INVALID_CREDENTIALS = "INVALID_CREDENTIALS"
INVALID_TOKEN = "INVALID_TOKEN"
PLAYER_NOT_FOUND = "PLAYER_NOT_FOUND"
INVALID_TABLE_NAME = "INVALID_TABLE_NAME"
TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
INVALID_PAGE_TOKEN = "INVALID_PAGE_TOKEN"

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
MAX_DISPLAY_NAME = 32
MAX_TABLE_NAME = 64
MAX_PAGE_SIZE = 100

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class TableStatus(enum.Enum):
    OPEN = "open"
    CLOSING = "closing"
    CLOSED = "closed"


@dataclass(frozen=True)
class Player:
    player_id: str
    username: str
    display_name: str
    created_at: datetime
    is_bot: bool = False


@dataclass(frozen=True)
class Wallet:
    player_id: str
    balance: int
    on_tables: int = 0


@dataclass(frozen=True)
class Session:
    token: str
    expires_at: datetime
    player: Player


@dataclass(frozen=True)
class Table:
    table_id: str
    name: str
    config: TableConfig  # validated by TableConfig itself, as at the table service
    status: TableStatus
    created_by_player_id: str
    created_at: datetime
    seated_players: int = 0


@dataclass
class _Account:
    player: Player
    salt: bytes
    password_hash: bytes


def _hash_password(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1, dklen=32)


def _token_key(token: str) -> str:
    # Only hashes of tokens are kept, so a memory dump does not hand out sessions.
    return hashlib.sha256(token.encode()).hexdigest()


class Lobby:
    def __init__(self, starting_chips: int, token_ttl_seconds: int, clock: Clock = utc_now):
        self.starting_chips = starting_chips
        self.token_ttl = timedelta(seconds=token_ttl_seconds)
        self.clock = clock
        self._accounts: dict[str, _Account] = {}  # by lower-cased username
        self._players: dict[str, Player] = {}
        self._wallets: dict[str, Wallet] = {}
        self._sessions: dict[str, tuple[str, datetime]] = {}  # token hash -> (player id, expiry)
        self._tables: dict[str, Table] = {}  # insertion order = catalogue order
        self._dummy_salt = secrets.token_bytes(16)

    # ---- players and sessions ----

    async def register(self, username: str, password: str, display_name: str = "") -> Player:
        username = username.strip()
        display_name = display_name.strip() or username
        if not USERNAME.match(username):
            raise InvalidArgument(
                INVALID_USERNAME, "username must be 3-32 letters, digits, '_', '-' or '.'"
            )
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise InvalidArgument(
                INVALID_PASSWORD, f"password must be {MIN_PASSWORD}-{MAX_PASSWORD} characters"
            )
        if len(display_name) > MAX_DISPLAY_NAME or not display_name.isprintable():
            raise InvalidArgument(
                INVALID_DISPLAY_NAME, f"display name must be 1-{MAX_DISPLAY_NAME} characters"
            )
        key = username.lower()
        if key in self._accounts:
            raise AlreadyExists(USERNAME_TAKEN, f"username {username!r} is taken")
        salt = secrets.token_bytes(16)
        digest = await asyncio.to_thread(_hash_password, password, salt)
        if key in self._accounts:  # registered by a concurrent call while hashing
            raise AlreadyExists(USERNAME_TAKEN, f"username {username!r} is taken")
        player = Player(uuid.uuid4().hex, username, display_name, self.clock())
        self._accounts[key] = _Account(player, salt, digest)
        self._players[player.player_id] = player
        self._wallets[player.player_id] = Wallet(player.player_id, self.starting_chips)
        return player

    async def login(self, username: str, password: str) -> Session:
        account = self._accounts.get(username.strip().lower())
        salt = account.salt if account else self._dummy_salt
        # Hash even for unknown users so timing does not reveal which usernames exist.
        digest = await asyncio.to_thread(_hash_password, password, salt)
        if account is None or not hmac.compare_digest(digest, account.password_hash):
            raise Unauthenticated(INVALID_CREDENTIALS, "invalid username or password")
        token = secrets.token_urlsafe(32)
        expires_at = self.clock() + self.token_ttl
        self._sessions[_token_key(token)] = (account.player.player_id, expires_at)
        return Session(token, expires_at, account.player)

    def authenticate(self, token: str) -> Player:
        key = _token_key(token)
        entry = self._sessions.get(key)
        if entry is None:
            raise Unauthenticated(INVALID_TOKEN, "unknown or expired token")
        player_id, expires_at = entry
        if expires_at <= self.clock():
            del self._sessions[key]
            raise Unauthenticated(INVALID_TOKEN, "unknown or expired token")
        return self._players[player_id]

    def player(self, player_id: str) -> Player:
        try:
            return self._players[player_id]
        except KeyError:
            raise NotFound(PLAYER_NOT_FOUND, f"no player {player_id!r}") from None

    def wallet(self, player_id: str) -> Wallet:
        try:
            return self._wallets[player_id]
        except KeyError:
            raise NotFound(PLAYER_NOT_FOUND, f"no player {player_id!r}") from None

    # ---- table catalogue ----

    def create_table(self, name: str, config: TableConfig, created_by_player_id: str) -> Table:
        self.player(created_by_player_id)
        name = name.strip() or f"Table {len(self._tables) + 1}"
        if len(name) > MAX_TABLE_NAME or not name.isprintable():
            raise InvalidArgument(
                INVALID_TABLE_NAME, f"table name must be 1-{MAX_TABLE_NAME} characters"
            )
        table = Table(
            table_id=uuid.uuid4().hex,
            name=name,
            config=config,
            status=TableStatus.OPEN,
            created_by_player_id=created_by_player_id,
            created_at=self.clock(),
        )
        self._tables[table.table_id] = table
        return table

    def table(self, table_id: str) -> Table:
        try:
            return self._tables[table_id]
        except KeyError:
            raise NotFound(TABLE_NOT_FOUND, f"no table {table_id!r}") from None

    def list_tables(
        self,
        variant: Variant | None = None,
        betting_structure: BettingStructure | None = None,
        include_closed: bool = False,
        page_size: int = 0,
        page_token: str = "",
    ) -> tuple[list[Table], str]:
        """One page of matching tables, oldest first, and the next page's token ("" = last)."""
        size = min(page_size or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        try:
            start = int(page_token) if page_token else 0
        except ValueError:
            raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid") from None
        matching = [
            t
            for t in self._tables.values()
            if (variant is None or t.config.variant is variant)
            and (betting_structure is None or t.config.structure is betting_structure)
            and (include_closed or t.status is not TableStatus.CLOSED)
        ]
        page = matching[start : start + size]
        more = start + size < len(matching)
        return page, str(start + size) if more else ""
