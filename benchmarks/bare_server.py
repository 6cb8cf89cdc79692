"""``python -m benchmarks.bare_server PORTFILE``: the bare grpc.aio server the gateway benchmark
compares against (the standard health service, no interceptors); writes its port to PORTFILE."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


async def main(port_file: str) -> None:
    server = grpc.aio.server()
    servicer = health.aio.HealthServicer()
    await servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    Path(port_file).write_text(str(port))
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
