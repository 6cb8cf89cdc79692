"""`holdem stack up --tls`: every service on mutual TLS, the gateway on TLS (libs/platform/tls.py).

One real stack: it comes up SERVING (the health checks themselves over TLS), a table of AIs
opened through the gateway plays its hands (the table reaches the dealer and the AI over mutual
TLS), `holdem stack status` and `holdem audit` work from the stack's tools certificate. And the
handshake refuses: a plaintext caller, a caller without a certificate, one whose certificate
another CA issued, and a caller that meant another service (its name is not in the callee's
certificate). Players need no certificate at the gateway, only its CA.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
import redis.asyncio
import redis.exceptions
from grpc_health.v1 import health_pb2, health_pb2_grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.cli.house import open_house_table
from libs.client import GatewayClient
from libs.client.channel import gateway_channel
from libs.client.view import is_my_turn, is_showdown_turn
from libs.devstack import SERVICE_NAMES
from libs.devstack.access import with_credentials
from libs.devstack.identity import channel_as
from libs.eventstore.projection import PUBLIC_STREAM
from libs.platform.clients import connect
from libs.platform.identity import TOOLS
from libs.platform.natsconn import connect_nats
from libs.platform.tls import TlsFiles, issue_set, load_dir, redis_options
from tests.stack.stackrun import StackRun, run_holdem

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

INTERNAL = tuple(name for name in SERVICE_NAMES if name != "gateway")


def _health(channel: grpc.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    response = stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
    return int(response.status)


def _refused(channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        _health(channel)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def _secure(address: str, credentials: grpc.ChannelCredentials, name: str = "") -> grpc.Channel:
    options = [("grpc.ssl_target_name_override", name)] if name else []
    return grpc.secure_channel(address, credentials, options=options)


async def _person_plays(gateway: str, table_id: str, ca: bytes, hands: int) -> None:
    """A guest joins ``table_id`` through the gateway over TLS and checks or calls (shows at
    showdown) until the table has started ``hands`` hands."""
    async with GatewayClient(gateway, tls=ca) as client:
        await client.guest_login("tlsperson")
        await client.join_table(table_id, buy_in=200)
        acted = 0
        async for update in client.watch(table_id):
            view = update.view
            if view.hand_number >= hands:
                return
            if view.sequence < acted or not is_my_turn(view):
                continue
            if is_showdown_turn(view):
                acted = (await client.show(table_id, hand_id=view.hand_id)).sequence
            else:
                legal = view.legal_actions
                action = (
                    common_pb2.ACTION_TYPE_CHECK if legal.can_check else common_pb2.ACTION_TYPE_CALL
                )
                acted = (await client.act(table_id, action, hand_id=view.hand_id)).sequence


def test_a_tls_stack_plays_and_refuses_every_caller_without_the_right_certificate(
    start_stack: Callable[..., StackRun], tmp_path: Path
) -> None:
    run = start_stack(args=["--tls", "--ephemeral"])
    tls_dir = Path(run.state["tls_dir"])
    assert tls_dir == run.state_dir / "tls"
    assert oct(tls_dir.stat().st_mode & 0o777) == "0o700"
    assert oct((tls_dir / "table.key").stat().st_mode & 0o777) == "0o600"
    address = {s["name"]: s["address"] for s in run.state["services"]}
    tools = load_dir(tls_dir, TOOLS)
    env = {**os.environ, "HOLDEM_STACK_DIR": str(run.state_dir)}

    status = run_holdem("stack", "status", "--json", "--state-dir", str(run.state_dir), env=env)
    assert status.returncode == 0, status.stdout + status.stderr
    assert {s["name"]: s["status"] for s in json.loads(status.stdout)["services"]} == {
        name: "SERVING" for name in SERVICE_NAMES
    }

    # a table of two AIs through the gateway (a player's client: the stack's CA, no certificate)
    table_id = asyncio.run(
        open_house_table(
            address["gateway"],
            levels=[common_pb2.BOT_DIFFICULTY_EASY, common_pb2.BOT_DIFFICULTY_NORMAL],
            seats=3,
            tls=tools.ca,
        )
    )
    # a player's table: the AIs wait for a person, who joins and plays over TLS as well
    asyncio.run(asyncio.wait_for(_person_plays(address["gateway"], table_id, tools.ca, 2), 90))
    with channel_as(address["table"], tls=tools, peer="table") as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id)).view
    assert view.hand_number >= 2, "the AIs' table did not play over TLS"

    audit = run_holdem("audit", "chips", env=env)  # the stack's lobby, found in its state
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "invariant  holds" in audit.stdout

    stranger = load_dir(issue_set(tmp_path / "other-ca", [TOOLS]), TOOLS)
    for name in INTERNAL:
        # the right certificate works, and names the service
        with _secure(address[name], _mtls(tools), name) as channel:
            assert _health(channel) == health_pb2.HealthCheckResponse.SERVING
        with grpc.insecure_channel(address[name]) as channel:
            _refused(channel)  # plaintext
        with _secure(address[name], grpc.ssl_channel_credentials(tools.ca), name) as channel:
            _refused(channel)  # no client certificate
        with _secure(address[name], _mtls(stranger, ca=tools.ca), name) as channel:
            _refused(channel)  # a certificate of another CA
    # a caller that meant the dealer but reached the table: the table's certificate does not
    # name the dealer, so nothing is sent (what every service's calls to its peers do)
    assert asyncio.run(_peer_health(address["dealer"], tools, "dealer")) == "SERVING"
    assert asyncio.run(_peer_health(address["table"], tools, "dealer")) == "UNAVAILABLE"

    # NATS and Redis take TLS only, from holders of a certificate of the CA
    nats_url, redis_url = run.state["nats"]["url"], run.state["redis"]["url"]
    assert nats_url.startswith("tls://") and redis_url.startswith("rediss://")
    credentials = json.loads((run.state_dir / "secrets" / "credentials.json").read_text())
    spectator = with_credentials(nats_url, "spectator", credentials["nats"]["spectator"])
    assert asyncio.run(_public_commit(spectator, tools, table_id)) > 0
    for url, tls in ((spectator.replace("tls://", "nats://"), None), (spectator, None)):
        with pytest.raises(Exception):  # noqa: B017 (nats-py raises several kinds)
            asyncio.run(_public_commit(url, tls, table_id))
    table_redis = with_credentials(redis_url, "table", credentials["redis"]["table"])
    assert asyncio.run(_redis_ping(table_redis, tools))
    with pytest.raises(redis.exceptions.ConnectionError):
        asyncio.run(_redis_ping(table_redis.replace("rediss://", "redis://"), None))
    with pytest.raises(redis.exceptions.ConnectionError):
        asyncio.run(_redis_ping(table_redis, stranger))

    # players: TLS to the gateway with only its CA; plaintext is refused
    with _secure(address["gateway"], grpc.ssl_channel_credentials(tools.ca)) as channel:
        listed = gateway_pb2_grpc.GatewayServiceStub(channel).ListTables(
            gateway_pb2.ListTablesRequest(), timeout=10
        )
        assert table_id in [t.table_id for t in listed.tables]
    with grpc.insecure_channel(address["gateway"]) as channel:
        _refused(channel)

    async def client_lists() -> list[str]:
        channel = gateway_channel(address["gateway"], tools.ca)
        try:
            stub = gateway_pb2_grpc.GatewayServiceStub(channel)
            response = await stub.ListTables(gateway_pb2.ListTablesRequest(), timeout=10)
            return [t.table_id for t in response.tables]
        finally:
            await channel.close()

    assert table_id in asyncio.run(client_lists())


async def _public_commit(url: str, tls: TlsFiles | None, table_id: str) -> int:
    """The last public commit's sequence of ``table_id``, read as the spectator at ``url``."""
    nc = await connect_nats(url, tls, max_reconnect_attempts=0, allow_reconnect=False)
    try:
        js = nc.jetstream()
        message = await js.get_last_msg(PUBLIC_STREAM, f"holdem.public.table.{table_id}")
        return int(message.seq or 0)
    finally:
        await nc.close()


async def _redis_ping(url: str, tls: TlsFiles | None) -> bool:
    files = tls
    if tls is not None and not url.startswith("rediss://"):
        files = None
    client = redis.asyncio.Redis.from_url(
        url, socket_connect_timeout=3, socket_timeout=3, **redis_options(url, files)
    )
    try:
        return bool(await client.ping())
    finally:
        await client.aclose()


async def _peer_health(address: str, tls: TlsFiles, service: str) -> str:
    """Health of what answers at ``address`` through ``connect`` as services call a peer."""
    channel = connect(address, tls=tls, service=service, max_attempts=1)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        response = await stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # type: ignore[attr-defined]
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))
    except grpc.aio.AioRpcError as error:
        return str(error.code().name)
    finally:
        await channel.close()


def _mtls(files: TlsFiles, ca: bytes | None = None) -> grpc.ChannelCredentials:
    return grpc.ssl_channel_credentials(ca or files.ca, files.key, files.cert)
