"""The C frame reader in front of nats-py's parser (libs/eventstore/_frames.c, natsraw): for any
byte stream cut anywhere, the same messages reach the same handlers in the same order as
through nats-py's parser alone, and what it does not read (other subscriptions, PING, +OK,
-ERR, INFO, odd or unfinished frames) goes the way it went before."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from nats.protocol.parser import Parser

from libs.eventstore import natsraw

pytestmark = pytest.mark.skipif(
    vars(natsraw)["_frames"] is None, reason="built without a C compiler"
)

RAW_SIDS = (3, 7)


class FakeConnection:
    """What nats-py's parser calls on its connection, recorded."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.stats = {"in_msgs": 0, "in_bytes": 0}
        self._ps = Parser(self)

    async def _process_msg(
        self, sid: int, subject: bytes, reply: bytes, data: bytes, headers: bytes | None
    ) -> None:
        self.seen.append(("msg", sid, subject, reply, data, headers))

    async def _process_ping(self) -> None:
        self.seen.append(("ping",))

    async def _process_pong(self) -> None:
        self.seen.append(("pong",))

    async def _process_info(self, info: Any) -> None:
        self.seen.append(("info", info))

    async def _process_err(self, message: str) -> None:
        self.seen.append(("err", message))


def _connection(frames: bool, monkeypatch: pytest.MonkeyPatch) -> FakeConnection:
    nc = FakeConnection()
    with monkeypatch.context() as patch:
        if not frames:
            patch.setattr(natsraw, "_frames", None)
        handlers = natsraw.raw_handlers(nc)
    assert handlers is not None
    for sid in RAW_SIDS:
        handlers[sid] = _recorder(nc, sid)
    assert (nc._ps.parse.__name__ == "parse_frames_first") is frames
    return nc


def _recorder(nc: FakeConnection, sid: int) -> natsraw.RawHandler:
    def record(subject: bytes, reply: bytes, data: bytes, block: bytes | None) -> None:
        nc.seen.append(("raw", sid, subject, reply, data, block))

    return record


def _frame(rng: random.Random) -> bytes:
    sid = rng.choice([*RAW_SIDS, 1, 12])
    subject = rng.choice([b"holdem.table.t1", b"_INBOX.x", b"a"])
    reply = rng.choice([b"", b"$JS.ACK.S.C.1.42.42.1700000000.0", b"r"])
    payload = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 5, 300])))
    middle = b" " + reply if reply else b""
    kind = rng.random()
    if kind < 0.45:
        block = b"NATS/1.0\r\nNats-Msg-Id: t1/" + str(rng.randrange(99)).encode() + b"\r\n\r\n"
        total = len(block) + len(payload)
        head = b"HMSG %s %d%s %d %d\r\n" % (subject, sid, middle, len(block), total)
        return head + block + payload + b"\r\n"
    if kind < 0.8:
        return b"MSG %s %d%s %d\r\n" % (subject, sid, middle, len(payload)) + payload + b"\r\n"
    return rng.choice([b"PING\r\n", b"PONG\r\n", b"+OK\r\n", b'INFO {"server_id":"x"}\r\n'])


async def _feed(nc: FakeConnection, chunks: list[bytes]) -> list[tuple[Any, ...]]:
    for chunk in chunks:
        await nc._ps.parse(chunk)
    return nc.seen


def _cut(stream: bytes, rng: random.Random) -> list[bytes]:
    chunks, at = [], 0
    while at < len(stream):
        size = rng.choice([1, 2, 7, 64, 500, 4096, 65536])
        chunks.append(stream[at : at + size])
        at += size
    return chunks


@pytest.mark.parametrize("seed", range(40))
def test_any_stream_cut_anywhere_reaches_the_same_handlers_in_the_same_order(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    frames = [_frame(rng) for _ in range(rng.choice([1, 20, 300]))]
    stream = b"".join(frames)
    chunks = _cut(stream, rng)
    fast = asyncio.run(_feed(_connection(True, monkeypatch), chunks))
    plain = asyncio.run(_feed(_connection(False, monkeypatch), chunks))
    assert fast == plain
    assert any(item[0] == "raw" for item in fast) or len(frames) == 1


@pytest.mark.parametrize(
    "odd",
    [
        b"HMSG a 3 5 3\r\nxxxxx\r\n",  # a header block longer than the message
        b"MSG a 3  5\r\nhello\r\n",  # two spaces
        b"MSG a 3 5 \r\nhello\r\n",  # a trailing space
        b"MSG a 3 -5\r\nhello\r\n",  # a sign
        b"MSG a 3 5\r\nhelloXY",  # no end of line after the payload
        b"MSG a 3 r s t 5\r\nhello\r\n",  # too many fields
        b"MSG a 3 99999999999999999999\r\nhello\r\n",  # a size beyond any buffer
        b"MSG a 3 5\rhello\r\n",  # a lone carriage return
        b"MSG a 3 5",  # unfinished
    ],
)
def test_what_the_reader_does_not_read_exactly_goes_through_nats_py_as_before(
    odd: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = b"MSG holdem.x 3 $JS.ACK.S.C.1.9.9.1.0 2\r\nok\r\n"

    async def outcome(frames: bool) -> tuple[list[tuple[Any, ...]], str]:
        nc = _connection(frames, monkeypatch)
        try:
            await nc._ps.parse(good + odd)
            await nc._ps.parse(good)
        except Exception as exc:  # whatever nats-py makes of it, the same both ways
            return nc.seen, type(exc).__name__
        return nc.seen, ""

    assert asyncio.run(outcome(True)) == asyncio.run(outcome(False))
