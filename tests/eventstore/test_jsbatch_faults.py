"""The group commit (libs/eventstore/jsbatch.py) when its nats-server dies under it: every append
waiting in a batch, or gathered for the next one, gets an answer (its acknowledgement, or an
error saying the outcome is unknown or the store is down) instead of waiting for good, and the
appender commits again once the server is back. A server of the test's own (it is stopped,
killed and started again)."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from pathlib import Path

import pytest

from libs.devstack.servers import NatsServer
from libs.eventstore import AppendResult
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.jsbatch import BatchingAppender
from libs.platform.natsconn import connect_nats

pytestmark = pytest.mark.integration

#: How long the test waits for every append to end (a hang fails the test instead of stalling
#: it): not a timing assertion, nothing here takes more than a reconnect and a timeout.
GUARD = 60.0
TABLES = [f"t{i}" for i in range(24)]


async def _through_a_kill(server: NatsServer, timeout: float) -> tuple[list[object], list[object]]:
    """Appends of every table gathered while the server is stopped, the server killed and
    started again: each append's outcome ("hung" if it had none within the guard), then the
    outcome of a fresh round of appends once the server is back."""
    nc = await connect_nats(server.url, reconnect_time_wait=0.1)
    try:
        name = f"K{uuid.uuid4().hex[:12]}"
        store = JetStreamEventStore(nc, stream=name, subject_prefix=f"k.{name}", timeout=timeout)
        await store.ensure_stream(allow_atomic=True)
        appender = BatchingAppender(store, min_batch=2)
        assert await appender.check()
        warm = await asyncio.gather(
            *(appender.append(t, b"0", expected_last=0, msg_id=f"w-{t}") for t in TABLES)
        )
        assert appender.stats.batches >= 1
        os.kill(server.pid, signal.SIGSTOP)
        appends = [
            asyncio.create_task(appender.append(t, b"1", expected_last=w.sequence, msg_id=f"a-{t}"))
            for t, w in zip(TABLES, warm, strict=True)
        ]
        await asyncio.sleep(0.3)  # the batch is written to the socket, unanswerable while stopped
        assert not any(task.done() for task in appends)
        await asyncio.to_thread(server.kill)
        await asyncio.to_thread(server.restart, 60.0)
        done, _ = await asyncio.wait(appends, timeout=GUARD)
        outcomes: list[object] = []
        for task in appends:
            outcomes.append(task.exception() or task.result() if task in done else "hung")
        last = {t: await store.last_sequence(t) for t in TABLES}
        after: list[object] = await asyncio.wait_for(
            asyncio.gather(
                *(appender.append(t, b"2", expected_last=last[t], msg_id=f"b-{t}") for t in TABLES),
                return_exceptions=True,
            ),
            GUARD,
        )
        return outcomes, after
    finally:
        await nc.close()


@pytest.mark.parametrize("timeout", [600.0, 5.0])
def test_every_waiter_of_a_group_commit_is_answered_when_nats_is_killed(
    tmp_path: Path, timeout: float
) -> None:
    """Whatever the store's timeout (one far beyond the guard: an append left to it counts as
    one that hangs), each append in flight through the kill ends: acknowledged (it landed before
    the kill) or an error; the next round of appends all land."""
    server = NatsServer(data_dir=tmp_path / "js", parent_dir=tmp_path)
    with server:
        outcomes, after = asyncio.run(_through_a_kill(server, timeout))
    assert "hung" not in outcomes, outcomes
    assert all(isinstance(o, (AppendResult, Exception)) for o in outcomes), outcomes
    assert all(isinstance(r, AppendResult) for r in after), after
