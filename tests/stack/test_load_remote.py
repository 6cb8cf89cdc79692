"""``holdem load --gateway``: the paced load against a running stack (`holdem stack up`, every
service as deployed), through its gateway only; the tables it opened are closed and its players'
chips back in their wallets, as the gateway itself shows afterwards."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.cli.stack_metrics import scrape
from libs.devstack import SERVICE_NAMES, LocalStack, ServiceProcess, service_env
from libs.devstack.processes import free_port
from tests.stack.stackrun import StackRun, run_holdem

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

TABLES = 3


def _open_tables(gateway: str, ca: bytes | None = None) -> list[str]:
    """The tables the catalogue lists as not closed."""
    credentials = grpc.ssl_channel_credentials(ca) if ca else None
    channel = (
        grpc.secure_channel(gateway, credentials) if credentials else grpc.insecure_channel(gateway)
    )
    with channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        listed = stub.ListTables(gateway_pb2.ListTablesRequest(), timeout=10)
    return [t.table_id for t in listed.tables if t.status != common_pb2.TABLE_STATUS_CLOSED]


def _acts_served(metrics: str) -> float:
    """Act calls a gateway answered OK, from its metrics endpoint."""
    return sum(
        sample.value
        for sample in scrape(metrics) or []
        if sample.name == "holdem_grpc_server_requests_total"
        and sample.labels.get("grpc_method") == "Act"
        and sample.labels.get("grpc_code") == "OK"
    )


@pytest.mark.parametrize("tls", [False, True], ids=["plaintext", "tls"])
def test_load_plays_a_running_stack_through_its_gateway_and_leaves_it_clean(
    start_stack: Callable[..., StackRun], tls: bool
) -> None:
    env = {**os.environ, "HOLDEM_LOBBY_GUESTS_PER_ADDRESS": "1000"}
    stack = start_stack(env=env, args=["--tls", "--ephemeral"] if tls else ["--ephemeral"])
    gateway = next(s["address"] for s in stack.state["services"] if s["name"] == "gateway")
    ca_file = stack.state_dir / "tls" / "ca.pem"
    args = ["--gateway", gateway, "--pace", "3600", "--tables", str(TABLES), "--duration", "4"]
    args += ["--tls-ca", str(ca_file)] if tls else []
    result = run_holdem("load", *args, "--json", timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["gateways"] == [gateway] and report["tables"] == TABLES
    assert report["errors"] == 0, report["error_codes"]
    assert report["hands"] > 0 and report["acts"] >= 5 * report["hands"] - 5 * TABLES
    assert 0 < report["act_p50_ms"] <= report["act_p99_ms"]
    assert report["tables_closed"] == TABLES
    assert report["players"] == report["players_settled"] == 6 * TABLES
    # as any client sees it: nothing the load opened is left open; every chip accounted for
    assert _open_tables(gateway, ca_file.read_bytes() if tls else None) == []
    audit_env = {**env, "HOLDEM_STACK_DIR": str(stack.state_dir)}
    audit = run_holdem("audit", "chips", env=audit_env)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "invariant  holds" in audit.stdout


def test_load_says_why_it_cannot_play_and_changes_nothing(
    start_stack: Callable[..., StackRun],
) -> None:
    stack = start_stack(args=["--ephemeral"])  # the lobby's default: 20 guests per address an hour
    gateway = next(s["address"] for s in stack.state["services"] if s["name"] == "gateway")
    # four tables need 24 guests: refused past the 20th, the tables already made closed again
    result = run_holdem(
        "load", "--gateway", gateway, "--pace", "60", "--tables", "4", "--duration", "1",
        timeout=240,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "TOO_MANY_GUESTS" in result.stderr
    assert "HOLDEM_LOBBY_GUESTS_PER_ADDRESS" in result.stderr
    assert _open_tables(gateway) == []
    # a gateway that does not answer, and arguments that cannot be right
    unreachable = run_holdem("load", "--gateway", f"127.0.0.1:{free_port()}", "--pace", "60")
    assert unreachable.returncode == 2
    assert "does not answer" in unreachable.stderr
    for bad in (
        ("--gateway", "no-port", "--pace", "60"),
        ("--gateway", f"{gateway},host:0", "--pace", "60"),
        ("--gateway", gateway, "--pace", "60", "--tables", "0"),
        ("--gateway", gateway),
        ("--gateway", gateway, "--pace", "60", "--replicas", "2"),
    ):
        refused = run_holdem("load", *bad)
        assert refused.returncode == 2, bad
        assert "holdem load: error: argument --" in refused.stderr, refused.stderr
    assert _open_tables(gateway) == []


def test_load_spreads_its_tables_over_two_gateways_of_one_deployment(tmp_path: Path) -> None:
    """A second gateway beside the stack's own (same NATS, Redis, lobby and table service, the
    same token keys): the load's tables go through both, and both served Acts."""
    keys = "load:" + base64.b64encode(b"k" * 32).decode()
    extra = {"HOLDEM_LOBBY_GUESTS_PER_ADDRESS": "1000", "HOLDEM_TOKEN_KEYS": keys}
    with LocalStack(extra_env=extra, workdir_parent=tmp_path) as stack:
        env = service_env(
            peers={name: stack.address(name) for name in SERVICE_NAMES},
            nats_url=stack.nats_url_for("gateway"),
            redis_url=stack.redis_url_for("gateway"),
            extra={**extra, "HOLDEM_NATS_REPLICAS": "1"},
        )
        metrics = [stack.metrics_addresses["gateway"], f"127.0.0.1:{free_port()}"]
        env["HOLDEM_METRICS_LISTEN"] = metrics[1]
        second = ServiceProcess("gateway", tmp_path / "gateway-2.log", env=env).start(60.0)
        try:
            gateways = [stack.address("gateway"), second.address]
            args = ["--gateway", ",".join(gateways), "--pace", "3600", "--tables", "4"]
            result = run_holdem("load", *args, "--duration", "4", "--json", timeout=240)
            assert result.returncode == 0, result.stdout + result.stderr
            report = json.loads(result.stdout)
            assert report["gateways"] == gateways and report["errors"] == 0
            assert report["hands"] > 0 and report["tables_closed"] == 4
            assert report["players"] == report["players_settled"] == 24
            # each gateway served Acts (tables 0 and 2 through the first, 1 and 3 the second)
            for address in metrics:
                assert _acts_served(address) > 0, address
            assert _open_tables(gateways[1]) == []
        finally:
            second.stop(10.0)
