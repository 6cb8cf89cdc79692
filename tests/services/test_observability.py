"""Metrics and request ids with real service processes: each service serves Prometheus metrics on
HOLDEM_METRICS_LISTEN, a request id given to one service shows in the logs of the services it
calls, and `holdem stack status` reads each service's key figures."""

from __future__ import annotations

import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2
from prometheus_client.samples import Sample

from libs.cli.stack_control import stack_status
from libs.cli.stack_metrics import parse
from libs.devstack import LocalStack, free_port
from libs.devstack.identity import channel_as
from libs.devstack.stackstate import describe
from libs.devstack.tablestub import table_as
from libs.platform.logging import REQUEST_ID_HEADER
from tests.services.conftest import ServiceProcess, Starter, launch_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

WAIT = 20.0


def wait_for(condition: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout}s: {what}")
        time.sleep(0.05)


def metrics_port(service: ServiceProcess) -> int:
    (serving,) = [line for line in service.log_lines() if line.get("event") == "serving"]
    port = serving["metrics_port"]
    assert isinstance(port, int)
    return port


def scrape(service: ServiceProcess) -> list[Sample]:
    url = f"http://127.0.0.1:{metrics_port(service)}/metrics"
    with urllib.request.urlopen(url, timeout=5) as response:
        return parse(response.read().decode())


def value(samples: list[Sample], name: str, **labels: str) -> float:
    found = [s.value for s in samples if s.name == name and labels.items() <= s.labels.items()]
    assert len(found) == 1, (name, labels, found)
    return found[0]


def finished_calls(service: ServiceProcess, request_id: str) -> set[str]:
    """The methods ``service`` logged a finished call of, under ``request_id``."""
    return {
        str(line["rpc"])
        for line in service.log_lines()
        if line.get("event") == "rpc finished" and line.get("request_id") == request_id
    }


def test_the_dealer_exports_call_and_deck_metrics(start: Starter, redis_url: str) -> None:
    dealer = start("dealer", {"HOLDEM_REDIS_URL": redis_url})
    hand = uuid.uuid4().hex
    with channel_as(dealer.address, "table") as channel:
        stub = dealer_pb2_grpc.DealerServiceStub(channel)
        request = dealer_pb2.StartDeckRequest(table_id="t", hand_id=hand, idempotency_key="k")
        deck = stub.StartDeck(request)
        assert stub.StartDeck(request) == deck  # the same deck again: not a new one
        stub.DealCards(dealer_pb2.DealCardsRequest(deck_id=deck.deck_id, indexes=[0, 1, 2]))
        with pytest.raises(grpc.RpcError):
            stub.DealCards(dealer_pb2.DealCardsRequest(deck_id=deck.deck_id, indexes=[99]))
    samples = scrape(dealer)
    assert value(samples, "holdem_service_info", service="dealer") == 1
    assert value(samples, "holdem_dealer_decks_dealt_total") == 1
    assert value(samples, "holdem_dealer_cards_dealt_total") == 3
    service = "holdem.dealer.v1.DealerService"
    calls = "holdem_grpc_server_requests_total"
    assert value(samples, calls, grpc_service=service, grpc_method="StartDeck") == 2
    assert value(samples, calls, grpc_method="DealCards", grpc_code="OK") == 1
    assert value(samples, calls, grpc_method="DealCards", grpc_code="INVALID_ARGUMENT") == 1
    latency = "holdem_grpc_server_request_duration_seconds_count"
    assert value(samples, latency, grpc_method="StartDeck") == 2
    assert value(samples, "process_resident_memory_bytes") > 0


def test_a_request_id_follows_a_call_from_the_gateway_to_the_lobby(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    lobby = start("lobby", {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url})
    gateway = start("gateway", {"HOLDEM_LOBBY_ADDR": lobby.address, "HOLDEM_NATS_URL": nats_url})
    request_id = f"trace-{uuid.uuid4().hex}"
    with grpc.insecure_channel(gateway.address) as channel:
        gateway_pb2_grpc.GatewayServiceStub(channel).Register(
            gateway_pb2.RegisterRequest(username=f"u{request_id[-8:]}", password="correct horse"),
            metadata=((REQUEST_ID_HEADER, request_id),),
        )
    wait_for(
        lambda: "/holdem.lobby.v1.LobbyService/RegisterPlayer" in finished_calls(lobby, request_id),
        "the lobby logs the call under the gateway's request id",
    )
    assert finished_calls(gateway, request_id) == {"/holdem.gateway.v1.GatewayService/Register"}


def test_a_request_id_follows_player_actions_to_the_dealer_and_the_evaluator(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url}
    dealer = start("dealer", infra)
    evaluator = start("evaluator")
    table = start(
        "table",
        {
            **infra,
            "HOLDEM_DEALER_ADDR": dealer.address,
            "HOLDEM_EVALUATOR_ADDR": evaluator.address,
            "HOLDEM_TABLE_DEALER": "service",
            "HOLDEM_TABLE_EVALUATOR": "service",
        },
    )
    table_id = f"o{uuid.uuid4().hex[:8]}"
    config = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=6,
        small_blind=1,
        big_blind=2,
        action_clock_seconds=30,
    )
    seat_id, call_id = f"seat-{uuid.uuid4().hex}", f"call-{uuid.uuid4().hex}"
    with table_as(table.address) as stub:
        stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key="open",
                open_table=table_pb2.OpenTable(config=config),
            )
        )
        for seat, player in enumerate(("alice", "bob")):
            # the second seat starts the first hand: the table asks the dealer for a deck
            stub.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id=table_id,
                    idempotency_key=f"seat-{player}",
                    seat_player=table_pb2.SeatPlayer(player_id=player, seat=seat, buy_in=100),
                ),
                metadata=((REQUEST_ID_HEADER, seat_id),),
            )
        view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
        acting = next(s.player_id for s in view.seats if s.seat == view.acting_seat)
        other = "bob" if acting == "alice" else "alice"
        for player, action, amount, request_id in (
            (acting, common_pb2.ACTION_TYPE_RAISE, 100, f"shove-{uuid.uuid4().hex}"),
            (other, common_pb2.ACTION_TYPE_CALL, 0, call_id),  # all in: board and showdown
        ):
            stub.SubmitAction(
                table_pb2.SubmitActionRequest(
                    table_id=table_id,
                    hand_id=view.hand_id,
                    player_id=player,
                    action=action,
                    amount=amount,
                    idempotency_key=request_id,
                ),
                metadata=((REQUEST_ID_HEADER, request_id),),
            )
    dealer_calls = "/holdem.dealer.v1.DealerService/"
    wait_for(
        lambda: (
            {f"{dealer_calls}StartDeck", f"{dealer_calls}DealCards"}
            <= finished_calls(dealer, seat_id)
        ),
        "the dealer logs the deck calls under the seating command's request id",
    )
    wait_for(
        lambda: (
            f"{dealer_calls}DealCards" in finished_calls(dealer, call_id)
            and "/holdem.evaluator.v1.EvaluatorService/EvaluateBatch"
            in finished_calls(evaluator, call_id)
        ),
        "the board and the showdown are asked for under the call's request id",
    )
    assert "/holdem.table.v1.TableService/SubmitAction" in finished_calls(table, call_id)


def test_metrics_off_means_no_endpoint(start: Starter) -> None:
    evaluator = start("evaluator", {"HOLDEM_METRICS_LISTEN": "off"})
    (serving,) = [line for line in evaluator.log_lines() if line.get("event") == "serving"]
    assert serving["metrics_port"] is None


def test_a_taken_metrics_port_stops_the_service_with_a_clear_error(
    start: Starter, tmp_path: Path
) -> None:
    first = start("evaluator")
    taken = f"127.0.0.1:{metrics_port(first)}"
    second = launch_service("evaluator", tmp_path, {"HOLDEM_METRICS_LISTEN": taken})
    assert second.process.wait(timeout=WAIT) == 1
    assert f"cannot serve metrics on {taken}" in second.log_path.read_text()


def test_stack_status_shows_each_services_key_metrics() -> None:
    with LocalStack(services=("dealer", "evaluator")) as stack:
        state = describe(stack)
        dealer_metrics = next(s["metrics"] for s in state["services"] if s["name"] == "dealer")
        assert dealer_metrics not in (None, stack.address("dealer"))
        with channel_as(stack.address("dealer"), "table") as channel:
            dealer_pb2_grpc.DealerServiceStub(channel).StartDeck(
                dealer_pb2.StartDeckRequest(table_id="t", hand_id="h", idempotency_key="k")
            )
        report = stack_status(state)
    shown = {s["name"]: s for s in report["services"]}
    assert {s["status"] for s in shown.values()} == {"SERVING"}
    dealer = shown["dealer"]["metrics"]
    assert dealer["address"] == dealer_metrics
    assert (dealer["calls"], dealer["not_ok"], dealer["decks_dealt"]) == (1, 0, 1)
    assert dealer["p99_ms"] > 0 and dealer["rss_mb"] > 0
    evaluator = shown["evaluator"]["metrics"]
    assert evaluator["calls"] == 0 and "decks_dealt" not in evaluator


def test_stack_status_without_a_metrics_endpoint_says_so() -> None:
    state = {
        "nats": {"url": "nats://127.0.0.1:1"},
        "redis": {"url": "redis://127.0.0.1:1/0"},
        "services": [
            {"name": "ai", "address": f"127.0.0.1:{free_port()}", "metrics": None},
            {"name": "dealer", "address": f"127.0.0.1:{free_port()}", "metrics": "127.0.0.1:1"},
        ],
    }
    report = stack_status(state, timeout=0.5)
    assert [(s["status"], s["metrics"]) for s in report["services"]] == [
        ("UNREACHABLE", None),
        ("UNREACHABLE", None),
    ]
