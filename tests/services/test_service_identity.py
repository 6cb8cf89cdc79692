"""Issue 9, least privilege inside: no card or seed can be had before its time from any service
without the right identity (services as real processes, callers with and without signed service
tokens: libs.platform.identity, policies in libs.platform.callers).

- the dealer starts decks, deals and reveals seeds only for the table service;
- the table serves per-viewer views (hole cards) only to the gateway, hand histories (read from
  its private stream) only to the gateway and tools, takes chips (open, seat, top up, leave,
  close) only from the lobby and tools, and actions only from the gateway and tools;
- the lobby answers only the gateway and tools; the ai decides only for the table and tools;
- a missing, forged, tampered or expired token is no identity at all, and neither is a token
  that one service signed with its own key but that claims another identity;
- the lobby believes a forwarded client address only from the authenticated gateway.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.ai.v1 import ai_pb2, ai_pb2_grpc
from holdem.common.v1 import common_pb2
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack.identity import channel_as
from libs.devstack.services import DEV_SERVICE_KEYS
from libs.platform.callers import CALLER_NOT_ALLOWED, CLIENT_ADDRESS_HEADER
from libs.platform.errors import ERROR_CODE_HEADER
from libs.platform.identity import IDENTITIES, SERVICE_TOKEN_HEADER, ServiceKey, sign
from tests.services.conftest import ROOT, ServiceProcess, clean_env, start_service, stop_all

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

PER_PEER = 3  # the lobby's failed logins per client before RESOURCE_EXHAUSTED


def bad_tokens(service: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Ways to claim ``service`` without proving it: metadata for a plain channel."""
    expiry = int(time.time()) + 60
    own = DEV_SERVICE_KEYS.key(service)
    good = sign(own, service, expiry)
    tokens = {
        "forged": sign(ServiceKey.generate(own.kid), service, expiry),  # right kid, wrong key
        "unknown kid": sign(ServiceKey("nosuchkid", own.private), service, expiry),
        "expired": sign(own, service, int(time.time()) - 1),
        "tampered": good.replace(f".{expiry}.", f".{expiry + 1}."),
        "garbage": "v2." + "x" * 300,
    }
    for other in IDENTITIES:  # a real key of another identity, claiming this one
        if other != service:
            tokens[f"signed by {other}"] = sign(DEV_SERVICE_KEYS.key(other), service, expiry)
    return {
        "no token": (),
        **{how: ((SERVICE_TOKEN_HEADER, token),) for how, token in tokens.items()},
    }


def denied(call: Callable[[], object]) -> str:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED, error
    metadata: Any = error.trailing_metadata()
    trailing = {key: value for key, value in metadata or ()}
    assert trailing.get(ERROR_CODE_HEADER) == CALLER_NOT_ALLOWED
    details = str(error.details())
    assert "only for other holdem services" in details and len(details) < 200
    return details


@pytest.fixture(scope="module")
def services(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[dict[str, ServiceProcess]]:
    log_dir = tmp_path_factory.mktemp("identity")
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url}
    running: dict[str, ServiceProcess] = {}
    try:
        running["dealer"] = start_service("dealer", log_dir, infra)
        running["ai"] = start_service("ai", log_dir, infra)
        running["table"] = start_service(
            "table",
            log_dir,
            {
                **infra,
                "HOLDEM_DEALER_ADDR": running["dealer"].address,
                "HOLDEM_TABLE_EVALUATOR": "local",
                "HOLDEM_TABLE_AI": "local",
            },
        )
        running["lobby"] = start_service(
            "lobby",
            log_dir,
            {
                **infra,
                "HOLDEM_TABLE_ADDR": running["table"].address,
                "HOLDEM_LOBBY_LOGIN_FAILURES_PER_PEER": str(PER_PEER),
                "HOLDEM_LOBBY_LOGIN_FAILURES_PER_USER": "1000",
            },
        )
        yield running
    finally:
        stop_all(list(running.values()))


def test_only_the_table_gets_decks_cards_and_seeds_from_the_dealer(
    services: dict[str, ServiceProcess],
) -> None:
    address = services["dealer"].address
    table_id = f"id-{uuid.uuid4().hex[:8]}"
    start = dealer_pb2.StartDeckRequest(table_id=table_id, hand_id="1", idempotency_key="k")
    with channel_as(address, "table") as channel:
        deck = dealer_pb2_grpc.DealerServiceStub(channel).StartDeck(start, timeout=10)
    deal = dealer_pb2.DealCardsRequest(deck_id=deck.deck_id, indexes=[0, 1])
    reveal = dealer_pb2.RevealSeedRequest(deck_id=deck.deck_id)
    others = [name for name in IDENTITIES if name != "table"]
    for name in others:  # every other service, and tools, with a valid token of its own
        with channel_as(address, name) as channel:
            stub = dealer_pb2_grpc.DealerServiceStub(channel)
            denied(lambda: stub.DealCards(deal, timeout=10))  # noqa: B023
            denied(lambda: stub.RevealSeed(reveal, timeout=10))  # noqa: B023
            denied(lambda: stub.StartDeck(start, timeout=10))  # noqa: B023
    with grpc.insecure_channel(address) as channel:  # claiming "table" without proving it
        stub = dealer_pb2_grpc.DealerServiceStub(channel)
        for how, metadata in bad_tokens("table").items():
            assert "no valid service token" in denied(
                lambda: stub.RevealSeed(reveal, timeout=10, metadata=metadata)  # noqa: B023
            ), how
            denied(lambda: stub.DealCards(deal, timeout=10, metadata=metadata))  # noqa: B023
    # the table itself still gets its cards: nothing above consumed or revealed the deck
    with channel_as(address, "table") as channel:
        dealt = dealer_pb2_grpc.DealerServiceStub(channel).DealCards(deal, timeout=10)
    assert len(dealt.cards) == 2


def test_only_the_gateway_gets_a_players_view_from_the_table(
    services: dict[str, ServiceProcess],
) -> None:
    address = services["table"].address
    view = table_pb2.GetPlayerViewRequest(table_id="nosuchtable", player_id="p1")
    for name in (n for n in IDENTITIES if n != "gateway"):
        with channel_as(address, name) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            denied(lambda: stub.GetPlayerView(view, timeout=10))  # noqa: B023
    with grpc.insecure_channel(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        for metadata in bad_tokens("gateway").values():
            denied(lambda: stub.GetPlayerView(view, timeout=10, metadata=metadata))  # noqa: B023
        # public reads stay open to anyone (they show no hidden card)
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetTableState(table_pb2.GetTableStateRequest(table_id="nosuchtable"), timeout=10)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    with channel_as(address, "gateway") as channel, pytest.raises(grpc.RpcError) as caught:
        table_pb2_grpc.TableServiceStub(channel).GetPlayerView(view, timeout=10)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND  # past the policy: no such table


def test_chips_reach_a_table_only_from_the_lobby_and_players_act_only_through_the_gateway(
    services: dict[str, ServiceProcess],
) -> None:
    """Anyone who reached the table's port could seat a player with a buy-in from nowhere, or
    act for any player: commands are refused to every caller without the right identity
    (libs.platform.callers.TABLE_COMMAND_CALLERS), and nothing is written for them."""
    address = services["table"].address
    table_id = f"who{uuid.uuid4().hex[:10]}"

    def command(key: str, **fields: Any) -> table_pb2.SubmitCommandRequest:
        return table_pb2.SubmitCommandRequest(table_id=table_id, idempotency_key=key, **fields)

    config = table_pb2.OpenTable(
        config=common_pb2.TableConfig(
            variant=common_pb2.VARIANT_HOLDEM,
            betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
            max_seats=6,
            small_blind=1,
            big_blind=2,
        )
    )
    seat = table_pb2.SeatPlayer(player_id="rich", buy_in=200)
    chips = {
        "open_table": command("o", open_table=config),
        "seat_player": command("s", seat_player=seat),
        "add_chips": command("a", add_chips=table_pb2.AddChips(player_id="rich", amount=10)),
        "leave_seat": command("l", leave_seat=table_pb2.LeaveSeat(player_id="rich")),
        "close_table": command("c", close_table=table_pb2.CloseTable()),
    }
    players = {
        "sit_out": command("so", sit_out=table_pb2.SitOut(player_id="rich")),
        "sit_in": command("si", sit_in=table_pb2.SitIn(player_id="rich")),
        "show_or_muck": command("sm", show_or_muck=table_pb2.ShowOrMuck(player_id="rich")),
        "set_auto_muck": command("am", set_auto_muck=table_pb2.SetAutoMuck(player_id="rich")),
        "set_run_it_times": command(
            "rt", set_run_it_times=table_pb2.SetRunItTimes(player_id="rich", times=2)
        ),
        "answer_run_it": command(
            "ar", answer_run_it=table_pb2.AnswerRunIt(player_id="rich", times=2)
        ),
        "rabbit_hunt": command("rh", rabbit_hunt=table_pb2.RabbitHunt(player_id="rich")),
        "set_straddle": command("st", set_straddle=table_pb2.SetStraddle(player_id="rich")),
        "vote_bomb_pot": command("bp", vote_bomb_pot=table_pb2.VoteBombPot(player_id="rich")),
        "set_seat_options": command(
            "sx",
            set_seat_options=table_pb2.SetSeatOptions(player_id="rich", wait_for_big_blind=True),
        ),
        "answer_blind": command("ab", answer_blind=table_pb2.AnswerBlind(player_id="rich")),
        "mark_connection": command(
            "mc", mark_connection=table_pb2.MarkConnection(player_id="rich")
        ),
    }
    act = table_pb2.SubmitActionRequest(
        table_id=table_id,
        player_id="rich",
        action=common_pb2.ACTION_TYPE_FOLD,
        idempotency_key="act",
    )
    for name in ("gateway", "table", "dealer", "evaluator", "ai"):
        with channel_as(address, name) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            for which, request in chips.items():
                assert f"identity {name}" in denied(
                    lambda: stub.SubmitCommand(request, timeout=10)  # noqa: B023
                ), (name, which)
    for name in ("lobby", "table", "dealer", "evaluator", "ai"):
        with channel_as(address, name) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            for request in players.values():
                denied(lambda: stub.SubmitCommand(request, timeout=10))  # noqa: B023
            denied(lambda: stub.SubmitAction(act, timeout=10))  # noqa: B023
    with grpc.insecure_channel(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        for metadata in bad_tokens("lobby").values():
            denied(lambda: stub.SubmitCommand(chips["open_table"], metadata=metadata))  # noqa: B023
            denied(lambda: stub.SubmitAction(act, timeout=10, metadata=metadata))  # noqa: B023
        # nothing was written for any of them: the table was never opened
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id), timeout=10)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    # the lobby opens and seats; the gateway then acts for the player (past the policy: the
    # table answers about the game, not about the caller)
    with channel_as(address, "lobby") as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        stub.SubmitCommand(chips["open_table"], timeout=10)
        stub.SubmitCommand(chips["seat_player"], timeout=10)
    with channel_as(address, "gateway") as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        stub.SubmitCommand(players["sit_out"], timeout=10)
        with pytest.raises(grpc.RpcError) as caught:
            stub.SubmitAction(act, timeout=10)
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # no hand to fold in
    with channel_as(address) as channel, pytest.raises(grpc.RpcError) as caught:
        # tools may send every command (past the policy: one player cannot start a hand)
        table_pb2_grpc.TableServiceStub(channel).SubmitCommand(
            command("st", start_hand=table_pb2.StartHand()), timeout=10
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_only_the_gateway_and_tools_get_a_players_hand_history_from_the_table(
    services: dict[str, ServiceProcess],
) -> None:
    """Histories are read from the table's private stream (every hole card): only the gateway
    (for the authenticated player) and tools may ask for one."""
    address = services["table"].address
    history = table_pb2.GetHandHistoryRequest(table_id="nosuchtable", player_id="p1")
    allowed = ("gateway", "tools")
    for name in (n for n in IDENTITIES if n not in allowed):
        with channel_as(address, name) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            denied(lambda: stub.GetHandHistory(history, timeout=10))  # noqa: B023
    with grpc.insecure_channel(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        for metadata in [*bad_tokens("gateway").values(), *bad_tokens("tools").values()]:
            denied(lambda: stub.GetHandHistory(history, timeout=10, metadata=metadata))  # noqa: B023
    for name in allowed:
        with channel_as(address, name) as channel, pytest.raises(grpc.RpcError) as caught:
            table_pb2_grpc.TableServiceStub(channel).GetHandHistory(history, timeout=10)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND, name  # past the policy


def test_the_lobby_and_the_ai_answer_only_their_callers(
    services: dict[str, ServiceProcess],
) -> None:
    audit = lobby_pb2.AuditChipsRequest()
    with grpc.insecure_channel(services["lobby"].address) as channel:
        lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
        for metadata in bad_tokens("gateway").values():
            denied(lambda: lobby.AuditChips(audit, timeout=10, metadata=metadata))  # noqa: B023
    for name in ("table", "dealer", "ai"):
        with channel_as(services["lobby"].address, name) as channel:
            denied(lambda: lobby_pb2_grpc.LobbyServiceStub(channel).AuditChips(audit, timeout=10))
    with channel_as(services["lobby"].address) as channel:  # tools
        assert lobby_pb2_grpc.LobbyServiceStub(channel).AuditChips(audit, timeout=30) is not None
    decide = ai_pb2.DecideRequest()
    with grpc.insecure_channel(services["ai"].address) as channel:
        ai = ai_pb2_grpc.AiServiceStub(channel)
        for metadata in bad_tokens("table").values():
            denied(lambda: ai.Decide(decide, timeout=10, metadata=metadata))  # noqa: B023
    with channel_as(services["ai"].address, "gateway") as channel:
        denied(lambda: ai_pb2_grpc.AiServiceStub(channel).Decide(decide, timeout=10))


def test_the_lobby_believes_a_forwarded_client_address_only_from_the_gateway(
    services: dict[str, ServiceProcess],
) -> None:
    address = services["lobby"].address
    tag = uuid.uuid4().hex[:8]

    def login(channel: grpc.Channel, client: str) -> grpc.StatusCode:
        request = lobby_pb2.LoginRequest(username=f"nobody{tag}", password="wrong password!")
        try:
            lobby_pb2_grpc.LobbyServiceStub(channel).Login(
                request, timeout=30, metadata=((CLIENT_ADDRESS_HEADER, client),)
            )
        except grpc.RpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    with channel_as(address, "gateway") as gateway:
        codes = [login(gateway, f"ipv4:10.0.0.1-{tag}") for _ in range(PER_PEER + 1)]
        assert codes[:PER_PEER] == [grpc.StatusCode.UNAUTHENTICATED] * PER_PEER
        assert codes[PER_PEER] == grpc.StatusCode.RESOURCE_EXHAUSTED  # that client is limited
        # ... and only that client: another one behind the same gateway may still try
        assert login(gateway, f"ipv4:10.0.0.2-{tag}") == grpc.StatusCode.UNAUTHENTICATED
    with channel_as(address) as tools:  # not the gateway: the header is ignored, its peer counts
        codes = [login(tools, f"ipv4:10.9.{n}.1-{tag}") for n in range(PER_PEER + 1)]
        assert codes[-1] == grpc.StatusCode.RESOURCE_EXHAUSTED, codes


def test_a_rotated_key_verifies_for_its_identity_only(
    tmp_path: Path, redis_url: str, nats_url: str
) -> None:
    """Mid-rotation the table has two public keys: tokens of both verify as the table, and the
    new key says nothing for any other identity."""
    new_table = ServiceKey.generate("rotated")
    public = f"{DEV_SERVICE_KEYS.public_keys().format()},{new_table.public_entry('table')}"
    env = {
        "HOLDEM_REDIS_URL": redis_url,
        "HOLDEM_NATS_URL": nats_url,
        "HOLDEM_SERVICE_PUBLIC_KEYS": public,
    }
    dealer = start_service("dealer", tmp_path, env)
    try:
        table_id = f"id-{uuid.uuid4().hex[:8]}"
        for n, key in enumerate((DEV_SERVICE_KEYS.key("table").format(), new_table.format())):
            start = dealer_pb2.StartDeckRequest(
                table_id=table_id, hand_id=str(n + 1), idempotency_key=f"k{n}"
            )
            with channel_as(dealer.address, "table", key=key) as channel:
                assert dealer_pb2_grpc.DealerServiceStub(channel).StartDeck(start, timeout=10)
        reveal = dealer_pb2.RevealSeedRequest(deck_id="nosuchdeck")
        with channel_as(dealer.address, "lobby", key=new_table.format()) as channel:
            denied(
                lambda: dealer_pb2_grpc.DealerServiceStub(channel).RevealSeed(reveal, timeout=10)
            )
    finally:
        stop_all([dealer])


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (None, "HOLDEM_SERVICE_KEY: is required but not set"),
        ("table", "HOLDEM_SERVICE_KEY: its public key is not listed in HOLDEM_SERVICE_PUBLIC_KEYS"),
    ],
    ids=["no key", "another service's key"],
)
def test_a_dealer_without_its_own_key_exits_with_status_2(
    tmp_path: Path, key: str | None, message: str
) -> None:
    env = clean_env({})
    env.pop("HOLDEM_SERVICE_KEY", None)
    if key is not None:
        env["HOLDEM_SERVICE_KEY"] = DEV_SERVICE_KEYS.key(key).format()
    finished = subprocess.run(
        [sys.executable, "-m", "services.dealer"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2, finished.stderr
    assert message in finished.stderr
    assert DEV_SERVICE_KEYS.key("table").format() not in finished.stderr
