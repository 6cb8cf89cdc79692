"""Issue 9 in the lobby, at its use cases (in this process, on in-memory stores and a table
client that answers as told): a refused CreateTable, JoinTable or TopUp writes nothing (no
commit, no index entry, no table command, no chips granted); every table a client can create can
be joined; house AIs are bought in with at most the house limit; a player's open tables are
capped; refusals repeat at most 32 characters of what the caller sent."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import grpc
import pytest
from holdem.common.v1 import common_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from libs.errors import DomainError, InvalidArgument, NotFound, PreconditionFailed
from libs.lobby import catalogue, wallet, wallet_decide
from libs.table.config import MAX_CHIPS
from services.lobby.tables import TableRefusal
from services.lobby.wire import checked_config
from tests.lobby.inprocess import CONFIG, GRANT, in_process

T = TypeVar("T")
HARD, EASY = common_pb2.BOT_DIFFICULTY_HARD, common_pb2.BOT_DIFFICULTY_EASY


def run(call: Awaitable[T]) -> T:
    return asyncio.run(call)  # type: ignore[arg-type]


def config(**fields: int) -> common_pb2.TableConfig:
    wire = common_pb2.TableConfig()
    wire.CopyFrom(CONFIG)
    for name, value in fields.items():
        setattr(wire, name, value)
    return wire


async def refused(call: Awaitable[object]) -> DomainError:
    with pytest.raises(DomainError) as caught:
        await call
    return caught.value


# ---- finding 1: a table config is validated whole, derived values included ----


def test_a_big_blind_whose_default_buy_ins_no_one_could_pay_is_refused_naming_it() -> None:
    """The red team's CreateTable(big_blind=10**12): the default max buy-in (100 big blinds)
    was 10**14, above what JoinTable (and the table's seat command) accept."""
    for wire, field in (
        (config(big_blind=10**12, small_blind=1, min_buy_in=0, max_buy_in=0), "big_blind"),
        (config(big_blind=10**11, small_blind=1, min_buy_in=10**12, max_buy_in=0), "big_blind"),
        # the default min buy-in (20 big blinds) above what any request may name
        (config(big_blind=10**11, small_blind=1, min_buy_in=0, max_buy_in=10**12), "big_blind"),
        # a min buy-in given above the max buy-in given
        (config(big_blind=10, small_blind=5, min_buy_in=900, max_buy_in=800), "max_buy_in"),
    ):
        with pytest.raises(InvalidArgument) as caught:
            checked_config(wire)
        assert caught.value.code == "INVALID_TABLE_CONFIG"
        assert caught.value.message.startswith(f"config.{field}: "), caught.value.message
    joinable = checked_config(config(big_blind=10**10, small_blind=1, min_buy_in=0, max_buy_in=0))
    assert (joinable.min_buy_in, joinable.max_buy_in) == (2 * 10**11, MAX_CHIPS)


chips = st.integers(min_value=0, max_value=MAX_CHIPS)


@settings(max_examples=300, deadline=None)
@given(
    seats=st.integers(min_value=0, max_value=10),
    structure=st.sampled_from(
        [
            common_pb2.BETTING_STRUCTURE_NO_LIMIT,
            common_pb2.BETTING_STRUCTURE_POT_LIMIT,
            common_pb2.BETTING_STRUCTURE_FIXED_LIMIT,
        ]
    ),
    small_blind=st.one_of(st.integers(min_value=0, max_value=100), chips),
    big_blind=st.one_of(st.integers(min_value=0, max_value=1000), chips),
    min_buy_in=st.one_of(st.just(0), chips),
    max_buy_in=st.one_of(st.just(0), chips),
)
def test_every_config_the_lobby_accepts_can_be_joined(
    seats: int, structure: int, small_blind: int, big_blind: int, min_buy_in: int, max_buy_in: int
) -> None:
    """Any config within the proto's rules is either refused naming one of its fields, or
    its buy-in range (given or derived) is one a JoinTable can name."""
    wire = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=structure,  # type: ignore[arg-type]
        max_seats=seats,
        small_blind=small_blind,
        big_blind=big_blind,
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
    )
    try:
        accepted = checked_config(wire)
    except InvalidArgument as refusal:
        assert refusal.message.startswith("config."), refusal.message
        field = refusal.message.split(":")[0].removeprefix("config.")
        assert field in common_pb2.TableConfig.DESCRIPTOR.fields_by_name, field
        return
    assert 1 <= accepted.min_buy_in <= accepted.max_buy_in <= MAX_CHIPS


@pytest.mark.parametrize("bots", [[], [HARD]], ids=["no AIs", "an AI"])
def test_a_refused_create_table_lists_nothing_and_grants_nothing(bots: list[int]) -> None:
    async def scenario() -> None:
        lobby = in_process()
        owner = await lobby.register("owner")
        before, grants = lobby.writes(), await lobby.grants()
        wire = config(big_blind=10**12, small_blind=1, min_buy_in=0, max_buy_in=0)
        error = await refused(lobby.create_table("big", wire, owner.player_id, bots))
        assert isinstance(error, InvalidArgument) and "config.big_blind" in error.message
        assert lobby.writes() == before and await lobby.grants() == grants
        assert lobby.lobby.listings == {} and lobby.tables.commands == []

    run(scenario())


def test_an_ai_seat_refused_after_its_grant_gives_the_chips_back_to_the_ai() -> None:
    """The house AI is granted what it is short of, then the table refuses the seat (a person
    took the last seat first, or the lobby crashed and the table closed meanwhile): the
    compensation refunds the reservation to the AI's wallet, CreateTable still answers with
    the table, and the AI's next seat is paid from those chips: nothing is granted twice."""

    async def scenario() -> None:
        lobby = in_process()
        owner = await lobby.register("owner")
        wire = config(min_buy_in=100, max_buy_in=2 * GRANT)
        lobby.tables.refuse_seats = TableRefusal(
            grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN", "every seat is taken"
        )
        listing = await lobby.create_table("refused ai", wire, owner.player_id, [EASY])
        seated = await lobby.seating.seat_ais(listing.table_id, ["easy"], 2 * GRANT)
        assert seated == [None]
        ai = await lobby.lobby.player("ai-easy-1")
        assert (ai.balance, ai.reserved, ai.on_tables) == (2 * GRANT, 0, 0)
        assert ai.granted == ai.balance  # every chip granted is in its wallet
        assert [e.kind for e in ai.ledger] == ["GRANT", "GRANT", "BUY_IN", "REFUND"]
        grants = await lobby.grants()

        lobby.tables.refuse_seats = None
        again = await lobby.create_table("ai again", wire, owner.player_id, [EASY])
        [outcome] = await lobby.seating.seat_ais(again.table_id, ["easy"], 2 * GRANT)
        assert outcome is not None and outcome.stack == 2 * GRANT
        assert await lobby.grants() == grants
        ai = await lobby.lobby.player("ai-easy-1")
        assert (ai.balance, ai.on_tables) == (0, 2 * GRANT) and ai.granted == 2 * GRANT

    run(scenario())


# ---- finding 2: a JoinTable or TopUp the lobby can tell is wrong writes nothing ----


def test_a_join_or_top_up_the_lobby_can_refuse_writes_nothing() -> None:
    """refused.py: seat 9 at a 6-seat table, or a buy-in out of the table's range, answered
    INVALID_ARGUMENT after a BUY_IN and a REFUND were written to the ledger."""

    async def scenario() -> None:
        lobby = in_process()
        owner, player = await lobby.register("owner"), await lobby.register("player")
        table = (await lobby.create_table("t", config(), owner.player_id)).table_id
        rich = (
            await lobby.create_table("rich", config(max_buy_in=5 * GRANT), owner.player_id)
        ).table_id
        before, commands = lobby.writes(), len(lobby.tables.commands)
        join = lobby.seating.join
        for call, code in (
            (join(player.player_id, table, 9, 100, False, "seat-9"), "NO_SUCH_SEAT"),
            (join(player.player_id, table, 6, 100, False, "seat-6"), "NO_SUCH_SEAT"),
            (join(player.player_id, table, None, 5000, False, "above"), "BUY_IN_OUT_OF_RANGE"),
            (join(player.player_id, table, None, 39, False, "below"), "BUY_IN_OUT_OF_RANGE"),
            (join(player.player_id, rich, None, 2 * GRANT, False, "rich"), "NOT_ENOUGH_CHIPS"),
            (lobby.seating.top_up(player.player_id, table, 1001, "up"), "BUY_IN_OUT_OF_RANGE"),
        ):
            error = await refused(call)
            assert error.code == code, error
        assert lobby.writes() == before and len(lobby.tables.commands) == commands
        assert [e.kind for e in (await lobby.lobby.player(player.player_id)).ledger] == ["GRANT"]

        # a request the lobby cannot judge still goes to the table, and is compensated
        seated = await join(player.player_id, table, 2, 100, False, "in")
        assert seated.seat == 2
        again = await join(player.player_id, table, 9, 100, False, "in")  # a retry: same answer
        assert again == seated

    run(scenario())


# ---- finding 4: what one player can make the lobby hold ----


def test_a_player_has_at_most_the_open_tables_the_lobby_allows() -> None:
    """tablespam.py: one guest created 600 tables in 15 s, each held open by the table service."""

    async def scenario() -> None:
        lobby = in_process(open_tables_per_player=2)
        owner, other = await lobby.register("owner"), await lobby.register("other")
        first = await lobby.create_table("1", config(), owner.player_id)
        await lobby.create_table("2", config(), owner.player_id)
        before = lobby.writes()
        error = await refused(lobby.create_table("3", config(), owner.player_id))
        assert isinstance(error, PreconditionFailed) and error.code == "TOO_MANY_OPEN_TABLES"
        assert lobby.writes() == before and len(lobby.lobby.listings) == 2
        await lobby.create_table("theirs", config(), other.player_id)  # per player
        await lobby.lobby.record_activity(first.table_id, 5, 0, 0, "closed by its owner")
        await lobby.create_table("3", config(), owner.player_id)  # one closed: room again

        # several at once from one player: still at most the cap
        lobby = in_process(open_tables_per_player=2)
        owner = await lobby.register("owner")
        made = await asyncio.gather(
            *(lobby.create_table(str(n), config(), owner.player_id) for n in range(5)),
            return_exceptions=True,
        )
        assert sum(not isinstance(m, BaseException) for m in made) == 2

    run(scenario())


def test_a_house_ai_buys_in_with_at_most_the_house_limit() -> None:
    """Tables with AIs let a player choose a max buy-in up to 10**12, and the house granted each
    AI that much: chips to farm from EASY AIs. An AI now brings at most the house limit."""

    async def scenario() -> None:
        lobby = in_process(house_ai_max_buy_in=500)
        owner = await lobby.register("owner")
        assert lobby.lobby.ai_buy_in(checked_config(config(max_buy_in=10**12))) == 500
        assert lobby.lobby.ai_buy_in(checked_config(config(max_buy_in=300))) == 300
        before = lobby.writes()
        error = await refused(
            lobby.create_table("ai", config(min_buy_in=600), owner.player_id, [EASY])
        )
        assert isinstance(error, InvalidArgument) and error.code == "INVALID_BOTS", error
        assert lobby.writes() == before and lobby.lobby.listings == {}
        await lobby.create_table("people", config(min_buy_in=600), owner.player_id)

    run(scenario())


# ---- refusals repeat at most 32 characters of what the caller sent ----


def test_lobby_refusals_repeat_at_most_32_characters_of_the_callers_input() -> None:
    """catalogue.require and the wallet repeated 64 characters of an unknown id."""
    sent = "Z" * 64

    async def scenario() -> list[str]:
        lobby = in_process()
        messages = []
        for call in (lobby.lobby.player(sent), lobby.lobby.table(sent)):
            error = await refused(call)
            assert isinstance(error, NotFound)
            messages.append(error.message)
        return messages

    messages = run(scenario())
    with pytest.raises(NotFound) as caught:
        catalogue.require(catalogue.initial(sent))
    messages.append(caught.value.message)
    with pytest.raises(NotFound) as caught:
        wallet_decide.reserve(wallet.initial(sent), "saga", wallet.BUY_IN, "t", 1, None, False, 0.0)
    messages.append(caught.value.message)
    for message in messages:
        assert message.count("Z") <= 32, message
