"""The gateway's Act round trip: client -> gateway (token check, rate limit) -> table service
(decide, guarded JetStream append, the public projection) -> back, with the actor's view. Real
processes: nats-server, redis-server, the table service (in-process dealer and evaluator) and the
gateway (plus a lobby, which Act calls only to learn a player's display name, once).

Each client owns a heads-up table and plays both seats (check or call, show at showdown): every
Act is a real decision that commits. Measured with 1 and ``--clients`` concurrent clients for
``--seconds`` each: Act p50 and p99 and actions/s, beside a bare grpc.aio unary call (the health
Check of a server with no interceptors, in another process) at the same concurrency in the same
run, and the ratio of the p50s (target: at most 3x).

Beside them, the floor of an Act's design in Python, in the same run: a call through two bare
grpc.aio processes (a relay, as the gateway, then a sink, as the table) whose second one appends
the request to JetStream as the table appends a commit (expected sequence, message id) and
answers once it is acknowledged (``benchmarks.bare_server``). An Act cannot cost less than that;
what it costs above it is the services' own work (interceptors, token, deciding, the view).

And the same Act over Connect (binary, one keep-alive HTTP/1.1 connection per client, as a
browser) on the gateway's HTTP port, beside Act over gRPC: p50, p99, actions/s and the ratio of the
p50s (Connect / gRPC).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks import Result
from benchmarks.bare_server import FLOOR_METHOD
from benchmarks.gateway_parts import clients_for, format_rows, percentile
from benchmarks.httpclient import KeepAlive
from libs.devstack import ServiceProcess, service_env, start_nats, start_redis
from libs.devstack.identity import aio_channel_as
from libs.devstack.processes import free_port
from libs.devstack.programs import Program, port_file_written
from libs.devstack.tablestub import aio_table_stub

NAME = "gateway"
DESCRIPTION = "Act round trip through the gateway (p50/p99, actions/s) vs a bare grpc.aio call"
KEYS = "bench:" + base64.b64encode(b"b" * 32).decode()
LOCAL = {"HOLDEM_TABLE_DEALER": "local", "HOLDEM_TABLE_EVALUATOR": "local"}
ACT_PATH = "/holdem.gateway.v1.GatewayService/Act"
COMMIT_BYTES = 600  # about an Act's commit (its events as JSON in the envelope)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (and tables)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per run")


def _log(message: str) -> None:
    print(f"[gateway] {message}", file=sys.stderr)


async def _measure(
    gateway: str,
    table: str,
    bare: str,
    floor: str,
    clients: int,
    seconds: float,
    http: int,
    pids: dict[str, int],
) -> list[Any]:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from holdem.common.v1 import common_pb2
    from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
    from holdem.table.v1 import table_pb2

    from libs.auth import KeyRing, issue_for

    ring = KeyRing.parse(KEYS)
    config = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
        max_seats=2,
        small_blind=1,
        big_blind=2,
        max_buy_in=1_000_000,
        min_buy_in=40,
    )
    gch = grpc.aio.insecure_channel(gateway)
    tch = aio_channel_as(table, "gateway")  # per-viewer views are the gateway's
    tools = aio_channel_as(table)  # seats: chips reach a table only from the lobby or tools
    bch = grpc.aio.insecure_channel(bare)
    fch = grpc.aio.insecure_channel(floor)
    hop: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = fch.unary_unary(FLOOR_METHOD)
    gw = gateway_pb2_grpc.GatewayServiceStub(gch)
    tb = aio_table_stub(tools, tch)
    health = health_pb2_grpc.HealthStub(bch)

    def token(player: str) -> tuple[tuple[str, str], ...]:
        text = issue_for(ring, player, now=time.time(), ttl_seconds=3600)
        return (("authorization", f"Bearer {text}"),)

    async def act_client(
        index: int, direct: bool = False, connect: bool = False
    ) -> Callable[[], Awaitable[None]]:
        conn = KeepAlive("127.0.0.1", http) if connect else None
        table_id = f"bench{uuid.uuid4().hex[:10]}"
        await tb.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key="open",
                open_table=table_pb2.OpenTable(config=config),
            )
        )
        players = [f"b{index}x{uuid.uuid4().hex[:6]}", f"b{index}y{uuid.uuid4().hex[:6]}"]
        auth = {p: token(p) for p in players}
        connect_auth = {p: {**dict(auth[p]), "content-type": "application/proto"} for p in players}
        for player in players:
            await tb.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id=table_id,
                    idempotency_key=f"seat-{player}",
                    seat_player=table_pb2.SeatPlayer(player_id=player, buy_in=1_000_000),
                )
            )
        state: dict[str, Any] = {"view": None}

        async def current() -> Any:
            """The table once somebody is to act (the table deals, or starts the next hand, after
            the Act that made it due has been answered): asked again after 1, 2, then 4 ms, as a
            client waiting for its next update (50 clients asking every millisecond would load
            the table more than their Acts)."""
            pause = 0.001
            while True:
                view = (
                    await tb.GetPlayerView(table_pb2.GetPlayerViewRequest(table_id=table_id))
                ).view
                if view.HasField("acting_seat"):
                    return view
                await asyncio.sleep(pause)
                pause = min(2 * pause, 0.004)

        async def step() -> None:
            view = state["view"]
            if view is None or not view.HasField("acting_seat"):
                view = await current()  # untimed: between streets and hands
            seat = next(s for s in view.seats if s.seat == view.acting_seat)
            player = seat.player_id
            mine = view if view.viewer_player_id == player else None
            if mine is None:
                mine = (
                    await tb.GetPlayerView(
                        table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=player)
                    )
                ).view
            key = uuid.uuid4().hex
            if mine.HasField("showdown"):  # a showdown turn
                await gw.Show(
                    gateway_pb2.ShowRequest(table_id=table_id, idempotency_key=key),
                    metadata=auth[player],
                )
                state["view"] = None
                return
            action = (
                common_pb2.ACTION_TYPE_CHECK
                if mine.legal_actions.can_check
                else common_pb2.ACTION_TYPE_CALL
            )
            started = time.perf_counter()
            if direct:  # the table alone, for the breakdown
                response: Any = await tb.SubmitAction(
                    table_pb2.SubmitActionRequest(
                        table_id=table_id,
                        hand_id=mine.hand_id,
                        player_id=player,
                        action=action,
                        idempotency_key=key,
                    )
                )
                table_times.append(time.perf_counter() - started)
            elif conn is not None:  # the same Act over Connect, on the gateway's HTTP port
                request = gateway_pb2.ActRequest(
                    table_id=table_id, hand_id=mine.hand_id, action=action, idempotency_key=key
                )
                body = await conn.post(ACT_PATH, request.SerializeToString(), connect_auth[player])
                response = gateway_pb2.ActResponse.FromString(body)
                connect_times.append(time.perf_counter() - started)
            else:
                response = await gw.Act(
                    gateway_pb2.ActRequest(
                        table_id=table_id, hand_id=mine.hand_id, action=action, idempotency_key=key
                    ),
                    metadata=auth[player],
                )
                act_times.append(time.perf_counter() - started)
            state["view"] = response.view

        return step

    async def bare_client(index: int) -> Callable[[], Awaitable[None]]:
        async def step() -> None:
            started = time.perf_counter()
            await health.Check(health_pb2.HealthCheckRequest())  # type: ignore[attr-defined]
            bare_times.append(time.perf_counter() - started)

        return step

    async def floor_client(index: int) -> Callable[[], Awaitable[None]]:
        request = f"floor{index}x{uuid.uuid4().hex[:8]}".ljust(32).encode() + b"c" * COMMIT_BYTES

        async def step() -> None:
            started = time.perf_counter()
            await hop(request)
            floor_times.append(time.perf_counter() - started)

        return step

    rows = []
    for count in sorted({1, clients}):
        act_times: list[float] = []
        bare_times: list[float] = []
        table_times: list[float] = []
        floor_times: list[float] = []
        connect_times: list[float] = []
        cpu: dict[str, float] = {}
        _, elapsed = await clients_for(count, seconds, act_client, cpu, pids)
        acts = list(act_times)
        _, connect_elapsed = await clients_for(
            count, seconds, lambda i: act_client(i, connect=True)
        )
        await clients_for(count, min(seconds, 5.0), lambda i: act_client(i, direct=True))
        _, bare_elapsed = await clients_for(count, min(seconds, 5.0), bare_client)
        await clients_for(count, min(seconds, 5.0), floor_client)
        row = {
            "clients": count,
            "act_p50_ms": percentile(acts, 0.5) * 1000,
            "act_p99_ms": percentile(acts, 0.99) * 1000,
            "acts_per_s": len(acts) / elapsed,
            "bare_p50_ms": percentile(bare_times, 0.5) * 1000,
            "bare_p99_ms": percentile(bare_times, 0.99) * 1000,
            "bare_per_s": len(bare_times) / bare_elapsed,
            "table_p50_ms": percentile(table_times, 0.5) * 1000,
            "floor_p50_ms": percentile(floor_times, 0.5) * 1000,
            "floor_p99_ms": percentile(floor_times, 0.99) * 1000,
            "connect_p50_ms": percentile(connect_times, 0.5) * 1000,
            "connect_p99_ms": percentile(connect_times, 0.99) * 1000,
            "connect_per_s": len(connect_times) / connect_elapsed,
            # CPU milliseconds per Act of each process (also the untimed reads between streets)
            **{
                f"cpu_ms_per_act_{name}": 1000 * used / max(1, len(acts))
                for name, used in cpu.items()
            },
        }
        row["connect_ratio"] = row["connect_p50_ms"] / row["act_p50_ms"] if acts else 0.0
        row["p50_ratio"] = row["act_p50_ms"] / row["bare_p50_ms"] if row["bare_p50_ms"] else 0.0
        row["floor_ratio"] = row["floor_p50_ms"] / row["bare_p50_ms"] if row["bare_p50_ms"] else 0.0
        rows.append(row)
        _log(
            f"{count:>3} clients: Act p50 {row['act_p50_ms']:.2f} ms p99 {row['act_p99_ms']:.2f} ms"
            f" {row['acts_per_s']:.0f}/s | bare p50 {row['bare_p50_ms']:.2f} ms"
            f" p99 {row['bare_p99_ms']:.2f} ms {row['bare_per_s']:.0f}/s"
            f" | Act/bare at p50 {row['p50_ratio']:.1f}x"
            f" | table SubmitAction alone p50 {row['table_p50_ms']:.2f} ms"
            f" | floor (2 bare hops + 1 append) p50 {row['floor_p50_ms']:.2f} ms"
            f" p99 {row['floor_p99_ms']:.2f} ms = {row['floor_ratio']:.1f}x bare"
            f" | Act over Connect p50 {row['connect_p50_ms']:.2f} ms"
            f" p99 {row['connect_p99_ms']:.2f} ms {row['connect_per_s']:.0f}/s"
            f" = {row['connect_ratio']:.2f}x Act over gRPC"
            f" | CPU ms per Act: gateway {row['cpu_ms_per_act_gateway']:.2f},"
            f" table {row['cpu_ms_per_act_table']:.2f}, nats {row['cpu_ms_per_act_nats']:.2f}"
        )
    for channel in (gch, tch, tools, bch, fch):
        await channel.close()
    return rows


def _bare_server(port_file: Path, procs: list[Program], *options: str) -> str:
    """Start ``benchmarks.bare_server`` with ``options`` (kept in ``procs``); its address."""
    argv = [sys.executable, "-m", "benchmarks.bare_server", str(port_file), *options]
    log = port_file.with_suffix(".log")
    procs.append(Program(port_file.stem, argv, log, ready=port_file_written(port_file)))
    procs[-1].start()
    return f"127.0.0.1:{port_file.read_text()}"


def run(args: argparse.Namespace) -> list[Result]:
    with (
        start_nats() as nats_server,
        start_redis() as redis_server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        logs = Path(tmp)
        base = {
            "HOLDEM_NATS_URL": nats_server.url,
            "HOLDEM_REDIS_URL": redis_server.url,
            "HOLDEM_TOKEN_KEYS": KEYS,
        }
        started: list[ServiceProcess] = []
        http_port = free_port()
        bare_procs: list[Program] = []
        try:
            table = ServiceProcess(
                "table",
                logs / "table.log",
                env=service_env(extra={**base, **LOCAL}),
            ).spawn()
            started.append(table.wait_serving())
            lobby = ServiceProcess(
                "lobby",
                logs / "lobby.log",
                env=service_env(extra={**base, "HOLDEM_TABLE_ADDR": table.address}),
            ).spawn()
            started.append(lobby.wait_serving())
            gateway = ServiceProcess(
                "gateway",
                logs / "gateway.log",
                env=service_env(
                    extra={
                        **base,
                        "HOLDEM_TABLE_ADDR": table.address,
                        "HOLDEM_LOBBY_ADDR": lobby.address,
                        "HOLDEM_GATEWAY_RATE_PER_SECOND": "100000",
                        "HOLDEM_GATEWAY_RATE_BURST": "100000",
                        "HOLDEM_GATEWAY_HTTP_LISTEN": f"127.0.0.1:{http_port}",
                    }
                ),
            ).spawn()
            started.append(gateway.wait_serving())
            bare = _bare_server(logs / "bare.port", bare_procs)
            sink = _bare_server(logs / "sink.port", bare_procs, "--nats", nats_server.url)
            relay = _bare_server(logs / "relay.port", bare_procs, "--next", sink)
            rows = asyncio.run(
                _measure(
                    gateway.address,
                    table.address,
                    bare,
                    relay,
                    args.clients,
                    args.seconds,
                    http_port,
                    {"gateway": gateway.pid, "table": table.pid, "nats": nats_server.pid},
                )
            )
        finally:
            for proc in reversed(bare_procs):
                proc.stop(10)
            for process in reversed(started):
                process.stop()
    print(format_rows(rows))
    return [
        Result(
            f"gateway Act, {int(r['clients'])} clients",
            r["acts_per_s"],
            "bare grpc.aio",
            r["bare_per_s"],
        )
        for r in rows
    ] + [
        Result(
            f"gateway Act over Connect, {int(r['clients'])} clients",
            r["connect_per_s"],
            "Act over gRPC",
            r["acts_per_s"],
        )
        for r in rows
    ]
