"""The lobby's use cases in this process, on in-memory stores and a table client that answers
as told: what a call wrote (commits, index entries, table commands) can be counted exactly, and
a table can be made to refuse a seat at the moment a test needs it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from holdem.common.v1 import common_pb2

from libs.auth import KeyRing
from libs.eventstore.memory import InMemoryEventStore
from libs.eventstore.revoked import Revocations
from libs.lobby.catalogue import Listing
from libs.lobby.wallet import Wallet
from services.lobby import wire
from services.lobby.app import Lobby
from services.lobby.base import ACCOUNTS, CATALOGUE, PLAYERS, Stores
from services.lobby.configs import decode_config, table_config
from services.lobby.gate import Gate
from services.lobby.limits import GuestLimiter, LoginLimiter
from services.lobby.sagas import Seating
from services.lobby.store import Aggregates, E, Index, Kind, S
from services.lobby.tables import SeatState, TableClient, TableRefusal, TableState

GRANT = 10_000
RING = KeyRing.parse("k1:" + "a" * 44)
CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    min_buy_in=40,
    max_buy_in=1000,
)


class MemoryIndex(Index):
    """An ``Index`` in a dict, counting its writes."""

    def __init__(self, bucket: str) -> None:
        self.bucket = bucket
        self.entries: dict[str, str] = {}
        self.writes = 0

    async def start(self) -> None:
        return None

    async def put(self, key: str, value: str = "1") -> None:
        self.writes += 1
        self.entries[key] = value

    async def get(self, key: str) -> str | None:
        return self.entries.get(key)

    async def remove(self, key: str) -> None:
        if self.entries.pop(key, None) is not None:
            self.writes += 1

    async def keys(self) -> list[str]:
        return list(self.entries)


@dataclass
class FakeTable:
    config: common_pb2.TableConfig
    seats: dict[int, SeatState] = field(default_factory=dict)
    sequence: int = 1


class FakeTables(TableClient):
    """The table service as the lobby sees it: opens tables, seats players in the first free
    seat (or the one asked), refuses as the table would, or with ``refuse_seats``."""

    def __init__(self) -> None:
        self.tables: dict[str, FakeTable] = {}
        self.commands: list[tuple[str, str]] = []  # (command, table id)
        self.refuse_seats: TableRefusal | None = None

    def _table(self, table_id: str) -> FakeTable:
        table = self.tables.get(table_id)
        if table is None:
            raise TableRefusal(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND", "no such table")
        return table

    async def open(self, table_id: str, name: str, config: str, by: str) -> int:
        self.commands.append(("open", table_id))
        self.tables.setdefault(table_id, FakeTable(decode_config(config)))
        return 1

    async def seat(
        self,
        table_id: str,
        key: str,
        player_id: str,
        display_name: str,
        seat: int | None,
        buy_in: int,
        wait_for_big_blind: bool,
        is_bot: bool,
        bot_level: str = "",
    ) -> int:
        self.commands.append(("seat", table_id))
        table = self._table(table_id)
        if self.refuse_seats is not None:
            raise self.refuse_seats
        config = table.config
        free = [n for n in range(config.max_seats) if n not in table.seats]
        number = free[0] if seat is None and free else seat
        if number is None or number in table.seats:
            raise TableRefusal(grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN", "taken")
        if not 0 <= number < config.max_seats:
            raise TableRefusal(grpc.StatusCode.INVALID_ARGUMENT, "NO_SUCH_SEAT", "no seat")
        if not config.min_buy_in <= buy_in <= config.max_buy_in:
            raise TableRefusal(grpc.StatusCode.INVALID_ARGUMENT, "BUY_IN_OUT_OF_RANGE", "range")
        table.sequence += 1
        table.seats[number] = SeatState(number, player_id, buy_in, 0)
        return table.sequence

    async def add_chips(self, table_id: str, key: str, player_id: str, amount: int) -> int:
        self.commands.append(("add_chips", table_id))
        raise TableRefusal(grpc.StatusCode.INVALID_ARGUMENT, "BUY_IN_OUT_OF_RANGE", "range")

    async def state(self, table_id: str) -> TableState:
        table = self._table(table_id)
        return TableState(table_id, table.sequence, list(table.seats.values()), 0, False)


@dataclass
class InProcess:
    lobby: Lobby
    seating: Seating
    tables: FakeTables
    events: InMemoryEventStore
    indexes: list[MemoryIndex]

    def writes(self) -> int:
        """Every commit and index write so far."""
        commits = sum(len(c) for c in self.events._commits.values())
        return commits + sum(index.writes for index in self.indexes)

    async def create_table(
        self, name: str, config: common_pb2.TableConfig, owner: str, bots: Sequence[int] = ()
    ) -> Listing:
        """CreateTable as the servicer makes it: the config and the AI levels translated
        (services/lobby/wire.py), then the use case (an operator's table: no person needed)."""
        table = wire.new_table(config, needs_a_person=False)
        return await self.lobby.create_table(name, table, owner, wire.ai_level_names(bots))

    async def register(self, name: str) -> Wallet:
        return await self.lobby._open(name, name, name, False, "")

    async def grants(self) -> int:
        index = self.lobby.stores.player_index
        players = [await self.lobby.players.get(key) for key in await index.keys()]
        return sum(player.granted for player in players)


def in_process(**lobby_options: Any) -> InProcess:
    events = InMemoryEventStore()

    def aggregates(kind: Kind[S, E]) -> Aggregates[S, E]:
        return Aggregates(kind, events, None)

    indexes = [MemoryIndex(name) for name in ("players", "tables", "sagas")]
    stores = Stores(aggregates(PLAYERS), aggregates(ACCOUNTS), aggregates(CATALOGUE), *indexes)
    tables = FakeTables()
    lobby = Lobby(
        stores,
        tables,
        cast(LoginLimiter, None),  # no logins or guests here: they need Redis (tests/services)
        cast(GuestLimiter, None),
        RING,
        cast(Revocations, None),
        grant=GRANT,
        token_ttl_seconds=3600,
        read_config=table_config,
        **lobby_options,
    )

    async def no_commit(table_id: str, causation: str) -> None:
        return None

    seating = Seating(lobby, Gate(), no_commit)
    return InProcess(lobby, seating, tables, events, indexes)
