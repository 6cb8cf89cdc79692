"""Private tables through the gateway, with real processes: not listed, entered with the
password or the invite code only (a refusal moves no chips), seats approved by the creator,
and the creator alone sees and decides the requests."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.chat_steps import Person, code_of, person, refused
from tests.gateway.stack import CONFIG, GatewayStack, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

S = grpc.StatusCode
g = gateway_pb2


def balance(gw: object, who: Person) -> int:
    wallet = gw.GetWallet(g.GetWalletRequest(), metadata=who.meta, timeout=30)  # type: ignore[attr-defined]
    return int(wallet.wallet.balance)


def join(
    gw: object, who: Person, table_id: str, password: str = "", invite_code: str = ""
) -> g.JoinTableResponse:
    request = g.JoinTableRequest(
        table_id=table_id, buy_in=100, password=password, invite_code=invite_code
    )
    return gw.JoinTable(request, metadata=who.meta, timeout=60)  # type: ignore[attr-defined,no-any-return]


def test_a_private_table_takes_its_password_or_invite_and_is_never_listed(
    gateway_stack: GatewayStack,
) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        host, ann, bob, eve = (person(gw, n) for n in ("host", "ann", "bob", "eve"))
        created = gw.CreateTable(
            g.CreateTableRequest(name="Home game", config=CONFIG, password="open sesame"),
            metadata=host.meta,
            timeout=60,
        )
        table_id = created.table.table_id
        assert created.table.private and len(created.invite_code) >= 16
        listed = gw.ListTables(g.ListTablesRequest(), timeout=30).tables
        assert table_id not in {t.table_id for t in listed}
        before = balance(gw, eve)
        for password, invite in (("", ""), ("open sesame!", ""), ("", "not-the-code")):
            error = refused(
                gw.JoinTable,
                g.JoinTableRequest(
                    table_id=table_id, buy_in=100, password=password, invite_code=invite
                ),
                metadata=eve.meta,
            )
            assert (error.code(), code_of(error)) == (S.PERMISSION_DENIED, "WRONG_TABLE_PASSWORD")
        assert balance(gw, eve) == before  # nothing reserved, nothing moved
        join(gw, ann, table_id, password="open sesame")
        join(gw, bob, table_id, invite_code=created.invite_code)
        seated = {s.player_id for s in gateway_stack.view(table_id).seats if s.player_id}
        assert seated == {ann.player_id, bob.player_id}


def test_the_creator_approves_each_seat(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        host, ann, bob = (person(gw, n) for n in ("boss", "asker", "other"))
        created = gw.CreateTable(
            g.CreateTableRequest(config=CONFIG, approve_seats=True),
            metadata=host.meta,
            timeout=60,
        )
        table_id, invite = created.table.table_id, created.invite_code
        assert created.table.private
        before = balance(gw, ann)
        for _ in range(2):  # asking twice is one request
            error = refused(
                gw.JoinTable,
                g.JoinTableRequest(table_id=table_id, buy_in=100, invite_code=invite),
                metadata=ann.meta,
            )
            assert (error.code(), code_of(error)) == (S.FAILED_PRECONDITION, "AWAITING_APPROVAL")
        assert balance(gw, ann) == before
        asked = gw.ListSeatRequests(
            g.ListSeatRequestsRequest(table_id=table_id), metadata=host.meta, timeout=30
        )
        assert list(asked.waiting_player_ids) == [ann.player_id]
        for call, request in (
            (gw.ListSeatRequests, g.ListSeatRequestsRequest(table_id=table_id)),
            (gw.DecideSeat, g.DecideSeatRequest(table_id=table_id, seat_player_id=ann.player_id)),
        ):
            error = refused(call, request, metadata=bob.meta)
            assert (error.code(), code_of(error)) == (S.PERMISSION_DENIED, "NOT_TABLE_OWNER")
        error = refused(
            gw.DecideSeat,
            g.DecideSeatRequest(table_id=table_id, seat_player_id=bob.player_id, approved=False),
            metadata=host.meta,
        )
        assert (error.code(), code_of(error)) == (S.NOT_FOUND, "NO_SEAT_REQUEST")
        error = refused(
            gw.DecideSeat,
            g.DecideSeatRequest(table_id="nosuchtable", seat_player_id=bob.player_id),
            metadata=host.meta,
        )
        assert error.code() == S.NOT_FOUND
        decided = gw.DecideSeat(
            g.DecideSeatRequest(table_id=table_id, seat_player_id=ann.player_id, approved=True),
            metadata=host.meta,
            timeout=30,
        )
        assert list(decided.waiting_player_ids) == []
        join(gw, ann, table_id, invite_code=invite)
        join(gw, host, table_id)  # the creator needs neither password nor invite
        seated = {s.player_id for s in gateway_stack.view(table_id).seats if s.player_id}
        assert seated == {ann.player_id, host.player_id}


def test_the_client_library_plays_a_private_table_and_its_chat(
    gateway_stack: GatewayStack,
) -> None:
    """libs/client's calls for private tables and chat, against the real gateway."""
    from libs.client.client import GatewayClient
    from libs.client.errors import GatewayError

    async def scenario() -> None:
        address = gateway_stack.gateway.address
        async with GatewayClient(address) as host, GatewayClient(address) as guest:
            await host.guest_login("Host")
            await guest.guest_login("Guest")
            created = await host.create_private_table(CONFIG, approve_seats=True)
            table_id = created.table.table_id
            with pytest.raises(GatewayError) as caught:
                await guest.join_private_table(table_id, 100, invite_code=created.invite_code)
            assert caught.value.code == "AWAITING_APPROVAL"
            assert await host.seat_requests(table_id) == [guest.player_id]
            assert await host.decide_seat(table_id, guest.player_id, True) == []
            joined = await guest.join_private_table(table_id, 100, invite_code=created.invite_code)
            assert joined.stack == 100
            said = await host.send_chat("welcome", table_id=table_id)
            assert said.spectator  # the host is not seated
            messages = guest.watch_chat(table_id=table_id)
            first = await asyncio.wait_for(anext(messages), 20)
            await messages.aclose()
            assert (first.sequence, first.text, first.sender_id) == (
                said.sequence,
                "welcome",
                host.player_id,
            )

    asyncio.run(scenario())
