"""Lobby use cases (services/lobby/app.py), in memory, no gRPC."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from libs.platform.errors import AlreadyExists, InvalidArgument, NotFound, Unauthenticated
from services.lobby.app import (
    BettingStructure,
    Lobby,
    TableSettings,
    Variant,
    validate_settings,
)

HOLDEM_NL = TableSettings(
    variant=Variant.HOLDEM,
    betting_structure=BettingStructure.NO_LIMIT,
    max_seats=9,
    small_blind=1,
    big_blind=2,
)


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
    assert (table.settings.min_buy_in, table.settings.max_buy_in) == (40, 200)
    assert table.settings.action_clock_seconds == 30
    assert lobby.table(table.table_id) == table


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"variant": None}, "variant"),
        ({"betting_structure": None}, "betting_structure"),
        ({"max_seats": 1}, "max_seats"),
        ({"max_seats": 11}, "max_seats"),
        ({"small_blind": 3}, "small_blind"),
        ({"big_blind": 0}, "big_blind"),
        ({"min_buy_in": 100, "max_buy_in": 50}, "max_buy_in"),
        ({"rake_basis_points": 5000}, "rake_basis_points"),
        ({"action_clock_seconds": 1}, "action_clock_seconds"),
    ],
)
def test_invalid_table_settings_name_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        validate_settings(replace(HOLDEM_NL, **change))  # type: ignore[arg-type]
    assert field in caught.value.message


def test_fixed_limit_buy_in_is_at_least_ten_small_bets() -> None:
    fixed = replace(HOLDEM_NL, betting_structure=BettingStructure.FIXED_LIMIT, min_buy_in=19)
    with pytest.raises(InvalidArgument, match="min_buy_in must be at least 20"):
        validate_settings(fixed)


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
