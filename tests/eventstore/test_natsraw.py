"""The raw read path of the JetStream store (``libs.eventstore.natsraw``) gives what nats-py's own
path gives: the same stream sequences, the same header dicts, the same commits; the store's
contract holds on the path it takes where nats-py has no hook; other subscriptions of the same
connection are untouched."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from libs.eventstore import EventStore
from libs.eventstore import jetstream as jetstream_module
from libs.eventstore import natsraw as natsraw_module
from libs.eventstore.natsheaders import headers_of_block, use_fast_headers
from libs.eventstore.natsraw import raw_handlers, stream_sequence
from tests.eventstore.backends import jetstream_store
from tests.eventstore.test_contracts import EventStoreContract

REPLIES = [
    b"$JS.ACK.HOLDEM_TABLES.cons1.1.4757.12.1764585600000000000.0",
    b"$JS.ACK.dom.ACCOUNTHASH.HOLDEM_TABLES.cons1.1.4757.12.1764585600000000000.0.tok",
    b"$JS.ACK.dom.ACCOUNTHASH.HOLDEM_TABLES.cons1.1.4757.12.1764585600000000000.0",
]


@pytest.mark.parametrize("reply", REPLIES)
def test_the_stream_sequence_is_the_one_nats_py_reads(reply: bytes) -> None:
    assert stream_sequence(reply) == Msg.Metadata._from_reply(reply.decode()).sequence.stream


@pytest.mark.parametrize("reply", [b"", b"_INBOX.abc", b"$JS.ACK.too.short", b"$JS.API.x"])
def test_a_reply_that_is_not_a_delivery_is_refused(reply: bytes) -> None:
    with pytest.raises(ValueError):
        stream_sequence(reply)


BLOCKS = [
    None,
    b"",
    b"NATS/1.0\r\n\r\n",
    b"NATS/1.0\r\nNats-Msg-Id: t1/k1\r\nNats-Expected-Last-Subject-Sequence: 41\r\n\r\n",
    b"NATS/1.0\r\nA:",
    b"NATS/1.0\r\nA",
    b"NATS/1.0\r\nName:Value\r\nOther:\tspaced \r\nBad Name: x\r\nDup: 1\r\nDup: 2\r\n\r\n",
    b"NATS/1.0\r\nV: caf\xc3\xa9 \xff\r\n\r\n",
]


@pytest.mark.parametrize("block", BLOCKS)
def test_a_header_block_gives_the_dict_nats_py_gives(block: bytes | None) -> None:
    async def main() -> None:
        nc = NATS()
        use_fast_headers(nc)
        assert headers_of_block(block) == ((await nc._process_headers(block)) or {})

    asyncio.run(main())


def test_a_status_block_is_refused() -> None:
    with pytest.raises(ValueError):
        headers_of_block(b"NATS/1.0 404 No Messages\r\n\r\n")


class TestTheCallbackPath(EventStoreContract):
    """The store's contract where nats-py has no hook (the read falls back to a callback)."""

    @pytest.fixture(autouse=True)
    def _setup(self, nats_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.nats_url = nats_url
        monkeypatch.setattr(jetstream_module, "raw_handlers", lambda nc: None)  # reads
        monkeypatch.setattr(natsraw_module, "raw_handlers", lambda nc: None)  # appends

    def stores(self) -> AbstractAsyncContextManager[EventStore]:
        return jetstream_store(self.nats_url)


def test_both_paths_read_the_same_commits_and_leave_other_subscriptions_alone(
    nats_url: str,
) -> None:
    async def main() -> None:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        name = f"T{uuid.uuid4().hex[:12]}"
        store = JetStreamEventStore(nc, stream=name, subject_prefix=f"test.{name}")
        await store.ensure_stream()
        received: list[bytes] = []

        async def on_other(msg: Msg) -> None:
            received.append(msg.data)

        await nc.subscribe("elsewhere", cb=on_other)
        try:
            last = other = 0
            for i in range(300):
                headers = {"Holdem-N": str(i)} if i % 3 else None
                last = (
                    await store.append(
                        "s", f"{i}".encode(), expected_last=last, msg_id=f"k{i}", headers=headers
                    )
                ).sequence
                if i % 50 == 0:  # another subject's commits in between
                    other = (
                        await store.append("other", b"x", expected_last=other, msg_id=f"o{i}")
                    ).sequence
            raw = await store.read("s")
            handlers = raw_handlers(nc)
            # the hook is installed: the appends' acknowledgements have one handler (their
            # inbox), and the read's is gone with its read
            assert handlers is not None and len(handlers) == 1
            tail = await store.read("s", after=raw[100].sequence)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(jetstream_module, "raw_handlers", lambda nc: None)
                by_callback = await store.read("s")
            assert raw == by_callback and tail == raw[101:]
            assert [c.data for c in raw] == [f"{i}".encode() for i in range(300)]
            assert [c.msg_id for c in raw] == [f"k{i}" for i in range(300)]
            assert raw[4].headers["Holdem-N"] == "4" and "Holdem-N" not in raw[3].headers
            # what an append stores: the guarded append's three headers, by their names
            assert raw[3].headers == {
                "Nats-Msg-Id": "s/k3",
                "Nats-Expected-Last-Subject-Sequence": str(raw[2].sequence),
                "Nats-Expected-Stream": name,
            }
            await nc.publish("elsewhere", b"hello")
            await nc.flush()
            for _ in range(50):
                if received:
                    break
                await asyncio.sleep(0.02)
            assert received == [b"hello"]
        finally:
            await nc.jetstream().delete_stream(name)
            await nc.close()

    asyncio.run(main())


def test_a_publish_through_raw_requests_answers_as_nats_py_does(nats_url: str) -> None:
    """Acknowledgements, duplicates, a stale expected sequence, no stream, no answer: the same
    results and the same errors as ``JetStreamContext.publish``."""

    async def main() -> None:
        import nats
        import nats.errors
        from nats.js.errors import BadRequestError, NoStreamResponseError

        from libs.eventstore.natsraw import RawRequests, js_publish

        nc = await nats.connect(nats_url)
        js = nc.jetstream()
        name = f"T{uuid.uuid4().hex[:12]}"
        await js.add_stream(name=name, subjects=[f"raw.{name}.>"])
        handlers = raw_handlers(nc)
        assert handlers is not None
        requests = RawRequests(nc, handlers)
        subject = f"raw.{name}.a"

        async def both(headers: dict[str, str]) -> tuple[object, object]:
            results: list[object] = []
            for raw in (True, False):
                try:
                    if raw:
                        results.append(
                            await js_publish(
                                requests,
                                subject,
                                b"x",
                                stream=name,
                                headers=dict(headers),
                                timeout=2,
                            )
                        )
                    else:
                        results.append(
                            await js.publish(subject, b"x", stream=name, headers=dict(headers))
                        )
                except Exception as exc:
                    results.append(exc)
            return results[0], results[1]

        try:
            mine, theirs = await both({"Nats-Msg-Id": "m1"})
            assert theirs == type(theirs)(**{**vars(mine), "duplicate": True})
            assert not getattr(mine, "duplicate", None) and getattr(mine, "seq", 0) == 1
            mine, theirs = await both({"Nats-Expected-Last-Subject-Sequence": "0"})
            assert isinstance(mine, BadRequestError) and isinstance(theirs, BadRequestError)
            assert mine.err_code == theirs.err_code == 10071
            with pytest.raises(NoStreamResponseError):
                await js_publish(requests, "nowhere", b"x", stream=name, headers={}, timeout=2)

            async def silent(msg: Msg) -> None:
                return None

            await nc.subscribe("silent", cb=silent)
            with pytest.raises(nats.errors.TimeoutError):
                await js_publish(requests, "silent", b"x", stream=name, headers={}, timeout=0.2)
        finally:
            await js.delete_stream(name)
            await nc.close()

    asyncio.run(main())


def test_the_projection_hooks_its_connection_at_its_first_publish_only(nats_url: str) -> None:
    """A connection that only reads the projection (the gateway's, the lobby's) keeps nats-py's
    own message path; one that publishes takes the acknowledgements through a raw handler."""

    async def main() -> None:
        import nats

        from libs.eventstore import natsraw
        from libs.eventstore.projection import JetStreamProjection

        nc = await nats.connect(nats_url)
        name = f"T{uuid.uuid4().hex[:12]}"
        projection = JetStreamProjection(nc, stream=name, subject_prefix=f"test.{name}")
        await projection.ensure_stream()
        try:
            assert await projection.last("t") is None
            assert await projection.read("t") == []
            assert getattr(nc, natsraw._ATTRIBUTE, None) is None
            assert await projection.publish("t", 1, 0, b"one", expected_position=0) == 1
            handlers = getattr(nc, natsraw._ATTRIBUTE, None)
            assert handlers is not None and len(handlers) == 1  # the acknowledgements' inbox
            assert await projection.publish("t", 2, 1, b"two", expected_position=1) == 2
            assert [p.data for p in await projection.read("t")] == [b"one", b"two"]
        finally:
            await nc.jetstream().delete_stream(name)
            await nc.close()

    asyncio.run(main())


def test_publish_puts_on_the_wire_what_nats_py_puts_there(nats_url: str) -> None:
    """The header block built in one join gives the very bytes nats-py's ``publish`` sends, for
    plain headers; anything else (spaces to strip, line breaks, other characters, an empty
    name) goes through nats-py itself, so the wire is the same whatever the headers."""

    async def main() -> None:
        import nats
        from nats.js import api

        from libs.eventstore import natsraw

        nc = await nats.connect(nats_url)
        sent: list[bytes] = []

        async def capture(cmd: bytes, priority: bool = False) -> None:
            sent.append(cmd)

        nc._send_command = capture  # type: ignore[method-assign]
        # the raw path writes to the socket itself when nothing is queued: capture that too
        transport = nc._transport
        assert transport is not None
        transport_write = transport.write
        transport.write = lambda cmd: sent.append(cmd)  # type: ignore[method-assign,assignment]
        rng = random.Random(16)
        alphabet = "aZ09/:-_. \t\r\n\né"
        cases: list[dict[str, str]] = [
            {"Nats-Msg-Id": "t1/k1", "Nats-Expected-Last-Subject-Sequence": "41"},
            {"-: _": "0"},  # a colon in a name: not a name "-" with a value "_: 0"
            {api.Header.EXPECTED_STREAM: "S"},  # a str enum: its value is the name
            {"Nats-Msg-Id": "x\r\nEvil: y"},
            {"Nats-Msg-Id": " padded "},
            {"": "empty name"},
            {"Bad Name": "x"},
            {"A": ""},
        ]
        for _ in range(2000):
            cases.append(
                {
                    "".join(rng.choice("Ab-_ :") for _ in range(rng.randrange(1, 5))): "".join(
                        rng.choice(alphabet) for _ in range(rng.randrange(6))
                    )
                    for _ in range(rng.randrange(1, 4))
                }
            )
        try:
            plain = 0
            for headers in cases:
                try:
                    await nc.publish("a.b", b"payload", reply="_INBOX.x", headers=headers)
                except Exception as exc:  # nats-py refuses it: so must the raw path
                    with pytest.raises(type(exc)):
                        await natsraw.publish(nc, "a.b", b"payload", "_INBOX.x", headers)
                    continue
                theirs = sent.pop()
                await natsraw.publish(nc, "a.b", b"payload", "_INBOX.x", headers)
                assert sent.pop() == theirs, headers
                plain += natsraw.header_block(headers) is not None
            assert plain >= 50  # the fast path was taken, not only the fallback
            assert natsraw.header_block(cases[0]) is not None
            assert all(natsraw.header_block(h) is None for h in cases[1:8])
        finally:
            del nc._send_command
            transport.write = transport_write  # type: ignore[method-assign]
            await nc.close()

    asyncio.run(main())


def test_requests_without_a_task_get_their_answers_and_timeouts(nats_url: str) -> None:
    """``request_nowait`` hands the answer to its callback (nothing is sent before the inbox is
    subscribed); one timer per connection expires what was not answered in time, no earlier,
    whatever else is waiting; ``publish_nowait`` acknowledges as ``publish`` does."""

    async def main() -> None:
        import nats
        import nats.errors
        from nats.js.errors import BadRequestError

        from libs.eventstore.natsraw import JetStreamPublisher, RawRequests

        nc = await nats.connect(nats_url)
        js = nc.jetstream()
        name = f"T{uuid.uuid4().hex[:12]}"
        await js.add_stream(name=name, subjects=[f"raw.{name}.>"])

        async def echo(msg: Msg) -> None:
            await msg.respond(b"echo:" + msg.data)

        async def silent(msg: Msg) -> None:
            return None

        await nc.subscribe("echo", cb=echo)
        await nc.subscribe("silent", cb=silent)
        handlers = raw_handlers(nc)
        assert handlers is not None
        requests = RawRequests(nc, handlers)
        loop = asyncio.get_running_loop()
        got: dict[str, asyncio.Future[object]] = {}

        def into(key: str) -> Callable[[object], None]:
            got[key] = loop.create_future()
            return got[key].set_result

        try:
            assert not requests.ready
            assert not requests.request_nowait("echo", b"x", {"A": "1"}, 1.0, into("early"))
            assert (await requests.request("echo", b"first", {"A": "1"}, 2.0))[0] == b"echo:first"
            assert requests.ready
            started = loop.time()
            assert requests.request_nowait("silent", b"x", {"A": "1"}, 0.3, into("short"))
            assert requests.request_nowait("silent", b"x", {"A": "1"}, 30.0, into("long"))
            assert requests.request_nowait("echo", b"y", {"A": "1"}, 5.0, into("echo"))
            echoed = await got["echo"]
            assert isinstance(echoed, tuple) and echoed[0] == b"echo:y"
            assert isinstance(await got["short"], nats.errors.TimeoutError)
            assert 0.3 <= loop.time() - started < 3.0
            assert not got["long"].done() and not got["early"].done()

            publisher = JetStreamPublisher(nc, 2.0)
            ack = await publisher.publish(f"raw.{name}.a", b"1", stream=name, headers={})
            assert publisher.publish_nowait(
                f"raw.{name}.a",
                b"2",
                stream=name,
                headers={"Nats-Expected-Last-Subject-Sequence": str(ack.seq)},
                callback=into("ack"),
            )
            second = await got["ack"]
            assert getattr(second, "seq", 0) == ack.seq + 1 and not second.duplicate
            assert publisher.publish_nowait(
                f"raw.{name}.a",
                b"3",
                stream=name,
                headers={"Nats-Expected-Last-Subject-Sequence": str(ack.seq)},
                callback=into("stale"),
            )
            stale = await got["stale"]
            assert isinstance(stale, BadRequestError) and stale.err_code == 10071
        finally:
            await js.delete_stream(name)
            await nc.close()

    asyncio.run(main())
