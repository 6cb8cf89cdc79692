"""What the lobby's use cases share (``LobbyBase``): the stores (``Stores``: each aggregate kind
stored as JetStream commits, services/lobby/store.py), the clients and limits they call, the
catalogue's read model, and a player's wallet (``player``). The use cases are built on it:
accounts.py (accounts, logins, tokens), listings.py (the table catalogue) and app.py (wallets,
house AIs; ``Lobby``, all of them)."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from libs.auth import KeyRing
from libs.errors import INVALID_PAGE_TOKEN, InvalidArgument, NotFound, echo
from libs.eventstore.revoked import Revocations
from libs.lobby import account, catalogue, wallet, wallet_codec
from libs.lobby.account import Account, AccountOpened
from libs.lobby.catalogue import Listing
from libs.lobby.wallet import Wallet
from libs.table import TableConfig
from services.lobby.limits import GuestLimiter, LoginLimiter
from services.lobby.store import Aggregates, Index, Kind
from services.lobby.tables import TableClient

MAX_PAGE_SIZE = 100

Clock = Callable[[], float]

PLAYERS: Kind[Wallet, wallet.Event] = Kind(
    "player",
    wallet.initial,
    wallet.evolve,
    wallet_codec.encode,
    wallet_codec.decode,
    wallet_codec.encode_wallet,
    wallet_codec.decode_wallet,
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


@dataclass
class Stores:
    players: Aggregates[Wallet, wallet.Event]
    accounts: Aggregates[Account, AccountOpened]
    tables: Aggregates[Listing, catalogue.Event]
    player_index: Index
    table_index: Index
    saga_index: Index


class LobbyBase:
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
        read_config: Callable[[str], TableConfig],
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
        self.read_config = read_config  # a listing's stored config -> the table it describes
        self.unopened: set[str] = set()  # listed, not yet opened at the table service
        self.credited = asyncio.Condition()  # notified after the cash-out consumer credits

    async def player(self, player_id: str) -> Wallet:
        found = await self.players.get(player_id)
        if not found.registered:
            raise NotFound(wallet.PLAYER_NOT_FOUND, f"no player {echo(player_id)}")
        return found


def table_key(token: str) -> tuple[float, str] | None:
    """The table a page of tables ended with, from its token (``created_at/table_id``): the next
    page starts after it. None for the first page."""
    if not token:
        return None
    at, slash, table_id = token.partition("/")
    try:
        created = float(at)
    except ValueError:
        created = math.nan
    if not slash or not table_id or len(token) > 128 or not math.isfinite(created):
        raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid")
    return created, table_id


def page_start(token: str) -> int:
    if not token:
        return 0
    if not token.isdigit() or len(token) > 12:
        raise InvalidArgument(INVALID_PAGE_TOKEN, "page_token is not valid")
    return int(token)
