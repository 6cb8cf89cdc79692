"""The six services as real processes: health, reflection, a gateway -> lobby flow over gRPC,
bad requests refused with INVALID_ARGUMENT, configuration errors and graceful shutdown on
SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from holdem.ai.v1 import ai_pb2, ai_pb2_grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.devstack.identity import channel_as
from tests.services.conftest import (
    ROOT,
    ServiceProcess,
    Starter,
    clean_env,
    launch_service,
    stop_all,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

SERVICE_NAMES = {
    "gateway": "holdem.gateway.v1.GatewayService",
    "lobby": "holdem.lobby.v1.LobbyService",
    "table": "holdem.table.v1.TableService",
    "dealer": "holdem.dealer.v1.DealerService",
    "evaluator": "holdem.evaluator.v1.EvaluatorService",
    "ai": "holdem.ai.v1.AiService",
    "tournament": "holdem.tournament.v1.TournamentService",
}

NO_LIMIT_HOLDEM = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
)


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[dict[str, ServiceProcess]]:
    """All six services on this test session's own NATS and Redis; the gateway finds the lobby."""
    log_dir = tmp_path_factory.mktemp("services")
    infra = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url}
    launched = [launch_service("lobby", log_dir, infra)]
    running: dict[str, ServiceProcess] = {}
    try:
        running["lobby"] = launched[0].wait_serving()
        lobby = {**infra, "HOLDEM_LOBBY_ADDR": running["lobby"].address}
        launched += [
            launch_service(name, log_dir, lobby) for name in SERVICE_NAMES if name != "lobby"
        ]
        for pending in launched[1:]:
            running[pending.name] = pending.wait_serving()
        yield running
    finally:
        stop_all(list(running.values()))
        for pending in launched:
            pending.kill()


@pytest.fixture(scope="module")
def gateway(stack: dict[str, ServiceProcess]) -> Iterator[gateway_pb2_grpc.GatewayServiceStub]:
    with grpc.insecure_channel(stack["gateway"].address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel)


@pytest.mark.parametrize("name", sorted(SERVICE_NAMES))
def test_service_reports_serving(stack: dict[str, ServiceProcess], name: str) -> None:
    with grpc.insecure_channel(stack[name].address) as channel:
        check: grpc.UnaryUnaryMultiCallable[
            health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse
        ] = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        for service in ("", SERVICE_NAMES[name]):
            response = check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_service(stack: dict[str, ServiceProcess]) -> None:
    with grpc.insecure_channel(stack["gateway"].address) as channel:
        # (the stub's type information leaves ServerReflectionInfo untyped)
        info: grpc.StreamStreamMultiCallable[
            reflection_pb2.ServerReflectionRequest, reflection_pb2.ServerReflectionResponse
        ] = channel.stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        (response,) = list(info(iter([request]), timeout=5))
    names = {s.name for s in response.list_services_response.service}
    assert {"holdem.gateway.v1.GatewayService", "grpc.health.v1.Health"} <= names


def test_register_login_create_and_list_tables_through_the_gateway(
    gateway: gateway_pb2_grpc.GatewayServiceStub,
) -> None:
    registered = gateway.Register(
        gateway_pb2.RegisterRequest(username="alice", password="correct horse", display_name="Al"),
        timeout=10,
    )
    assert registered.player.username == "alice"
    assert registered.player.display_name == "Al"

    login = gateway.Login(
        gateway_pb2.LoginRequest(username="alice", password="correct horse"), timeout=10
    )
    assert login.token
    assert login.player.player_id == registered.player.player_id

    auth = (("authorization", f"Bearer {login.token}"),)
    created = gateway.CreateTable(
        gateway_pb2.CreateTableRequest(name="Friday game", config=NO_LIMIT_HOLDEM),
        metadata=auth,
        timeout=10,
    )
    table = created.table
    assert table.name == "Friday game"
    assert table.status == common_pb2.TABLE_STATUS_OPEN
    assert table.created_by_player_id == registered.player.player_id
    assert table.config.min_buy_in == 40  # default: 20 big blinds

    listed = gateway.ListTables(
        gateway_pb2.ListTablesRequest(variant=common_pb2.VARIANT_HOLDEM), timeout=10
    )
    assert table.table_id in [t.table_id for t in listed.tables]
    omaha = gateway.ListTables(
        gateway_pb2.ListTablesRequest(variant=common_pb2.VARIANT_OMAHA), timeout=10
    )
    assert table.table_id not in [t.table_id for t in omaha.tables]


def test_lobby_errors_keep_their_status_through_the_gateway(
    gateway: gateway_pb2_grpc.GatewayServiceStub,
) -> None:
    gateway.Register(
        gateway_pb2.RegisterRequest(username="bob", password="bob-strong-pass"), timeout=10
    )
    with pytest.raises(grpc.RpcError) as taken:
        gateway.Register(
            gateway_pb2.RegisterRequest(username="BOB", password="bob-strong-pass"), timeout=10
        )
    assert taken.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert "taken" in (taken.value.details() or "")

    with pytest.raises(grpc.RpcError) as wrong:
        gateway.Login(gateway_pb2.LoginRequest(username="bob", password="wrong pass"), timeout=10)
    assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED

    with pytest.raises(grpc.RpcError) as short:
        gateway.Register(gateway_pb2.RegisterRequest(username="carol", password="x"), timeout=10)
    assert short.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_create_table_needs_a_valid_token(gateway: gateway_pb2_grpc.GatewayServiceStub) -> None:
    request = gateway_pb2.CreateTableRequest(config=NO_LIMIT_HOLDEM)
    with pytest.raises(grpc.RpcError) as missing:
        gateway.CreateTable(request, timeout=10)
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as forged:
        gateway.CreateTable(request, metadata=(("authorization", "Bearer forged"),), timeout=10)
    assert forged.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_invalid_table_config_is_invalid_argument(
    gateway: gateway_pb2_grpc.GatewayServiceStub,
) -> None:
    gateway.Register(
        gateway_pb2.RegisterRequest(username="dave", password="dave-strong-pass"), timeout=10
    )
    token = gateway.Login(
        gateway_pb2.LoginRequest(username="dave", password="dave-strong-pass"), timeout=10
    ).token
    config = common_pb2.TableConfig()
    config.CopyFrom(NO_LIMIT_HOLDEM)
    config.max_seats = 11
    with pytest.raises(grpc.RpcError) as caught:
        gateway.CreateTable(
            gateway_pb2.CreateTableRequest(config=config),
            metadata=(("authorization", f"Bearer {token}"),),
            timeout=10,
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "max_seats" in (caught.value.details() or "")


def test_ai_refuses_an_empty_request_with_invalid_argument(
    stack: dict[str, ServiceProcess],
) -> None:
    with (
        channel_as(stack["ai"].address) as channel,
        pytest.raises(grpc.RpcError) as caught,
    ):
        ai_pb2_grpc.AiServiceStub(channel).Decide(ai_pb2.DecideRequest(), timeout=5)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "difficulty" in (caught.value.details() or "")


def test_ai_refuses_a_policy_request_without_a_decision(
    stack: dict[str, ServiceProcess],
) -> None:
    with (
        channel_as(stack["ai"].address) as channel,
        pytest.raises(grpc.RpcError) as caught,
    ):
        request = ai_pb2.PolicyRequest(holdings=["AsKd"])
        ai_pb2_grpc.AiServiceStub(channel).Policy(request, timeout=5)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "decision" in (caught.value.details() or "")


def test_sigterm_stops_the_service_gracefully(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    servers = {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url}
    lobby = start("lobby", {"HOLDEM_SHUTDOWN_GRACE_SECONDS": "2", **servers})
    assert lobby.stop() == 0
    events = [line.get("event") for line in lobby.log_lines()]
    assert events[-2:] == ["shutting down", "stopped"]
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", lobby.port))


def test_sigusr1_logs_where_every_task_waits(start: Starter) -> None:
    evaluator = start("evaluator")
    os.kill(evaluator.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 10

    def serve_task_dumped() -> bool:  # the task that serves, waiting for its stop signal
        tasks = [r for r in evaluator.log_lines() if r.get("event") == "task"]
        return any(any(" serve" in frame for frame in r["awaiting"]) for r in tasks)

    while not serve_task_dumped():
        assert time.monotonic() < deadline, "no task dump after SIGUSR1"
        time.sleep(0.05)
    assert evaluator.running  # a dump, not a stop


def test_gateway_answers_unavailable_when_the_lobby_is_down(start: Starter, nats_url: str) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        closed_port = free.getsockname()[1]
    gateway = start(
        "gateway",
        {
            "HOLDEM_LOBBY_ADDR": f"127.0.0.1:{closed_port}",
            "HOLDEM_RPC_TIMEOUT_SECONDS": "2",
            "HOLDEM_NATS_URL": nats_url,
        },
    )
    with grpc.insecure_channel(gateway.address) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.ListTables(gateway_pb2.ListTablesRequest(), timeout=10)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def test_invalid_configuration_exits_2_naming_the_variable(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "services.table"],
        cwd=ROOT,
        env=clean_env({"HOLDEM_LISTEN": "nowhere", "HOLDEM_LOG_FORMAT": "yaml"}),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "holdem-table: invalid configuration" in result.stderr
    assert "HOLDEM_LISTEN: 'nowhere' is not host:port" in result.stderr
    assert "HOLDEM_LOG_FORMAT: 'yaml' is not one of json, console" in result.stderr
