"""The gateway and its NATS, on a nats-server of each test's own (issue 9's red-team findings):

- a NATS that hangs (SIGSTOP) while a stream resumes from a sequence is UNAVAILABLE, not
  INTERNAL, and the same call works once NATS answers again (rt/watchdown2.py)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from holdem.gateway.v1 import gateway_pb2

from libs.devstack import NatsServer, start_nats
from tests.conditions import wait_until_sync
from tests.gateway.stack import bearer, start_gateway_stack
from tests.services.conftest import ServiceProcess

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

S = grpc.StatusCode


@pytest.fixture
def own_nats() -> Iterator[NatsServer]:
    """A nats-server of this test's own: nothing in it (no revocation bucket), and it may be
    frozen."""
    with start_nats() as server:
        yield server


@pytest.fixture
def processes() -> Iterator[list[ServiceProcess]]:
    started: list[ServiceProcess] = []
    yield started
    for process in reversed(started):
        process.kill()


def _trailer(error: grpc.RpcError, name: str) -> str:
    metadata: Any = error.trailing_metadata()
    return str(dict(metadata or ()).get(name, ""))


def _serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest(), timeout=10
        )
    return bool(health.status == health_pb2.HealthCheckResponse.SERVING)


def test_watch_table_from_a_sequence_while_nats_hangs_is_unavailable_not_internal(
    tmp_path: Path, own_nats: NatsServer, redis_url: str
) -> None:
    stack = start_gateway_stack(tmp_path, own_nats.url, redis_url)
    try:
        table_id = stack.open_table()
        stack.seat(table_id, "p1", 100)
        sequence = stack.view(table_id).sequence
        token = stack.token("watcher")
        request = gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=sequence - 1)
        assert own_nats.pid is not None
        with grpc.insecure_channel(stack.gateway.address) as channel:
            gw = stack.gateway_stub(channel)
            os.kill(own_nats.pid, signal.SIGSTOP)
            try:
                with pytest.raises(grpc.RpcError) as caught:
                    next(iter(gw.WatchTable(request, metadata=bearer(token), timeout=30)))
            finally:
                os.kill(own_nats.pid, signal.SIGCONT)
            error = caught.value
            assert error.code() == S.UNAVAILABLE, (error.code(), error.details())
            assert len(error.details() or "") <= 100

            def resumes() -> bool:
                try:
                    stream = gw.WatchTable(request, metadata=bearer(token), timeout=10)
                    first = next(iter(stream))
                except grpc.RpcError as exc:
                    assert exc.code() == S.UNAVAILABLE, exc.details()
                    return False
                stream.cancel()
                assert first.sequence == sequence and first.previous == sequence - 1
                return True

            wait_until_sync(resumes, "the stream resumes once NATS answers again", timeout=60)
    finally:
        for process in (stack.gateway, stack.lobby, stack.table):
            process.kill()


def test_every_gateway_rpc_is_guarded_against_a_failing_nats() -> None:
    """Each RPC of the service runs inside libs.platform.unavailable's guard (the WatchTable
    case above, over a real hung NATS, shows what the guard does)."""
    from services.gateway.server import GATEWAY_SERVICE, GatewayServicer

    for name in GATEWAY_SERVICE.methods_by_name:
        assert getattr(getattr(GatewayServicer, name), "__wrapped__", None) is not None, name
