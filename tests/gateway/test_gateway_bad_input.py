"""Bad input over the wire on every gateway RPC, with real processes: hostile and 1 MB strings,
negative and huge amounts, unknown ids and enum values, missing, malformed, forged, expired and
other players' tokens. Each gets its status (never UNKNOWN or INTERNAL), nothing changes at the
table or in the wallets, and every service stays healthy; past the rate limit, RESOURCE_EXHAUSTED
with a retry hint."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import KEYS, GatewayStack, bearer, gateway_stack
from tests.services.conftest import start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

S = grpc.StatusCode
MB = "x" * (1 << 20)
#: Refused values by the kind of field (ids, keys, display names).
HOSTILE = {
    "table_id": ("", "a.b", "holdem.>", "*", "../x", "a b", "\x00", "é", "x" * 65, MB),
    "hand_id": ("a.b", "holdem.>", "*", "../x", "a b", "\x00", "é", "x" * 65, MB),
    "idempotency_key": ("a b", "\x00", "é", "x" * 129, MB),
    "page_token": ("a b", "\x00", "é", "x" * 129, MB),
    "display_name": ("\x00", "\n", "x" * 33, MB),
}
OPEN = {"Register", "Login", "GuestLogin", "ListTables"}
#: Calls whose empty table_id is not a missing table: the lobby's chat, or every table's statistics.
LOBBY_OR_TABLE = {"SendChat", "WatchChat", "ModerateChat", "GetPlayerStats"}
STREAMS = {"WatchTable", "WatchChat", "WatchTournament", "WatchWaitlist"}


def requests(table_id: str) -> dict[str, Message]:
    """A well-formed request for every RPC, about ``table_id``."""
    g = gateway_pb2
    return {
        "Register": g.RegisterRequest(username="someone_new", password="correct horse battery"),
        "Login": g.LoginRequest(username="nobody_here", password="correct horse battery"),
        "GuestLogin": g.GuestLoginRequest(display_name="Guest"),
        "Logout": g.LogoutRequest(),
        "GetWallet": g.GetWalletRequest(),
        "ListLedger": g.ListLedgerRequest(),
        "ListTables": g.ListTablesRequest(),
        "CreateTable": g.CreateTableRequest(config=_config()),
        "JoinTable": g.JoinTableRequest(table_id=table_id, buy_in=100, idempotency_key="j"),
        "LeaveTable": g.LeaveTableRequest(table_id=table_id),
        "TopUp": g.TopUpRequest(table_id=table_id, amount=10),
        "SitOut": g.SitOutRequest(table_id=table_id),
        "SitIn": g.SitInRequest(table_id=table_id),
        "Act": g.ActRequest(table_id=table_id, action=1, idempotency_key="k"),  # type: ignore[arg-type]
        "Show": g.ShowRequest(table_id=table_id, idempotency_key="k"),
        "Muck": g.MuckRequest(table_id=table_id, idempotency_key="k"),
        "UpdateSeatSettings": g.UpdateSeatSettingsRequest(table_id=table_id, auto_muck=True),
        "WatchTable": g.WatchTableRequest(table_id=table_id),
        "GetHandHistory": g.GetHandHistoryRequest(table_id=table_id),
        "GetDecks": g.GetDecksRequest(table_id=table_id),
        "CloseTable": g.CloseTableRequest(table_id=table_id),
        "SendChat": g.SendChatRequest(table_id=table_id, text="hi"),
        "WatchChat": g.WatchChatRequest(table_id=table_id),
        "MuteChatPlayer": g.MuteChatPlayerRequest(player_id="p2", muted=True),
        "ModerateChat": g.ModerateChatRequest(
            table_id=table_id, player_id="p2", sanction=g.CHAT_SANCTION_MUTE
        ),
        "DecideSeat": g.DecideSeatRequest(table_id=table_id, seat_player_id="p2", approved=True),
        "ListSeatRequests": g.ListSeatRequestsRequest(table_id=table_id),
        "GetWaitlist": g.GetWaitlistRequest(table_id=table_id),
        "LeaveWaitlist": g.LeaveWaitlistRequest(table_id=table_id),
        "WatchWaitlist": g.WatchWaitlistRequest(table_id=table_id),
        "ChangeSeat": g.ChangeSeatRequest(table_id=table_id, seat=3),
        "SetRunItTimes": g.RunItSetTimesRequest(table_id=table_id, times=2),
        "AnswerRunIt": g.RunItAnswerRequest(table_id=table_id, times=2),
        "RabbitHunt": g.RabbitHuntRequest(table_id=table_id),
        "SetStraddle": g.StraddleSetRequest(table_id=table_id, straddle=True),
        "VoteBombPot": g.BombPotVoteRequest(table_id=table_id, agree=True),
        "SetSeatOptions": g.SeatOptionsRequest(table_id=table_id, auto_post_blinds=False),
        "AnswerBlind": g.BlindAnswerRequest(table_id=table_id, post=True),
        "ListTournaments": g.ListTournamentsRequest(),
        "GetTournament": g.GetTournamentRequest(tournament_id=table_id),
        "RegisterTournament": g.RegisterTournamentRequest(
            tournament_id=table_id, idempotency_key="r"
        ),
        "UnregisterTournament": g.UnregisterTournamentRequest(
            tournament_id=table_id, idempotency_key="u"
        ),
        "RebuyTournament": g.TournamentPurchaseRequest(tournament_id=table_id, idempotency_key="b"),
        "AddOnTournament": g.TournamentPurchaseRequest(tournament_id=table_id, idempotency_key="a"),
        "WatchTournament": g.WatchTournamentRequest(tournament_id=table_id),
        "GetPlayerStats": g.GetPlayerStatsRequest(player_id="p2"),
        "SetPlayerNote": g.SetPlayerNoteRequest(player_id="p2", text="hi", idempotency_key="n"),
        "DeletePlayerNote": g.DeletePlayerNoteRequest(player_id="p2", idempotency_key="d"),
        "ListPlayerNotes": g.ListPlayerNotesRequest(),
    }


def _config() -> Any:
    from tests.gateway.stack import CONFIG

    return CONFIG


def call(stub: Any, method: str, request: Message, token: str | None = None) -> S:
    metadata = bearer(token) if token else ()
    try:
        if method in STREAMS:
            stream = getattr(stub, method)(request, metadata=metadata, timeout=10)
            next(iter(stream))
            stream.cancel()
        else:
            getattr(stub, method)(request, metadata=metadata, timeout=30)
    except grpc.RpcError as exc:
        code = exc.code()
        assert code not in (S.UNKNOWN, S.INTERNAL), (method, exc.details())
        assert len(exc.details() or "") < 400, (method, "the message echoes the input")
        return code
    return S.OK


def test_every_rpc_covers_the_service() -> None:
    methods = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"].methods_by_name
    assert set(requests("t")) == set(methods)


def test_bad_input_on_every_rpc_gets_its_status_and_changes_nothing(
    gateway_stack: GatewayStack,
) -> None:
    stack = gateway_stack
    table_id = stack.open_table()
    for player in ("p1", "p2"):
        stack.seat(table_id, player, 100)
    before = stack.view(table_id)
    good = stack.token("p1")
    outsider = stack.token("outsider")  # a real token of a player with no seat here
    expired = stack.token("p1", ttl=60, now=time.time() - 3600)
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        for method, request in requests(table_id).items():
            if method in OPEN:
                continue
            for token in (None, "", "garbage", stack.forged("p1"), expired, "a.b.c", MB[:5000]):
                assert call(gw, method, request, token) == S.UNAUTHENTICATED, (method, token)
            metadata_bad = (("authorization", "Basic abc"),)
            try:
                getattr(gw, method)(request, metadata=metadata_bad, timeout=10)
            except grpc.RpcError as exc:
                assert exc.code() == S.UNAUTHENTICATED
        # hostile ids and keys
        for method, request in requests(table_id).items():
            for name, values in HOSTILE.items():
                if name not in request.DESCRIPTOR.fields_by_name:
                    continue
                for value in values:
                    if method in LOBBY_OR_TABLE and value == "":
                        continue
                    bad = type(request)()
                    bad.CopyFrom(request)
                    setattr(bad, name, value)
                    assert call(gw, method, bad, good) == S.INVALID_ARGUMENT, (method, name)
        # amounts: negative and huge
        for method, name in (("JoinTable", "buy_in"), ("Act", "amount"), ("TopUp", "amount")):
            for amount in (-1, -(2**63), 10**12 + 1, 2**63 - 1):
                bad = requests(table_id)[method]
                setattr(bad, name, amount)
                assert call(gw, method, bad, good) == S.INVALID_ARGUMENT, (method, amount)
        # unknown enum values
        for method, name in (
            ("Act", "action"),
            ("ListTables", "variant"),
            ("ListTables", "betting_structure"),
        ):
            bad = requests(table_id)[method]
            setattr(bad, name, 99)
            assert call(gw, method, bad, good) == S.INVALID_ARGUMENT, (method, name)
        # unknown tables
        for method in (
            "Act",
            "SitOut",
            "SitIn",
            "Show",
            "Muck",
            "UpdateSeatSettings",
            "WatchTable",
            "GetHandHistory",
            "JoinTable",
            "CloseTable",
            "SetRunItTimes",
            "AnswerRunIt",
            "RabbitHunt",
            "SetStraddle",
            "VoteBombPot",
            "SetSeatOptions",
            "AnswerBlind",
        ):
            code = call(gw, method, requests("nosuchtable")[method], good)
            assert code == S.NOT_FOUND, (method, code)
        # another player's seat: a token of someone with no seat at this table
        for method in (
            "Act",
            "SitOut",
            "SitIn",
            "Show",
            "Muck",
            "UpdateSeatSettings",
            "SetRunItTimes",
            "AnswerRunIt",
            "RabbitHunt",
            "SetStraddle",
            "VoteBombPot",
            "SetSeatOptions",
            "AnswerBlind",
        ):
            code = call(gw, method, requests(table_id)[method], outsider)
            assert code == S.PERMISSION_DENIED, (method, code)
        # a spectator may watch
        stream = gw.WatchTable(
            gateway_pb2.WatchTableRequest(table_id=table_id), metadata=bearer(outsider)
        )
        first = next(iter(stream))
        stream.cancel()
        assert first.HasField("snapshot") and not first.snapshot.HasField("viewer_seat")
        # a from_sequence the table never had (ahead of it, or not one of its commits): a snapshot
        for bogus in (2**63, first.sequence + 1_000_000):
            stream = gw.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=bogus),
                metadata=bearer(outsider),
            )
            resumed = next(iter(stream))
            stream.cancel()
            assert resumed.HasField("snapshot"), bogus

    after = stack.view(table_id)
    assert after.sequence == before.sequence  # nothing changed at the table
    for process in (stack.gateway, stack.lobby, stack.table):
        with grpc.insecure_channel(process.address) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(  # type: ignore[attr-defined]
                health_pb2.HealthCheckRequest(), timeout=10
            )
            assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_past_the_rate_limit_calls_are_refused_with_a_retry_hint(
    gateway_stack: GatewayStack, tmp_path: Path, nats_url: str, redis_url: str
) -> None:
    """A gateway of its own with a bucket of 5 calls refilled at one a second: 40 calls at once
    overflow it however slowly a loaded machine serves them (with the shared gateway's 200 and
    50 a second, 400 calls had to land within about 4 s, and on a busy machine none was
    refused)."""
    strict = start_service(
        "gateway",
        tmp_path,
        {
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TOKEN_KEYS": KEYS,
            "HOLDEM_LOBBY_ADDR": gateway_stack.lobby.address,
            "HOLDEM_TABLE_ADDR": gateway_stack.table.address,
            "HOLDEM_GATEWAY_RATE_PER_SECOND": "1",
            "HOLDEM_GATEWAY_RATE_BURST": "5",
        },
    )
    token = gateway_stack.token("eager")
    try:
        with grpc.insecure_channel(strict.address) as channel:
            gw = gateway_stack.gateway_stub(channel)
            futures = [
                gw.SitOut.future(
                    gateway_pb2.SitOutRequest(table_id="nosuchtable"), metadata=bearer(token)
                )
                for _ in range(40)
            ]
            refused = []
            for future in futures:
                try:
                    future.result(timeout=60)
                except grpc.RpcError as exc:
                    if exc.code() == S.RESOURCE_EXHAUSTED:
                        refused.append(exc)
                    else:
                        assert exc.code() == S.NOT_FOUND
            assert refused
            trailing: Any = refused[0].trailing_metadata() or ()
            hint = {key: value for key, value in trailing}
            assert int(hint["grpc-retry-pushback-ms"]) > 0
            assert hint["x-error-code"] == "RATE_LIMITED"
            # another player is not limited by this one
            other = gateway_stack.token("calm")
            code: Callable[[], Any] = lambda: gw.SitOut(  # noqa: E731
                gateway_pb2.SitOutRequest(table_id="nosuchtable"),
                metadata=bearer(other),
                timeout=10,
            )
            with pytest.raises(grpc.RpcError) as err:
                code()
            assert err.value.code() == S.NOT_FOUND
    finally:
        strict.kill()


def test_no_message_repeats_more_than_32_characters_of_what_was_sent(
    gateway_stack: GatewayStack,
) -> None:
    """The longest ids the edge lets through (64 characters) about tables that do not exist: the
    gateway's messages, its own and those it relays from the lobby and the table, repeat at
    most a 32-character prefix of them."""
    long_id = "T" + "x" * 62 + "Z"
    assert len(long_id) == 64
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        guest = gw.GuestLogin(gateway_pb2.GuestLoginRequest(display_name="Echo"), timeout=10)
        asked: dict[str, Any] = requests(long_id)
        for method, request in asked.items():
            if "table_id" not in request.DESCRIPTOR.fields_by_name or method == "CreateTable":
                continue
            if "hand_id" in request.DESCRIPTOR.fields_by_name:
                request.hand_id = long_id
            metadata = bearer(guest.token)
            try:
                if method in STREAMS:
                    next(iter(getattr(gw, method)(request, metadata=metadata, timeout=10)))
                else:
                    getattr(gw, method)(request, metadata=metadata, timeout=30)
            except grpc.RpcError as exc:
                details = exc.details() or ""
                assert long_id[:33] not in details, (method, details)
            else:
                raise AssertionError(f"{method} about a table that does not exist answered OK")


def test_a_page_token_is_digits_only() -> None:
    """A page token is a hand number the gateway wrote: Python's int() would also take
    "1_000", " 7" or other scripts' digits, which no page ever ended with."""
    from libs.errors import InvalidArgument
    from services.gateway.histories import page_token_number

    assert page_token_number("") == 0 and page_token_number("1000") == 1000
    assert page_token_number(str(2**64)) == 0  # beyond every hand number: no bound
    for token in ("1_000", " 7", "7 ", "-1", "+1", "\u0661\u0662", "1e3", "0x10"):
        with pytest.raises(InvalidArgument):
            page_token_number(token)
