"""Waiting lists through the gateway, with real processes and a lobby whose seat offers last
8 s: a full table puts joiners in line (no chips move), the seat that comes free is offered to
the first in line, then to the next, and taken; leaving the line."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.chat_steps import Person, code_of, person, refused
from tests.gateway.stack import CONFIG, GatewayStack, bearer, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

S = grpc.StatusCode
g = gateway_pb2
OFFER_SECONDS = 8


@pytest.fixture(scope="module")
def waitlist_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    stack = start_gateway_stack(
        tmp_path_factory.mktemp("waitlist"),
        nats_url,
        redis_url,
        {"HOLDEM_GATEWAY_RATE_BURST": "500"},
        {"HOLDEM_LOBBY_SEAT_OFFER_SECONDS": str(OFFER_SECONDS)},
    )
    yield stack
    stack.stop()


def until(check: Callable[[], bool], what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        time.sleep(0.1)


def test_a_full_tables_free_seat_goes_in_turn(waitlist_stack: GatewayStack) -> None:
    stack = waitlist_stack
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.max_seats = 2
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        ann, bob, cat, dan = (person(gw, n) for n in ("ann", "bob", "cat", "dan"))

        def join(who: Person) -> g.JoinTableResponse:
            request = g.JoinTableRequest(
                table_id=table_id, buy_in=100, idempotency_key=uuid.uuid4().hex
            )
            return gw.JoinTable(request, metadata=who.meta, timeout=60)

        def place(who: Person) -> g.GetWaitlistResponse:
            request = g.GetWaitlistRequest(table_id=table_id)
            return gw.GetWaitlist(request, metadata=who.meta, timeout=30)

        created = gw.CreateTable(g.CreateTableRequest(config=config), metadata=ann.meta, timeout=60)
        table_id = created.table.table_id
        join(ann)
        join(bob)

        def both_counted() -> bool:
            tables = gw.ListTables(g.ListTablesRequest(), timeout=30).tables
            return any(t.table_id == table_id and t.seated_players == 2 for t in tables)

        until(both_counted, "the lobby counts both seats")
        wallet = gw.GetWallet(g.GetWalletRequest(), metadata=cat.meta, timeout=30).wallet
        for who, position, waiting in ((cat, 1, 1), (dan, 2, 2), (cat, 1, 2)):
            error = refused(
                gw.JoinTable, g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta
            )
            assert (error.code(), code_of(error)) == (S.FAILED_PRECONDITION, "WAITLISTED")
            assert (place(who).position, place(who).waiting) == (position, waiting)
        after = gw.GetWallet(g.GetWalletRequest(), metadata=cat.meta, timeout=30).wallet
        assert after.balance == wallet.balance and after.reserved == 0
        assert not place(cat).HasField("offered_until")
        # ann leaves: in the hand, she folds at her turn; bob folds if it is his
        gw.LeaveTable(g.LeaveTableRequest(table_id=table_id), metadata=ann.meta, timeout=60)

        def ann_gone() -> bool:
            view = stack.view(table_id, bob.player_id)
            if view.HasField("legal_actions") and view.hand_id:
                gw.Act(
                    g.ActRequest(
                        table_id=table_id,
                        hand_id=view.hand_id,
                        action=common_pb2.ACTION_TYPE_FOLD
                        if view.legal_actions.can_fold
                        else common_pb2.ACTION_TYPE_CHECK,
                        idempotency_key=uuid.uuid4().hex,
                    ),
                    metadata=bob.meta,
                    timeout=30,
                )
            return ann.player_id not in {s.player_id for s in view.seats}

        until(ann_gone, "ann left the table")
        until(lambda: place(cat).HasField("offered_until"), "the seat offered to cat")
        error = refused(
            gw.JoinTable, g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=dan.meta
        )
        if place(cat).HasField("offered_until"):  # cat's turn was not over before dan asked
            assert (error.code(), code_of(error)) == (
                S.FAILED_PRECONDITION,
                "SEAT_OFFERED_TO_ANOTHER",
            )
        until(lambda: place(dan).HasField("offered_until"), "the seat offered to dan in turn")
        assert not place(cat).HasField("offered_until")
        assert join(dan).seat in (0, 1)
        assert place(dan).position == 0 and place(cat).waiting == 1
        gw.LeaveWaitlist(g.LeaveWaitlistRequest(table_id=table_id), metadata=cat.meta, timeout=30)
        assert place(cat).position == 0
        error = refused(
            gw.LeaveWaitlist, g.LeaveWaitlistRequest(table_id=table_id), metadata=cat.meta
        )
        assert (error.code(), code_of(error)) == (S.NOT_FOUND, "NOT_WAITING")
        error = refused(
            gw.GetWaitlist, g.GetWaitlistRequest(table_id="nosuchtable"), metadata=cat.meta
        )
        assert error.code() == S.NOT_FOUND


def test_a_player_changes_seat_between_hands(waitlist_stack: GatewayStack) -> None:
    stack = waitlist_stack
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.min_players_to_start = 3  # no hand with two: the seats stay between hands
    table_id = stack.open_table(config)
    for player in ("mover", "sitter"):
        stack.seat(table_id, player, 100)
    mover, outsider = stack.token("mover"), stack.token("outsider")
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        moved = gw.ChangeSeat(
            g.ChangeSeatRequest(table_id=table_id, seat=4), metadata=bearer(mover), timeout=30
        )
        view = stack.view(table_id)
        assert view.sequence >= moved.sequence
        seats = {s.player_id: (s.seat, s.stack) for s in view.seats if s.player_id}
        assert seats == {"mover": (4, 100), "sitter": (1, 100)}
        for token, seat, status, code in (
            (mover, 1, S.FAILED_PRECONDITION, "SEAT_TAKEN"),
            (mover, 4, S.FAILED_PRECONDITION, "SEAT_TAKEN"),
            (mover, 6, S.INVALID_ARGUMENT, "NO_SUCH_SEAT"),  # a six-seat table
            (outsider, 2, S.PERMISSION_DENIED, "NOT_YOUR_SEAT"),
        ):
            error = refused(
                gw.ChangeSeat,
                g.ChangeSeatRequest(table_id=table_id, seat=seat),
                metadata=bearer(token),
            )
            assert (error.code(), code_of(error)) == (status, code), seat
        assert stack.view(table_id).sequence == view.sequence  # nothing changed
        error = refused(
            gw.ChangeSeat,
            g.ChangeSeatRequest(table_id="nosuchtable", seat=2),
            metadata=bearer(mover),
        )
        assert error.code() == S.NOT_FOUND
