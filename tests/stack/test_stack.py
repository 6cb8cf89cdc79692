"""The real local stack: `holdem stack up` starts nats, redis and the six services; all answer
SERVING over gRPC, a client gets through the gateway to the lobby, `holdem stack status --json`
reports it, and `holdem stack down` leaves no process and no temp directory behind."""

from __future__ import annotations

import json
import stat
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from libs.devstack import SERVICE_NAMES, pid_alive
from libs.platform import healthcheck
from tests.stack.stackrun import StackRun, run_holdem

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _register_login_list(gateway: str) -> None:
    """Client round trips through the gateway: to the lobby, and a hand history asked of the
    table (which reads its own stream: the gateway's NATS user cannot)."""
    username = f"stack_{uuid.uuid4().hex[:12]}"
    with grpc.insecure_channel(gateway) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        registered = stub.Register(
            gateway_pb2.RegisterRequest(username=username, password="correct horse battery"),
            timeout=10,
        )
        assert registered.player.username == username
        assert registered.player.player_id
        login = stub.Login(
            gateway_pb2.LoginRequest(username=username, password="correct horse battery"),
            timeout=10,
        )
        assert login.token
        assert login.player.player_id == registered.player.player_id
        tables = stub.ListTables(gateway_pb2.ListTablesRequest(), timeout=10)
        assert isinstance(tables, gateway_pb2.ListTablesResponse)
        auth = (("authorization", f"Bearer {login.token}"),)
        config = common_pb2.TableConfig(
            variant=common_pb2.VARIANT_HOLDEM,
            betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
            max_seats=6,
            small_blind=1,
            big_blind=2,
        )
        table = stub.CreateTable(
            gateway_pb2.CreateTableRequest(name="stack", config=config), metadata=auth, timeout=30
        ).table
        history = stub.GetHandHistory(
            gateway_pb2.GetHandHistoryRequest(table_id=table.table_id), metadata=auth, timeout=30
        )
        assert list(history.hands) == [] and not history.next_page_token  # no hand played


def test_local_stack_up_status_down(start_stack: Callable[..., StackRun]) -> None:
    run = start_stack()
    state = run.state
    services = {s["name"]: s for s in state["services"]}
    assert list(services) == list(SERVICE_NAMES)

    for name, svc in services.items():
        assert svc["address"].startswith("127.0.0.1:"), name
        assert healthcheck.check(svc["address"], timeout=5) == healthcheck.SERVING, name

    _register_login_list(services["gateway"]["address"])

    status = run_holdem("stack", "status", "--json", "--state-dir", str(run.state_dir))
    assert status.returncode == 0, status.stdout + status.stderr
    report = json.loads(status.stdout)
    assert set(report) == {"nats", "redis", "web", "restarts", "services"}
    # the web client, on the gateway's HTTP port (built by `make web`, which `make test` runs)
    assert report["web"] == state["web"] and report["web"].startswith("http://127.0.0.1:")
    page = urllib.request.urlopen(report["web"], timeout=10)
    assert page.status == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    assert b'<main id="app">' in page.read(), "the web client is not built: run `make web`"
    assert set(report["restarts"].values()) == {0}
    assert report["nats"] == state["nats"]["url"]
    assert report["redis"] == state["redis"]["url"]
    assert [{k: s[k] for k in ("name", "address", "status")} for s in report["services"]] == [
        {"name": name, "address": services[name]["address"], "status": "SERVING"}
        for name in SERVICE_NAMES
    ]
    # each service's key metrics, scraped from its endpoint (the gateway served the calls above)
    assert [s["metrics"]["address"] for s in report["services"]] == [
        services[name]["metrics"] for name in SERVICE_NAMES
    ]
    assert report["services"][0]["metrics"]["calls"] >= 3

    # every service has its own NATS / Redis user; no password shows in the state file, the
    # status output or any log
    secrets = run.state_dir / "secrets"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o700
    credentials = json.loads((secrets / "credentials.json").read_text())
    assert stat.S_IMODE((secrets / "credentials.json").stat().st_mode) == 0o600
    passwords = [*credentials["nats"].values(), *credentials["redis"].values()]
    text = run_holdem("stack", "status", "--state-dir", str(run.state_dir)).stdout
    assert report["web"] in text
    logs = [Path(p["log"]) for p in [state["nats"], state["redis"], *state["services"]]]
    shown = [status.stdout, text, (run.state_dir / "state.json").read_text()]
    shown += [log.read_text(errors="replace") for log in logs]
    assert [p for p in passwords if any(p in out for out in shown)] == []

    down = run_holdem("stack", "down", "--state-dir", str(run.state_dir))
    assert down.returncode == 0, down.stdout + down.stderr
    assert run.proc.wait(timeout=30) == 0
    assert [pid for pid in run.pids() if pid_alive(pid)] == []
    assert not Path(state["workdir"]).exists()
    assert not (run.state_dir / "state.json").exists()
