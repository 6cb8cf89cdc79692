"""A stand-in service for testing the stack machinery: gRPC health + reflection on
$HOLDEM_LISTEN, SERVING once every agreed HOLDEM_* variable is set, graceful exit on SIGTERM.

Run as ``python tests/stack/fake_service.py NAME``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent import futures
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

# The addresses it insists on: every service's, unless FAKE_PEERS names fewer.
PEERS = os.environ.get("FAKE_PEERS", "gateway,lobby,table,dealer,evaluator,ai").split(",")
REQUIRED = [
    "HOLDEM_LISTEN",
    "HOLDEM_NATS_URL",
    "HOLDEM_REDIS_URL",
    "HOLDEM_LOG_LEVEL",
    "HOLDEM_LOG_FORMAT",
    *(f"HOLDEM_{n.upper()}_ADDR" for n in PEERS),
]


def main() -> int:
    name = sys.argv[1]
    missing = [v for v in REQUIRED if not os.environ.get(v)]
    if missing:
        print(f"{name}: missing env {missing}", flush=True)
        return 2
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    reflection.enable_server_reflection(
        (health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    server.add_insecure_port(os.environ["HOLDEM_LISTEN"])
    server.start()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    print(f"{name}: listening on {os.environ['HOLDEM_LISTEN']}", flush=True)
    stop = threading.Event()

    def on_term(signum: int, frame: FrameType | None) -> None:
        if not os.environ.get("FAKE_IGNORE_SIGTERM"):  # to test the SIGKILL fallback
            stop.set()

    signal.signal(signal.SIGTERM, on_term)
    stop.wait()
    server.stop(grace=2).wait()
    print(f"{name}: stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
