"""A slow client never slows the table: a WatchTable stream that stops reading while bots play
on falls behind its bounded buffer, ends with ABORTED (code FELL_BEHIND, saying where to resume),
and resumes; the table plays every hand meanwhile."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import CONFIG, KEYS, GatewayStack, bearer, gateway_stack
from tests.services.conftest import start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

HANDS = 40


def test_a_stream_that_stops_reading_ends_and_resumes_while_the_table_plays_on(
    gateway_stack: GatewayStack, tmp_path: Path
) -> None:
    stack = gateway_stack
    small = start_service(
        "gateway",
        tmp_path,
        {
            "HOLDEM_NATS_URL": stack.nats_url,
            "HOLDEM_TOKEN_KEYS": KEYS,
            "HOLDEM_LOBBY_ADDR": stack.lobby.address,
            "HOLDEM_TABLE_ADDR": stack.table.address,
            "HOLDEM_GATEWAY_WATCH_BUFFER": "8",
        },
    )
    try:
        config = common_pb2.TableConfig()
        config.CopyFrom(CONFIG)
        config.hand_limit = HANDS
        table_id = stack.open_table(config)
        token = stack.token("slowpoke")
        # The client's HTTP/2 window stays at its 64 KiB (no bandwidth probing to grow it), so
        # the updates of 40 hands cannot all sit in flight: the gateway's writes block and its
        # buffer of 8 overflows. A deadline bounds the stream whatever happens.
        options = [("grpc.http2.bdp_probe", 0)]
        with grpc.insecure_channel(small.address, options=options) as channel:
            gw = stack.gateway_stub(channel)
            stream = gw.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id),
                metadata=bearer(token),
                timeout=300,
            )
            first = next(stream)  # the snapshot; then the client stops reading
            for bot in ("b1", "b2", "b3"):
                stack.seat(table_id, bot, 200, bot=True)
            deadline = time.monotonic() + 240
            while stack.view(table_id).table_status != common_pb2.TABLE_STATUS_CLOSED:
                assert time.monotonic() < deadline, "the table did not play its hands"
                time.sleep(0.2)
            received = [first]
            with pytest.raises(grpc.RpcError) as ended:
                for update in stream:
                    received.append(update)
            assert ended.value.code() == grpc.StatusCode.ABORTED
            trailing: dict[str, str] = dict(ended.value.trailing_metadata() or ())  # type: ignore[arg-type]
            assert trailing.get("x-error-code") == "FELL_BEHIND"
            last = received[-1].sequence
            assert f"from_sequence={last}" in (ended.value.details() or "")
            # resume: a snapshot (too far behind for the buffer) or exactly what followed
            again = gw.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=last),
                metadata=bearer(token),
            )
            resumed = next(again)
            again.cancel()
            assert resumed.HasField("snapshot") or resumed.previous == last
    finally:
        small.kill()
