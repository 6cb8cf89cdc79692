"""What the platform's server (``libs.platform.server.start_server``: logging, metrics, error
mapping, identity, validation, a caller limit) adds to a trivial unary call: p50 of a health
Check and of a one-line ``Echo`` through it, against a health Check of a bare grpc.aio server
(``benchmarks.bare_server``), each in its own process, the three calls alternating one client's
calls in the same run (a noisy machine slows all three alike).

``python -m benchmarks.server --serve PORTFILE`` runs the platform's server alone (logs at info,
JSON, to stderr, as a service's).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import Result
from libs.devstack.programs import Program, port_file_written

NAME = "server"
DESCRIPTION = "a trivial unary call through the platform's server vs a bare grpc.aio server"
ECHO_SERVICE = "holdem.bench.Echo"
ECHO_METHOD = f"/{ECHO_SERVICE}/Echo"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--calls", type=int, default=5000, help="timed calls of each kind")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def _serve(port_file: str) -> None:
    """The platform's server with one registered bytes-in, bytes-out method, as generated code
    registers its methods (a generic handler and the registered ones)."""
    import grpc

    from libs.platform.logging import configure_logging
    from libs.platform.server import Endpoint, start_server

    configure_logging("bench", "info", "json")

    async def echo(request: bytes, context: Any) -> bytes:
        return request

    handlers: dict[str, grpc.RpcMethodHandler[bytes, bytes]] = {
        "Echo": grpc.unary_unary_rpc_method_handler(echo)
    }

    def add(server: grpc.aio.Server) -> None:
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(ECHO_SERVICE, handlers),)
        )
        server.add_registered_method_handlers(ECHO_SERVICE, handlers)

    running = await start_server(
        "127.0.0.1:0", [Endpoint(ECHO_SERVICE, add)], max_calls_per_caller=100
    )
    Path(port_file).write_text(str(running.port))
    await running.server.wait_for_termination()


async def _measure(platform: str, bare: str, calls: int) -> dict[str, float]:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with (
        grpc.aio.insecure_channel(platform) as pch,
        grpc.aio.insecure_channel(bare) as bch,
    ):
        platform_health = health_pb2_grpc.HealthStub(pch)
        bare_health = health_pb2_grpc.HealthStub(bch)
        echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = pch.unary_unary(ECHO_METHOD)
        check = health_pb2.HealthCheckRequest()
        kinds: dict[str, Any] = {
            "bare_check": lambda: bare_health.Check(check),  # type: ignore[attr-defined]
            "platform_check": lambda: platform_health.Check(check),  # type: ignore[attr-defined]
            "platform_echo": lambda: echo(b"x"),
        }
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(200):  # warm up every path
            for call in kinds.values():
                await call()
        for _ in range(calls):
            for kind, call in kinds.items():
                started = time.perf_counter()
                await call()
                times[kind].append(time.perf_counter() - started)
    return {kind: _percentile(values, 0.5) * 1000 for kind, values in times.items()} | {
        f"{kind}_p99": _percentile(values, 0.99) * 1000 for kind, values in times.items()
    }


def _start(command: list[str], port_file: Path, log: Path) -> Program:
    """``command`` started, once it has written its port to ``port_file``."""
    return Program(port_file.name, command, log, ready=port_file_written(port_file)).start()


def run(args: argparse.Namespace) -> list[Result]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        procs = [
            _start(
                [sys.executable, "-m", "benchmarks.server", "--serve", str(root / "platform")],
                root / "platform",
                root / "platform.log",
            ),
            _start(
                [sys.executable, "-m", "benchmarks.bare_server", str(root / "bare")],
                root / "bare",
                root / "bare.log",
            ),
        ]
        try:
            p50 = asyncio.run(
                _measure(
                    f"127.0.0.1:{(root / 'platform').read_text()}",
                    f"127.0.0.1:{(root / 'bare').read_text()}",
                    args.calls,
                )
            )
        finally:
            for proc in procs:
                proc.stop(10)
    print(
        f"[server] {args.calls} calls each, p50 (p99) ms: bare Check {p50['bare_check']:.3f}"
        f" ({p50['bare_check_p99']:.3f}) | platform Check {p50['platform_check']:.3f}"
        f" ({p50['platform_check_p99']:.3f}) | platform Echo {p50['platform_echo']:.3f}"
        f" ({p50['platform_echo_p99']:.3f}) | Check above bare"
        f" {p50['platform_check'] - p50['bare_check']:.3f}, Echo above bare"
        f" {p50['platform_echo'] - p50['bare_check']:.3f}",
        file=sys.stderr,
    )
    return [
        Result(
            "server health Check (1/p50)",
            1000 / p50["platform_check"],
            "bare grpc.aio",
            1000 / p50["bare_check"],
        ),
        Result(
            "server Echo (1/p50)",
            1000 / p50["platform_echo"],
            "bare grpc.aio",
            1000 / p50["bare_check"],
        ),
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.server")
    parser.add_argument("--serve", metavar="PORTFILE", required=True)
    asyncio.run(_serve(parser.parse_args().serve))
