"""``python -m benchmarks.bare_server PORTFILE [--next ADDR] [--nats URL]``: the bare grpc.aio
servers the gateway benchmark compares against (no interceptors, no checks); writes its port to
PORTFILE.

Every one serves the standard health service (the bare unary call). ``Floor/Hop`` (raw bytes)
models the least an Act can cost with its two process hops and one durable append: with
``--next`` the server passes the request on to the next server and answers with its answer (the
gateway's hop); with ``--nats`` it appends the request to a JetStream stream, guarded by the
expected last sequence of its subject and a message id, as the table appends a commit, and
answers once JetStream acknowledged it (the table's hop).
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

FLOOR_METHOD = "/holdem.bench.Floor/Hop"
FLOOR_STREAM = "BENCHFLOOR"


async def _sink(nats_url: str) -> Any:
    """A behaviour appending each request (its first 32 bytes name the stream) to JetStream."""
    from libs.eventstore.jetstream import JetStreamEventStore
    from libs.platform.natsconn import connect_nats

    nc = await connect_nats(nats_url, name="bench-floor")
    events = JetStreamEventStore(nc, stream=FLOOR_STREAM, subject_prefix="bench.floor")
    await events.ensure_stream()
    last: dict[str, int] = {}

    async def append(request: bytes, context: Any) -> bytes:
        stream_id = request[:32].decode().strip() or "floor"
        result = await events.append(
            stream_id, request, expected_last=last.get(stream_id, 0), msg_id=uuid.uuid4().hex
        )
        last[stream_id] = result.sequence
        return request[:32]

    return append


def _relay(address: str) -> Any:
    """A behaviour passing each request on to ``address`` (one channel, no interceptors)."""
    channel = grpc.aio.insecure_channel(address)
    call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(FLOOR_METHOD)

    async def relay(request: bytes, context: Any) -> bytes:
        answer: bytes = await call(request)
        return answer

    return relay


async def main(port_file: str, next_hop: str | None, nats_url: str | None) -> None:
    server = grpc.aio.server()
    servicer = health.aio.HealthServicer()
    await servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    behaviour = None
    if next_hop:
        behaviour = _relay(next_hop)
    elif nats_url:
        behaviour = await _sink(nats_url)
    if behaviour is not None:
        service, method = FLOOR_METHOD.lstrip("/").split("/")
        handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.unary_unary_rpc_method_handler(
            behaviour
        )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, {method: handler}),)
        )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    Path(port_file).write_text(str(port))
    await server.wait_for_termination()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bare_server")
    parser.add_argument("port_file")
    parser.add_argument("--next", dest="next_hop", help="pass Floor/Hop calls on to ADDR")
    parser.add_argument("--nats", help="append Floor/Hop calls to JetStream at URL")
    args = parser.parse_args()
    asyncio.run(main(args.port_file, args.next_hop, args.nats))
