"""gRPC health checks (grpc.health.v1) as a function and as a probe command.

The command is what docker compose runs inside each service container (``grpc_health_probe`` is
not available offline), and what ``holdem stack status`` uses under the hood:

    python -m libs.platform.healthcheck [127.0.0.1:50051] [--service NAME] [--timeout SECONDS]

Without an address it checks the service of this environment, at its ``HOLDEM_LISTEN`` (a
wildcard host there is asked on loopback): the image's HEALTHCHECK, the same for all six
services. Exit status 0 when the service answers SERVING, 1 otherwise (the status is printed), 2
without an address to check.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping, Sequence

import grpc
from grpc_health.v1 import health_pb2

from libs.platform.clients import sync_channel
from libs.platform.tls import TlsError, TlsFiles, load_tls

__all__ = ["SERVING", "UNREACHABLE", "check", "main", "wait_serving"]

SERVING = "SERVING"
UNREACHABLE = "UNREACHABLE"


def check(
    address: str,
    service: str = "",
    timeout: float = 2.0,
    tls: TlsFiles | None = None,
    peer: str = "",
) -> str:
    """The health status of ``service`` ('' = the whole server) at ``address`` (host:port):
    SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN, or UNREACHABLE when no answer came. With
    ``tls``, over mutual TLS to a server whose certificate names ``peer``."""
    with sync_channel(address, tls, peer) as channel:
        # A plain multicallable: the HealthStub type stubs do not declare Check.
        check_rpc = channel.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        try:
            response = check_rpc(
                health_pb2.HealthCheckRequest(service=service),
                timeout=timeout,
                wait_for_ready=True,
            )
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code == grpc.StatusCode.NOT_FOUND:
                return "SERVICE_UNKNOWN"
            return UNREACHABLE
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))


def wait_serving(
    address: str,
    timeout: float,
    service: str = "",
    tls: TlsFiles | None = None,
    peer: str = "",
) -> str:
    """Poll ``check`` until SERVING or ``timeout`` seconds; return the last status."""
    deadline = time.monotonic() + timeout
    status = UNREACHABLE
    while True:
        remaining = deadline - time.monotonic()
        status = check(address, service, max(0.2, min(2.0, remaining)), tls, peer)
        if status == SERVING or time.monotonic() >= deadline:
            return status
        time.sleep(0.1)


def local_address(listen: str) -> str:
    """Where a server listening on ``listen`` is reached from the same machine: a wildcard host
    (0.0.0.0, [::], none) becomes loopback."""
    host, _, port = listen.strip().rpartition(":")
    if host in ("", "0.0.0.0", "*"):
        host = "127.0.0.1"
    elif host == "[::]":
        host = "[::1]"
    return f"{host}:{port}"


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m libs.platform.healthcheck", description="gRPC health probe"
    )
    parser.add_argument(
        "address", nargs="?", help="host:port of the gRPC server (default: from HOLDEM_LISTEN)"
    )
    parser.add_argument("--service", default="", help="service name ('' = whole server)")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds (default 2)")
    args = parser.parse_args(argv)
    address = args.address
    env = os.environ if environ is None else environ
    try:
        # a service's own TLS settings: it checks itself, so the peer is named in its own cert
        tls = load_tls(env)
    except TlsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if address is None:
        listen = env.get("HOLDEM_LISTEN", "")
        if not listen.strip():
            print("no address given and HOLDEM_LISTEN is not set", file=sys.stderr)
            return 2
        address = local_address(listen)
    status = check(address, args.service, args.timeout, tls, "" if tls is None else tls.name())
    print(f"{address}: {status}")
    return 0 if status == SERVING else 1


if __name__ == "__main__":
    sys.exit(main())
