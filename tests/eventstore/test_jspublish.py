"""The publishing side of the raw NATS path (``libs.eventstore.jspublish``, ``natswrite``): requests
answered through the parser hook, JetStream publishes acknowledged as nats-py acknowledges them,
the same bytes on the wire as nats-py's ``publish``, and a projection's connection hooked only
once it publishes."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable

import pytest
from nats.aio.msg import Msg

from libs.eventstore.natsraw import raw_handlers


def test_a_publish_through_raw_requests_answers_as_nats_py_does(nats_url: str) -> None:
    """Acknowledgements, duplicates, a stale expected sequence, no stream, no answer: the same
    results and the same errors as ``JetStreamContext.publish``."""

    async def main() -> None:
        import nats
        import nats.errors
        from nats.js.errors import BadRequestError, NoStreamResponseError

        from libs.eventstore.jspublish import RawRequests, js_publish

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

        from libs.eventstore import natswrite

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
                        await natswrite.publish(nc, "a.b", b"payload", "_INBOX.x", headers)
                    continue
                theirs = sent.pop()
                await natswrite.publish(nc, "a.b", b"payload", "_INBOX.x", headers)
                assert sent.pop() == theirs, headers
                plain += natswrite.header_block(headers) is not None
            assert plain >= 50  # the fast path was taken, not only the fallback
            assert natswrite.header_block(cases[0]) is not None
            assert all(natswrite.header_block(h) is None for h in cases[1:8])
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

        from libs.eventstore.jspublish import JetStreamPublisher, RawRequests

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
