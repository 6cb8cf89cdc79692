"""Appends in flight through the raw request path (``libs.eventstore.jspublish``) when their
nats-server is paused or dies: each one gets its answer or a retryable error, none waits past
its connection. A server of the test's own (it is stopped, killed and started again)."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from pathlib import Path

import nats.errors
import pytest

from libs.devstack.servers import NatsServer
from libs.eventstore.jspublish import AnswerLost, JetStreamPublisher
from libs.platform.natsconn import connect_nats

#: Far beyond the test's guard: an append left to its timeout counts as one that hangs.
APPEND_TIMEOUT = 600.0
#: How long the test waits for every append to end (a hang fails the test instead of stalling
#: it): not a timing assertion, nothing here takes more than a reconnect.
GUARD = 60.0
IN_FLIGHT = 20


async def _in_flight_through(server: NatsServer, fault: str) -> list[object]:
    """Send appends to a stopped server, then ``fault`` it (``pause``: SIGCONT; ``kill``: SIGKILL
    and start it again on its store): each append's acknowledgement or error, then one more
    append's once the server is back."""
    nc = await connect_nats(server.url, reconnect_time_wait=0.1)
    try:
        name = f"T{uuid.uuid4().hex[:12]}"
        await nc.jetstream().add_stream(name=name, subjects=[f"f.{name}.>"])
        publisher = JetStreamPublisher(nc, APPEND_TIMEOUT)

        async def append(i: int) -> object:
            headers = {"Nats-Msg-Id": f"m{i}"}
            try:
                return await publisher.publish(f"f.{name}.a", b"x", stream=name, headers=headers)
            except Exception as exc:
                return exc

        await append(-1)  # the raw path is set up (its inbox subscribed) before the fault
        os.kill(server.pid, signal.SIGSTOP)
        appends = [asyncio.create_task(append(i)) for i in range(IN_FLIGHT)]
        await asyncio.sleep(0.2)  # written to the socket, unanswerable while stopped
        assert not any(task.done() for task in appends)
        if fault == "pause":
            os.kill(server.pid, signal.SIGCONT)
        else:
            await asyncio.to_thread(server.kill)
            await asyncio.to_thread(server.restart, 60.0)
        done, _ = await asyncio.wait(appends, timeout=GUARD)
        results = [task.result() if task in done else "hung" for task in appends]
        results.append(await asyncio.wait_for(append(IN_FLIGHT), GUARD))
        return results
    finally:
        await nc.close()


@pytest.mark.integration
@pytest.mark.parametrize("fault", ["pause", "kill"])
def test_appends_in_flight_are_answered_or_fail_when_the_server_comes_back(
    tmp_path: Path, fault: str
) -> None:
    """Paused (SIGSTOP, SIGCONT: the connection stays), every append is acknowledged. Killed
    and restarted with the appends unanswered: none can be answered any more (the server took
    them with it), and each fails at the disconnect with ``AnswerLost``, a
    ``nats.errors.TimeoutError`` (outcome unknown, retried like a timeout), instead of waiting
    for its timeout; the next append is acknowledged."""
    server = NatsServer(data_dir=tmp_path / "js", parent_dir=tmp_path)
    with server:
        results = asyncio.run(_in_flight_through(server, fault))
    assert "hung" not in results, results
    *in_flight, after = results
    assert not isinstance(after, BaseException), after
    kinds = {type(result).__name__ for result in in_flight}
    if fault == "pause":
        assert kinds == {"PubAck"}, in_flight
    else:
        assert all(isinstance(r, AnswerLost) for r in in_flight), in_flight
        assert isinstance(in_flight[0], nats.errors.TimeoutError)
        assert "connection lost" in str(in_flight[0])


@pytest.mark.integration
def test_a_callback_that_raises_stops_no_other_expiry(tmp_path: Path) -> None:
    """Requests nobody answers expire together; the first one's callback raises: the others
    still get their timeout (before, the sweep stopped at the error and they waited for good
    unless another request came)."""

    async def main(nats_url: str) -> list[object]:
        from libs.eventstore.jspublish import RawRequests
        from libs.eventstore.natsraw import raw_handlers

        nc = await connect_nats(nats_url)
        try:
            subject = f"sink.{uuid.uuid4().hex}"
            await nc.subscribe(subject)  # takes the requests, answers none
            handlers = raw_handlers(nc)
            assert handlers is not None
            requests = RawRequests(nc, handlers)
            got: list[object] = []
            ended = asyncio.Event()

            def raising(result: object) -> None:
                got.append(result)
                raise RuntimeError("a caller's bug")

            def keeping(result: object) -> None:
                got.append(result)
                if len(got) == 3:
                    ended.set()

            with pytest.raises(nats.errors.TimeoutError):  # subscribes the inbox
                await requests.request(subject, b"", {"a": "b"}, 0.05)
            for callback in (raising, keeping, keeping):
                assert requests.request_nowait(subject, b"", {"a": "b"}, 0.05, callback)
            await asyncio.wait_for(ended.wait(), GUARD)
            return got
        finally:
            await nc.close()

    with NatsServer(parent_dir=tmp_path) as server:
        got = asyncio.run(main(server.url))
    assert [type(result) for result in got] == [nats.errors.TimeoutError] * 3
