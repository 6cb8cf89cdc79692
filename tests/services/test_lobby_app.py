"""Lobby use cases (services/lobby/app.py), in memory, no gRPC; table configs arrive as the
table service receives them (libs.tableproto) and are validated by the same TableConfig."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from holdem.common.v1 import common_pb2 as pb
from holdem.lobby.v1 import lobby_pb2

from libs.platform.errors import AlreadyExists, InvalidArgument, NotFound, Unauthenticated
from libs.poker.config import Variant
from libs.table import TableConfig
from libs.table.config import TableConfigError
from libs.tableproto.config import config_from_proto
from services.lobby.app import Lobby
from services.lobby.server import LobbyServicer

HOLDEM_NL_WIRE = pb.TableConfig(
    variant=pb.VARIANT_HOLDEM,
    betting_structure=pb.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=9,
    small_blind=1,
    big_blind=2,
)
HOLDEM_NL = config_from_proto(HOLDEM_NL_WIRE)


def wire(**change: int) -> pb.TableConfig:
    config = pb.TableConfig()
    config.CopyFrom(HOLDEM_NL_WIRE)
    for name, value in change.items():
        setattr(config, name, value)
    return config


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_registered_player_logs_in_and_is_authenticated_by_token() -> None:
    lobby = Lobby(starting_chips=1000, token_ttl_seconds=3600)
    player = asyncio.run(lobby.register("alice", "s3cret-pass"))
    session = asyncio.run(lobby.login("ALICE", "s3cret-pass"))
    assert session.player == player
    assert lobby.authenticate(session.token) == player
    assert lobby.wallet(player.player_id).balance == 1000


def test_usernames_are_unique_ignoring_case() -> None:
    lobby = Lobby(0, 3600)
    asyncio.run(lobby.register("Bob", "password1"))
    with pytest.raises(AlreadyExists):
        asyncio.run(lobby.register("bob", "password2"))


@pytest.mark.parametrize(
    ("username", "password", "code"),
    [
        ("ab", "password1", "INVALID_USERNAME"),
        ("has space", "password1", "INVALID_USERNAME"),
        ("carol", "short", "INVALID_PASSWORD"),
    ],
)
def test_registration_is_validated(username: str, password: str, code: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        asyncio.run(Lobby(0, 3600).register(username, password))
    assert caught.value.code == code


def test_wrong_password_and_unknown_user_look_the_same() -> None:
    lobby = Lobby(0, 3600)
    asyncio.run(lobby.register("dave", "password1"))
    with pytest.raises(Unauthenticated) as wrong:
        asyncio.run(lobby.login("dave", "password2"))
    with pytest.raises(Unauthenticated) as unknown:
        asyncio.run(lobby.login("nobody", "password1"))
    assert wrong.value.message == unknown.value.message


def test_token_expires() -> None:
    clock = Clock()
    lobby = Lobby(0, token_ttl_seconds=60, clock=clock)
    asyncio.run(lobby.register("erin", "password1"))
    token = asyncio.run(lobby.login("erin", "password1")).token
    clock.now += timedelta(seconds=61)
    with pytest.raises(Unauthenticated):
        lobby.authenticate(token)


def test_created_table_gets_default_buy_ins_and_clock() -> None:
    lobby = Lobby(0, 3600)
    owner = asyncio.run(lobby.register("frank", "password1"))
    table = lobby.create_table("", HOLDEM_NL, owner.player_id)
    assert table.name == "Table 1"
    assert (table.config.min_buy_in, table.config.max_buy_in) == (40, 200)
    assert table.config.action_seconds == 30
    assert table.config.time_bank_seconds == TableConfig().time_bank_seconds  # the table's
    assert lobby.table(table.table_id) == table


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"variant": 0}, "variant"),
        ({"betting_structure": 0}, "betting_structure"),
        ({"max_seats": 1}, "max_seats"),
        ({"max_seats": 11}, "max_seats"),
        ({"small_blind": 3}, "small_blind"),
        ({"big_blind": 0}, "big_blind"),
        ({"min_buy_in": 100, "max_buy_in": 50}, "max_buy_in"),
        ({"rake_basis_points": 5000}, "rake_basis_points"),
        ({"action_clock_seconds": 601}, "action_clock_seconds"),
    ],
)
def test_invalid_table_settings_name_the_field(change: dict[str, int], field: str) -> None:
    with pytest.raises(TableConfigError) as caught:
        config_from_proto(wire(**change))
    assert field in caught.value.message
    assert caught.value.code == "INVALID_TABLE_CONFIG"


def test_fixed_limit_buy_in_is_at_least_ten_small_bets() -> None:
    fixed = wire(betting_structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, min_buy_in=19)
    with pytest.raises(TableConfigError, match="min_buy_in must be at least 20"):
        config_from_proto(fixed)


def test_the_lobby_refuses_the_tables_the_table_service_refuses() -> None:
    lobby = Lobby(0, 3600)
    owner = asyncio.run(lobby.register("hank", "password1"))
    servicer = LobbyServicer(lobby)
    for refused in (
        wire(betting_structure=pb.BETTING_STRUCTURE_FIXED_LIMIT, straddle_allowed=True),
        wire(min_players_to_start=10),  # more than the 9 seats
    ):
        request = lobby_pb2.CreateTableRequest(config=refused, created_by_player_id=owner.player_id)
        with pytest.raises(TableConfigError):
            asyncio.run(servicer.CreateTable(request, None))  # type: ignore[arg-type]
    assert lobby.list_tables() == ([], "")


def test_tables_are_listed_in_pages_and_filtered() -> None:
    lobby = Lobby(0, 3600)
    owner = asyncio.run(lobby.register("gina", "password1"))
    holdem = [lobby.create_table(f"h{i}", HOLDEM_NL, owner.player_id) for i in range(3)]
    lobby.create_table("o", replace(HOLDEM_NL, variant=Variant.OMAHA), owner.player_id)
    first, token = lobby.list_tables(variant=Variant.HOLDEM, page_size=2)
    second, last = lobby.list_tables(variant=Variant.HOLDEM, page_size=2, page_token=token)
    assert first + second == holdem
    assert last == ""
    with pytest.raises(InvalidArgument):
        lobby.list_tables(page_token="garbage")


def test_table_of_an_unknown_player_is_refused() -> None:
    with pytest.raises(NotFound):
        Lobby(0, 3600).create_table("t", HOLDEM_NL, "ghost")
