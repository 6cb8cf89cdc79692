"""The durable public projection (HOLDEM_PUBLIC) of a table served by a real table-service
process that is SIGKILLed again and again while bots play, some kills falling between a commit's
append and its publication: in the end the projection holds every commit of the table's stream
exactly once, in order, each naming the commit before it, and never a hidden card."""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid

import grpc
import nats
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc
from nats.aio.client import Client as NATS

from libs.devstack.identity import channel_as
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.projection import JetStreamProjection, read_public
from libs.poker.events import HoleCardsDealt
from libs.tableproto.public import chain_gaps, decode_public
from tests.services.conftest import ServiceProcess, Starter

pytestmark = pytest.mark.integration

CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
    action_clock_seconds=30,
    min_players_to_start=4,
    max_buy_in=20_000,
)
# The fourth seat's call starts the game and plays its first 50 steps before it is answered,
# and the table plays on while the watcher connects: with 10 hands (as few as 70 commits when
# hands end preflop) a fast service had all but finished before the first look, and the test
# failed with fewer than 3 kills. 30 hands leave plenty to watch; after KILLS kills the service
# is left to finish (each kill costs a restart). Six bots with deep stacks: a bot that went
# broke left three, too few to deal another hand, and the table stood still short of its limit.
HANDS = 30
KILLS = 8
BOTS = 6
BUY_IN = 20_000


def _table(start: Starter, nats_url: str, redis_url: str) -> ServiceProcess:
    return start(
        "table",
        {
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_AI": "local",
            "HOLDEM_TABLE_LEASE_TTL_SECONDS": "0.5",
        },
    )


async def _lasts(nc: NATS, table_id: str) -> tuple[int, int]:
    """The table stream's last sequence and the last one projected."""
    appended = await JetStreamEventStore(nc).last_sequence(table_id)
    projected = await JetStreamProjection(nc).last(table_id)
    return appended, projected.sequence if projected is not None else 0


def _call(address: str, request: table_pb2.SubmitCommandRequest) -> None:
    """Submit, retrying while the service restarts (same key: a retry gets the first outcome)."""
    for _ in range(200):
        try:
            with channel_as(address) as channel:  # as tools: it seats and closes
                table_pb2_grpc.TableServiceStub(channel).SubmitCommand(request, timeout=10)
            return
        except grpc.RpcError as exc:
            if exc.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED):
                raise
        time.sleep(0.05)
    raise AssertionError("the table service never took the command")


def test_the_projection_has_every_commit_once_in_order_across_kills_between_append_and_publish(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    table_id = f"pub{uuid.uuid4().hex[:8]}"
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.hand_limit = HANDS
    table = _table(start, nats_url, redis_url)
    _call(
        table.address,
        table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key="open", open_table=table_pb2.OpenTable(config=config)
        ),
    )
    for i in range(BOTS):
        seat = table_pb2.SeatPlayer(player_id=f"bot{i}", seat=i, buy_in=BUY_IN, is_bot=True)
        request = table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key=f"seat-{i}", seat_player=seat
        )
        _call(table.address, request)

    async def kill_and_watch() -> tuple[int, int]:
        """While bots play, freeze the service (SIGSTOP) each time it appends a commit and look:
        if the commit is not public yet, SIGKILL it there (a kill between an append and its
        publication), else let it go on, killing it anyway now and then. Restart it after each
        kill, up to ``KILLS`` kills, then let the table play until it closes; count the kills,
        and those that left commits appended but not published."""
        nc = await nats.connect(nats_url)
        appended_now: asyncio.Queue[None] = asyncio.Queue()

        async def on_append(_: object) -> None:
            appended_now.put_nowait(None)

        await nc.subscribe(JetStreamEventStore(nc).subject(table_id), cb=on_append)
        kills = unpublished = looks = 0
        service = table
        try:
            while kills < KILLS:
                try:
                    await asyncio.wait_for(appended_now.get(), timeout=30)
                except TimeoutError:  # nothing appended for a while: closed, or stuck
                    assert await _closed(nc, table_id), "the table stopped playing"
                    await _wait_caught_up(nc, table_id)
                    return kills, unpublished
                os.kill(service.pid, signal.SIGSTOP)
                looks += 1
                appended, projected = await _lasts(nc, table_id)
                if appended == projected and looks % 5:
                    os.kill(service.pid, signal.SIGCONT)
                    continue
                service.kill()
                kills += 1
                await asyncio.sleep(0.1)  # what the dead process had sent has landed by now
                appended, projected = await _lasts(nc, table_id)
                unpublished += appended > projected
                closed = await _closed(nc, table_id)
                # The new process adopts the table (unless it closed) and, loading it, projects
                # what the dead one did not.
                service = _table(start, nats_url, redis_url)
                if closed:
                    await _wait_caught_up(nc, table_id)
                    return kills, unpublished
                while not appended_now.empty():  # appends seen before this process started
                    appended_now.get_nowait()
            for _ in range(600):  # enough kills: the table plays on to its end
                if await _closed(nc, table_id):
                    await _wait_caught_up(nc, table_id)
                    return kills, unpublished
                await asyncio.sleep(0.2)
            raise AssertionError("the table did not close")
        finally:
            await nc.close()

    kills, unpublished = asyncio.run(kill_and_watch())
    print(f"{kills} kills, {unpublished} between an append and its publication")
    assert kills >= 3
    assert unpublished >= 1, "no kill fell between an append and its publication"

    async def check() -> None:
        nc = await nats.connect(nats_url)
        try:
            commits = await JetStreamEventStore(nc).read(table_id)
            projected = [decode_public(m) for m in await read_public(nc, table_id)]
        finally:
            await nc.close()
        assert [p.sequence for p in projected] == [c.sequence for c in commits]
        assert chain_gaps(projected) == []
        assert [p.causation_id for p in projected] == [c.msg_id for c in commits]
        for commit in projected:
            for event in commit.events:
                assert not isinstance(event, HoleCardsDealt) or event.cards == ()

    asyncio.run(check())


async def _closed(nc: NATS, table_id: str) -> bool:
    from libs.table import replay
    from libs.tableproto.envelope import decode_commit

    commits = await JetStreamEventStore(nc).read(table_id)
    return replay([e for c in commits for e in decode_commit(c.data)[1]]).closed


async def _wait_caught_up(nc: NATS, table_id: str) -> None:
    for _ in range(1000):
        appended, projected = await _lasts(nc, table_id)
        if appended == projected:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the restarted service did not project the missing commits")
