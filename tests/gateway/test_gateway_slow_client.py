"""A slow client never slows the table: a WatchTable stream that stops reading while bots play
on falls behind its bounded buffer, ends with ABORTED (code FELL_BEHIND, saying where to resume),
and resumes; the table plays every hand meanwhile. A stream that did not fall behind ends when
its table closes, whether its client read along or only read at the end; a stream of a closed
table ends once it has given what the table has. No read here waits more than a bounded time:
a stream that stays open fails its test saying what it gave."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import CONFIG, KEYS, GatewayStack, bearer, drain, gateway_stack
from tests.services.conftest import ServiceProcess, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

HANDS = 40
#: How long a stream may take to end once the table it follows has closed (it needs none of it).
END_SECONDS = 60
HEADS_UP = ("b1", "b2")


def small_gateway(stack: GatewayStack, tmp_path: Path, buffer: int) -> ServiceProcess:
    return start_service(
        "gateway",
        tmp_path,
        {
            "HOLDEM_NATS_URL": stack.nats_url,
            "HOLDEM_TOKEN_KEYS": KEYS,
            "HOLDEM_LOBBY_ADDR": stack.lobby.address,
            "HOLDEM_TABLE_ADDR": stack.table.address,
            "HOLDEM_GATEWAY_WATCH_BUFFER": str(buffer),
        },
    )


def play_until_closed(
    stack: GatewayStack, table_id: str, bots: tuple[str, ...] = ("b1", "b2", "b3")
) -> None:
    for bot in bots:
        stack.seat(table_id, bot, 200, bot=True)
    deadline = time.monotonic() + 240
    while stack.view(table_id).table_status != common_pb2.TABLE_STATUS_CLOSED:
        assert time.monotonic() < deadline, "the table did not play its hands"
        time.sleep(0.2)


def test_a_stream_that_stops_reading_ends_and_resumes_while_the_table_plays_on(
    gateway_stack: GatewayStack, tmp_path: Path
) -> None:
    stack = gateway_stack
    small = small_gateway(stack, tmp_path, 8)
    try:
        config = common_pb2.TableConfig()
        config.CopyFrom(CONFIG)
        config.hand_limit = HANDS
        table_id = stack.open_table(config)
        token = stack.token("slowpoke")
        # The client's HTTP/2 window is 1 KiB and stays so (no bandwidth probing to grow it): a
        # few updates fill it, the gateway's writes block and its buffer of 8 overflows. (With
        # the default 64 KiB window a table whose 40 hands made few bytes, hands folded early
        # and views left out of bursts on a loaded machine, could sit in flight whole: nothing
        # overflowed, and the stream, which then did not end when the table closed, waited.)
        # A deadline bounds the stream whatever happens.
        options = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]
        with grpc.insecure_channel(small.address, options=options) as channel:
            gw = stack.gateway_stub(channel)
            stream = gw.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id),
                metadata=bearer(token),
                timeout=300,
            )
            first = next(stream)  # the snapshot; then the client stops reading
            play_until_closed(stack, table_id)
            drained = drain(stream, END_SECONDS, "a client that stopped reading")
            ended = drained.error
            assert ended is not None, f"the stream did not fall behind: {drained.describe()}"
            assert ended.code() == grpc.StatusCode.ABORTED, drained.describe()
            trailing: dict[str, str] = dict(ended.trailing_metadata() or ())  # type: ignore[arg-type]
            assert trailing.get("x-error-code") == "FELL_BEHIND"
            received = [first, *drained.updates]
            last = received[-1].sequence
            assert f"from_sequence={last}" in (ended.details() or "")
            # resume: a snapshot (too far behind for the buffer) or exactly what followed
            again = gw.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=last),
                metadata=bearer(token),
            )
            resumed = drain(again, END_SECONDS, "a stream resumed after the table closed")
            assert resumed.error is None, resumed.describe()
            assert resumed.updates, resumed.describe()
            assert resumed.updates[0].HasField("snapshot") or resumed.updates[0].previous == last
            assert resumed.updates[-1].view.table_status == common_pb2.TABLE_STATUS_CLOSED
    finally:
        small.kill()


@pytest.mark.parametrize("reading", [True, False], ids=["reading", "reading-at-the-end"])
def test_a_stream_that_did_not_fall_behind_ends_when_its_table_closes(
    gateway_stack: GatewayStack, tmp_path: Path, reading: bool
) -> None:
    """The hang the slow-client test once met, made certain: a buffer no table of a few hands
    overflows, so the stream never falls behind, and it must end by itself at the close (it
    waited for a commit that never came, up to its deadline)."""
    stack = gateway_stack
    small = small_gateway(stack, tmp_path, 100_000)
    try:
        config = common_pb2.TableConfig()
        config.CopyFrom(CONFIG)
        config.hand_limit = 5
        table_id = stack.open_table(config)
        token = stack.token("watcher")
        with grpc.insecure_channel(small.address) as channel:
            gw = stack.gateway_stub(channel)
            stream = gw.WatchTable(
                gateway_pb2.WatchTableRequest(table_id=table_id),
                metadata=bearer(token),
                timeout=300,
            )
            first = next(stream)
            # two bots: the hands start at the second, and a few of them may be over before a
            # third could sit down
            if reading:
                for bot in HEADS_UP:
                    stack.seat(table_id, bot, 200, bot=True)
                drained = drain(stream, 120, "a stream of a table playing to its close")
            else:
                play_until_closed(stack, table_id, HEADS_UP)
                drained = drain(stream, END_SECONDS, "a stream of a table that closed")
            assert drained.error is None, drained.describe()
            updates = [first, *drained.updates]
            for before, after in itertools.pairwise(updates):
                assert after.previous == before.sequence  # every commit, once, in order
            final = stack.view(table_id)
            assert final.table_status == common_pb2.TABLE_STATUS_CLOSED
            assert updates[-1].sequence == final.sequence
            assert updates[-1].view.table_status == common_pb2.TABLE_STATUS_CLOSED
            assert any(r.type == "TableClosed" for r in updates[-1].commit.recorded)

            # a closed table's stream: its snapshot, then the end; resumed at its last commit,
            # nothing (nothing is after it), then the end
            again = drain(
                gw.WatchTable(
                    gateway_pb2.WatchTableRequest(table_id=table_id),
                    metadata=bearer(token),
                    timeout=300,
                ),
                END_SECONDS,
                "a stream of a closed table",
            )
            assert again.error is None, again.describe()
            assert [u.HasField("snapshot") for u in again.updates] == [True]
            assert again.updates[0].sequence == final.sequence
            resumed = drain(
                gw.WatchTable(
                    gateway_pb2.WatchTableRequest(table_id=table_id, from_sequence=final.sequence),
                    metadata=bearer(token),
                    timeout=300,
                ),
                END_SECONDS,
                "a stream of a closed table resumed at its last commit",
            )
            assert resumed.error is None and resumed.updates == [], resumed.describe()
    finally:
        small.kill()
