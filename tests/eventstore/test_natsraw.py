"""The raw read path of the JetStream store (``libs.eventstore.natsraw``) gives what nats-py's own
path gives: the same stream sequences, the same header dicts, the same commits; the store's
contract holds on the path it takes where nats-py has no hook; other subscriptions of the same
connection are untouched. The publishing side is test_jspublish.py's."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AbstractAsyncContextManager

import pytest
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from libs.eventstore import EventStore
from libs.eventstore import jetstream as jetstream_module
from libs.eventstore import jspublish as jspublish_module
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
        monkeypatch.setattr(jspublish_module, "raw_handlers", lambda nc: None)  # appends

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
