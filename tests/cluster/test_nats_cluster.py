"""On a three-node JetStream cluster (the ``nats_cluster`` fixture): streams and buckets are
replicated three times, and a table keeps playing through the SIGKILL of a NATS node (the
leader of its stream) and the node's restart, with no commit lost or applied twice."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc
from nats.aio.client import Client as NATS

from libs.devstack import NatsCluster
from libs.devstack.tablestub import table_as
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.store import Commit
from libs.platform.natsconn import connect_nats
from libs.poker.events import HandEnded, HandVoided
from libs.table import replay
from libs.table.events import Event, HandBegan, PlayerLeft, PlayerSeated, TableClosed
from libs.tableproto.envelope import decode_commit
from tests.services.conftest import ServiceProcess, Starter

pytestmark = pytest.mark.integration

T = TypeVar("T")
STREAM = "HOLDEM_TABLES"
BUY_IN = 2000  # 1000 big blinds: bots that bust end the play, and the test needs play
CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
    max_buy_in=2000,
)


async def _with_nats(url: str, work: Callable[[NATS], Awaitable[T]]) -> T:
    nc = await connect_nats(url)
    try:
        return await work(nc)
    finally:
        await nc.close()


def _run(url: str, work: Callable[[NATS], Awaitable[T]]) -> T:
    return asyncio.run(_with_nats(url, work))


def _stream_leader(url: str, stream: str) -> str:
    async def work(nc: NATS) -> str:
        info = await nc.jetstream().stream_info(stream)
        assert info.cluster is not None and info.cluster.leader
        return str(info.cluster.leader)

    return _run(url, work)


def _replicas(url: str, stream: str) -> int:
    async def work(nc: NATS) -> int:
        info = await nc.jetstream().stream_info(stream)
        return int(info.config.num_replicas or 1)

    return _run(url, work)


def _commits(url: str, table_id: str) -> list[Commit]:
    async def work(nc: NATS) -> list[Commit]:
        return await JetStreamEventStore(nc, stream=STREAM).read(table_id)

    return _run(url, work)


def test_a_cluster_forms_and_a_killed_node_comes_back_with_its_data(
    nats_cluster: NatsCluster,
) -> None:
    async def publish_r3(nc: NATS) -> int:
        js = nc.jetstream()
        await js.add_stream(name="T", subjects=["t.>"], num_replicas=3)
        deadline = time.monotonic() + 30
        while True:  # the new stream answers once its replicas elected a leader
            try:
                return (
                    await nc.jetstream(timeout=2).publish(
                        "t.a", b"1", headers={"Nats-Msg-Id": "first"}
                    )
                ).seq
            except Exception:
                assert time.monotonic() < deadline, "the new stream never elected a leader"
                await asyncio.sleep(0.2)

    assert _run(nats_cluster.url, publish_r3) == 1
    leader = _stream_leader(nats_cluster.url, "T")
    index = int(leader.removeprefix("n"))
    nats_cluster.node(index).kill()

    async def publish_again(nc: NATS) -> int:
        deadline = time.monotonic() + 30
        while True:  # a new leader is elected among the two nodes left
            try:
                return (await nc.jetstream(timeout=2).publish("t.a", b"2")).seq
            except Exception:
                assert time.monotonic() < deadline, "no stream leader after a node died"
                await asyncio.sleep(0.2)

    assert _run(nats_cluster.url, publish_again) == 2
    nats_cluster.restart_node(index)

    async def read_from_restarted(nc: NATS) -> int:
        deadline = time.monotonic() + 30
        while True:  # the restarted node catches up from the others
            info = await nc.jetstream().stream_info("T")
            replicas = info.cluster.replicas if info.cluster else []
            if info.state.messages == 2 and replicas and all(r.current for r in replicas):
                return info.state.messages
            assert time.monotonic() < deadline, "the restarted node did not catch up"
            await asyncio.sleep(0.2)

    only_restarted = nats_cluster.node(index).url
    assert _run(only_restarted, read_from_restarted) == 2


def _table(start: Starter, cluster: NatsCluster, redis_url: str) -> ServiceProcess:
    return start(
        "table",
        {
            "HOLDEM_NATS_URL": cluster.url,
            "HOLDEM_NATS_REPLICAS": "3",
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
        },
    )


def _sequence(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> tuple[int, bool]:
    """The table's sequence and whether its play is over: closed, or fewer than two players
    with chips between hands (bots bust; then nothing more happens). (0, False) while
    unreachable."""
    try:
        view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id), timeout=5).view
    except grpc.RpcError:
        return 0, False
    closed = view.table_status == common_pb2.TABLE_STATUS_CLOSED
    with_chips = sum(1 for seat in view.seats if seat.player_id and seat.stack)
    return view.sequence, closed or (with_chips < 2 and not view.pots)


def _describe(url: str, table_id: str) -> str:
    """What the table's stream says about it: for a test that found it standing still."""
    from libs.table.automation import next_due

    commits = _commits(url, table_id)
    state = replay([e for c in commits for e in decode_commit(c.data)[1]])
    seats = {n: (seat.player_id, seat.stack) for n, seat in state.seats.items()}
    return (
        f"{len(commits)} commits, last {commits[-1].msg_id if commits else None}; hands "
        f"{state.hands_started}, in progress {state.hand_in_progress}, seats {seats}, "
        f"due {next_due(state, time.time())}"
    )


def _close(stub: table_pb2_grpc.TableServiceStub, table_id: str) -> bool:
    """Ask the table to close (idempotent, so it may be asked again); whether it is closed."""
    with contextlib.suppress(grpc.RpcError):
        stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id, idempotency_key="close", close_table=table_pb2.CloseTable()
            ),
            timeout=10,
        )
    try:
        view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table_id), timeout=5).view
    except grpc.RpcError:
        return False
    return view.table_status == common_pb2.TABLE_STATUS_CLOSED


def _wait(what: str, condition: Callable[[], bool], timeout: float = 60.0) -> float:
    """Wait until ``condition()`` is true; the seconds it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, f"timed out waiting for {what}"
        time.sleep(0.05)
    return time.monotonic() - started


def test_a_table_plays_on_through_a_nats_node_killed_and_restarted(
    start: Starter, nats_cluster: NatsCluster, redis_url: str
) -> None:
    bots = 4
    table = _table(start, nats_cluster, redis_url)
    assert _replicas(nats_cluster.url, STREAM) == 3
    table_id = f"c{uuid.uuid4().hex[:8]}"
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    with table_as(table.address) as stub:
        stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=table_id,
                idempotency_key="open",
                open_table=table_pb2.OpenTable(config=config),
            )
        )
        for i in range(bots):
            stub.SubmitCommand(
                table_pb2.SubmitCommandRequest(
                    table_id=table_id,
                    idempotency_key=f"bot-{i}",
                    seat_player=table_pb2.SeatPlayer(
                        player_id=f"bot{i}", seat=i, buy_in=BUY_IN, is_bot=True
                    ),
                )
            )
        _wait("the bots to play", lambda: _sequence(stub, table_id)[0] >= 60)
        # mid-play: kill a follower of the table stream, then its leader (which costs an
        # election), restarting each
        for role in ("follower", "leader"):
            leader = int(_stream_leader(nats_cluster.url, STREAM).removeprefix("n"))
            victim = leader if role == "leader" else (leader + 1) % 3
            nats_cluster.node(victim).kill()
            at_kill = _sequence(stub, table_id)[0]
            took = _wait(
                f"play to go on without the {role}",
                lambda at=at_kill: (
                    _sequence(stub, table_id)[0] >= at + 20  # type: ignore[misc]
                    or _sequence(stub, table_id)[1]
                ),
            )
            print(f"play went on {took:.2f}s after the stream's {role} n{victim} was killed")
            assert not _sequence(stub, table_id)[1], "play was over before the kill"
            nats_cluster.restart_node(victim)
        # play goes on with all three nodes back; then the table is closed (a hand limit could
        # never be reached once bots bust, and busting is up to the cards)
        at_restart = _sequence(stub, table_id)[0]
        try:
            _wait(
                "play to go on after the restarts",
                lambda: (
                    _sequence(stub, table_id)[0] >= at_restart + 20 or _sequence(stub, table_id)[1]
                ),
                timeout=120,
            )
        except AssertionError:
            print(_describe(nats_cluster.url, table_id))
            raise
        _wait("the table to close", lambda: _close(stub, table_id), timeout=120)

    commits = _commits(nats_cluster.url, table_id)
    assert not [k for k, n in Counter(c.msg_id for c in commits).items() if n > 1]
    previous = 0
    events: list[Event] = []
    for commit in commits:  # each commit was appended on top of the one before it
        assert commit.headers.get("Nats-Expected-Last-Subject-Sequence") == str(previous)
        previous = commit.sequence
        events.extend(decode_commit(commit.data)[1])
    state = replay(events)
    assert state.closed
    began = sum(isinstance(e, HandBegan) for e in events)
    assert began > 0
    assert sum(isinstance(e, (HandEnded, HandVoided)) for e in events) == began
    seated = sum(e.stack for e in events if isinstance(e, PlayerSeated))
    left = sum(e.stack for e in events if isinstance(e, PlayerLeft))
    closed = sum(stack for e in events if isinstance(e, TableClosed) for _, _, stack in e.stacks)
    assert seated == left + closed == BUY_IN * bots
