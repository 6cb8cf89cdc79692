"""A read whose pull request nobody answers yet asks again: in a cluster whose nodes restart, a
consumer just made may have no leader for a moment, and its first request comes back as a 503
(no responders). Seen in CI after a node was killed and restarted; here the consumer the first
attempt names does not exist at all, which the server answers the same way. ``fetch_until``
(the other reads' loop) makes a fetch nobody answered again as well."""

from __future__ import annotations

import asyncio
import datetime
import uuid
from typing import Any, cast

import nats
import pytest
from nats.js.api import ConsumerConfig, ConsumerInfo
from nats.js.errors import ServiceUnavailableError

from libs.eventstore import jetstream as jetstream_module
from libs.eventstore import pull as pull_module
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.natsheaders import status_of_block
from libs.eventstore.pull import fetch_until
from libs.eventstore.store import StoreError

pytestmark = pytest.mark.integration


def test_the_status_of_a_status_block() -> None:
    block = b"NATS/1.0 503\r\nNats-Subject: $JS.API.CONSUMER.MSG.NEXT.S.c\r\n\r\n"
    assert status_of_block(block) == "503"
    assert status_of_block(b"NATS/1.0 409 Leadership Change\r\n\r\n") == "409"
    assert status_of_block(b"NATS/1.0\r\nA: b\r\n\r\n") == ""
    assert status_of_block(None) == ""
    assert status_of_block(b"NATS/1.0 \r\n\r\n") == ""  # a status line with no code
    assert status_of_block(b"NATS/1.05 503\r\n") == ""  # not the status line


async def _reading(nats_url: str, unanswered: int) -> tuple[list[int], list[int], int]:
    """Read a stream of 40 commits whose first ``unanswered`` consumers never exist; the
    sequences read, the sequences appended, and how many consumers the read asked for."""
    nc = await nats.connect(nats_url)
    name = f"T{uuid.uuid4().hex[:12]}"
    store = JetStreamEventStore(nc, stream=name, subject_prefix=f"test.{name}")
    await store.ensure_stream()
    asked = 0
    real = store._js.add_consumer

    async def add_consumer(stream: str, config: ConsumerConfig, **kw: Any) -> ConsumerInfo:
        nonlocal asked
        asked += 1
        if asked > unanswered:
            return await real(stream, config, **kw)
        return ConsumerInfo(
            name=f"nobody{asked}",
            stream_name=stream,
            config=config,
            created=datetime.datetime.now(datetime.UTC),
        )

    try:
        appended, last = [], 0
        for i in range(40):
            last = (await store.append("s", b"x", expected_last=last, msg_id=f"k{i}")).sequence
            appended.append(last)
        store._js.add_consumer = add_consumer  # type: ignore[method-assign,assignment]
        read = [c.sequence for c in await store.read("s")]
        return read, appended, asked
    finally:
        await nc.jetstream().delete_stream(name)
        await nc.close()


@pytest.mark.parametrize("path", ["raw", "callback"])
def test_a_read_asks_again_while_its_consumer_does_not_answer(
    nats_url: str, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    if path == "callback":
        monkeypatch.setattr(jetstream_module, "raw_handlers", lambda nc: None)
    read, appended, asked = asyncio.run(_reading(nats_url, unanswered=3))
    assert read == appended
    assert asked == 4


def test_a_read_nobody_ever_answers_fails_saying_so(
    nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pull_module, "ASK_AGAIN_SECONDS", 0.001)
    with pytest.raises(StoreError, match="ended early 10 times: 503"):
        asyncio.run(_reading(nats_url, unanswered=1000))


class _Unanswered:
    """A pull subscription whose first ``fails`` fetches nobody answers (a 503), then the
    messages of ``batches`` one fetch at a time."""

    def __init__(self, fails: int, batches: list[list[int]]) -> None:
        self.fails = fails
        self.batches = batches
        self.fetches = 0

    async def fetch(self, batch: int, timeout: float) -> list[int]:
        self.fetches += 1
        if self.fetches <= self.fails:
            raise ServiceUnavailableError(code=503, description="No Responders")
        return self.batches.pop(0)


def test_a_fetch_nobody_answers_is_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pull_module, "ASK_AGAIN_SECONDS", 0.001)

    def third(n: Any) -> bool:  # the messages here are numbers
        return bool(n >= 3)

    sub = _Unanswered(3, [[1, 2], [3]])
    found: list[Any] = asyncio.run(fetch_until(cast(Any, sub), third))
    assert found == [1, 2, 3] and sub.fetches == 5
    never = _Unanswered(1000, [])
    with pytest.raises(ServiceUnavailableError):
        asyncio.run(fetch_until(cast(Any, never), third))
    assert never.fetches == pull_module.ASK_AGAIN_TIMES
