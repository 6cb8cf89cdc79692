"""``all_keys`` on real NATS KV buckets: live keys only, any number of them, and never "none"
for a replicated bucket that has some (nats-py's ``keys()`` says "no keys" there again and
again, which once left a table nobody would take over)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid

import pytest
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import NoKeysError

from libs.devstack import NatsCluster
from libs.eventstore.kvkeys import all_keys
from libs.platform.natsconn import connect_nats

pytestmark = pytest.mark.integration


def test_live_keys_only_and_more_than_one_batch(nats_url: str) -> None:
    async def main() -> None:
        nc = await connect_nats(nats_url)
        bucket = f"keys_{uuid.uuid4().hex[:8]}"
        js = nc.jetstream()
        kv = await js.create_key_value(KeyValueConfig(bucket=bucket, history=3))
        try:
            assert await all_keys(nc, bucket) == []
            await kv.put("a", b"1")
            await kv.put("a", b"2")  # two revisions, one key
            await kv.put("b", b"1")
            await kv.put("c", b"1")
            await kv.delete("b")
            await kv.purge("c")
            assert await all_keys(nc, bucket) == ["a"]
            await kv.put("b", b"again")  # a deleted key written again is live
            assert await all_keys(nc, bucket) == ["a", "b"]
            many = [f"k{i:05d}" for i in range(2500)]  # more than one fetch
            await asyncio.gather(*(kv.put(key, b"1") for key in many))
            assert await all_keys(nc, bucket) == sorted(["a", "b", *many])
            # nothing is left behind: each read deletes its consumer
            info = await js.stream_info(f"KV_{bucket}")
            assert info.state.consumer_count == 0
        finally:
            await js.delete_key_value(bucket)
            await nc.close()

    asyncio.run(main())


def test_a_replicated_bucket_never_reads_as_empty(nats_cluster: NatsCluster) -> None:
    async def main() -> tuple[int, int]:
        nc = await connect_nats(nats_cluster.url)
        js = nc.jetstream()
        bucket = f"keys_{uuid.uuid4().hex[:8]}"
        config = KeyValueConfig(bucket=bucket, history=1, replicas=3, storage=StorageType.FILE)
        deadline = time.monotonic() + 30
        while True:  # the new R3 bucket answers once its replicas elected a leader
            try:
                kv = await js.create_key_value(config)
                await kv.put("t1", b"1")
                break
            except Exception:
                assert time.monotonic() < deadline, "the R3 bucket never answered"
                await asyncio.sleep(0.2)
        try:
            ours = sum([await all_keys(nc, bucket) == ["t1"] for _ in range(30)])
            theirs = 0  # how often nats-py's own keys() got it right, for the record
            for _ in range(30):
                with contextlib.suppress(NoKeysError):
                    theirs += await kv.keys() == ["t1"]
            return ours, theirs
        finally:
            await js.delete_key_value(bucket)
            await nc.close()

    ours, theirs = asyncio.run(main())
    print(f"all_keys right {ours}/30 times, nats-py keys() right {theirs}/30 times")
    assert ours == 30


def test_a_moment_of_unavailable_is_tried_again_and_a_lasting_one_is_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replicated bucket's stream or new consumer answers 503 while it elects a leader (seen
    in CI on a bucket just made): the listing is tried again instead of failing the caller, but
    for no longer than its timeout."""
    from nats.js.errors import ServiceUnavailableError

    from libs.eventstore import kvkeys

    tries: list[str] = []

    async def flaky(nc: object, bucket: str, timeout: float) -> list[str]:
        tries.append(bucket)
        if len(tries) < 3:
            raise ServiceUnavailableError
        return ["t1"]

    monkeypatch.setattr(kvkeys, "_all_keys_once", flaky)
    assert asyncio.run(all_keys(None, "b", timeout=5.0)) == ["t1"]  # type: ignore[arg-type]
    assert len(tries) == 3

    async def down(nc: object, bucket: str, timeout: float) -> list[str]:
        raise ServiceUnavailableError

    monkeypatch.setattr(kvkeys, "_all_keys_once", down)
    started = time.monotonic()
    with pytest.raises(ServiceUnavailableError):
        asyncio.run(all_keys(None, "b", timeout=0.5))  # type: ignore[arg-type]
    assert time.monotonic() - started < 5.0  # gave up around its timeout, did not hang
