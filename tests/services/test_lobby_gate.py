"""The audit gate across lobby replicas (services/lobby/gate.py) on a real redis-server: an audit
on one replica waits for the money moves in flight on another and holds off new ones, a dead
replica's moves age out, and Redis not answering stops audits, never money."""

from __future__ import annotations

import asyncio

import pytest
from redis.asyncio import Redis

from services.lobby.gate import AUDIT_KEY, MOVES_KEY, ClusterGate, GateUnavailable

pytestmark = pytest.mark.integration


async def _redis(redis_url: str) -> Redis:
    client = Redis.from_url(redis_url)
    await client.delete(AUDIT_KEY, MOVES_KEY)  # nothing left by another test's lobbies
    return client


def test_an_audit_on_one_replica_waits_for_moves_on_another_and_holds_off_new_ones(
    redis_url: str,
) -> None:
    asyncio.run(_moves_then_audit_then_moves(redis_url))


async def _moves_then_audit_then_moves(redis_url: str) -> None:
    redis = await _redis(redis_url)
    mover, auditor = ClusterGate(redis, poll_seconds=0.01), ClusterGate(redis, poll_seconds=0.01)
    order: list[str] = []
    moving, audit_started = asyncio.Event(), asyncio.Event()
    finish_move, finish_audit = asyncio.Event(), asyncio.Event()

    async def move(name: str, until: asyncio.Event | None = None) -> None:
        async with mover.shared():
            order.append(f"{name} in")
            moving.set()
            if until is not None:
                await until.wait()
            order.append(f"{name} out")

    async def audit() -> None:
        async with auditor.exclusive():
            order.append("audit in")
            audit_started.set()
            await finish_audit.wait()
            order.append("audit out")

    first = asyncio.create_task(move("move 1", finish_move))
    await moving.wait()
    auditing = asyncio.create_task(audit())
    await asyncio.sleep(0.2)
    assert not audit_started.is_set()  # a move is in flight on the other replica
    finish_move.set()
    await audit_started.wait()
    second = asyncio.create_task(move("move 2"))
    await asyncio.sleep(0.2)
    assert "move 2 in" not in order  # held off while the audit runs
    finish_audit.set()
    await asyncio.gather(first, auditing, second)
    assert order == ["move 1 in", "move 1 out", "audit in", "audit out", "move 2 in", "move 2 out"]
    await redis.aclose()


def test_the_moves_of_a_replica_that_died_age_out(redis_url: str) -> None:
    asyncio.run(_dead_moves_age_out(redis_url))


async def _dead_moves_age_out(redis_url: str) -> None:
    redis = await _redis(redis_url)
    dead = ClusterGate(redis, ttl_seconds=0.5)
    moves = dead.shared()
    await moves.__aenter__()  # entered and never left: the process was killed
    auditor = ClusterGate(redis, ttl_seconds=0.5, poll_seconds=0.02, audit_wait_seconds=10)
    async with auditor.exclusive():
        assert await redis.zcard(MOVES_KEY) == 0
    await redis.aclose()


def test_a_live_replica_renews_its_moves_so_an_audit_waits_for_them(redis_url: str) -> None:
    asyncio.run(_live_moves_are_renewed(redis_url))


async def _live_moves_are_renewed(redis_url: str) -> None:
    redis = await _redis(redis_url)
    mover = ClusterGate(redis, ttl_seconds=0.3)
    renewing = asyncio.create_task(mover.run())
    auditor = ClusterGate(redis, ttl_seconds=0.3, poll_seconds=0.02, audit_wait_seconds=1.0)
    try:
        async with mover.shared():
            with pytest.raises(GateUnavailable):  # the move outlives several TTLs, still held
                async with auditor.exclusive():
                    pass
        async with auditor.exclusive():  # and once it ends, the audit runs
            pass
    finally:
        renewing.cancel()
        await redis.aclose()


def test_without_redis_moves_go_on_and_audits_are_refused() -> None:
    asyncio.run(_without_redis())


async def _without_redis() -> None:
    gone = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)
    gate = ClusterGate(gone)
    try:
        async with gate.shared():
            pass  # a move goes on
        with pytest.raises(GateUnavailable):
            async with gate.exclusive():
                pass
    finally:
        await gone.aclose()
