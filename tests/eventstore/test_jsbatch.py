"""Group commit in atomic batches (libs/eventstore/jsbatch.py) on a real nats-server: appends of
many aggregates at once land in batches at the sequences they are read back at, each guarded on
its own; one aggregate's conflict, or a retry of a commit that landed, fails nobody else's; the
whole EventStore contract holds (``TestBatchedJetStream``). Atomic batches are JetStream 2.12's:
these tests run their own nats-server (the pinned one of the dev dependencies, 2.12 or later),
whatever server the other integration tests use; on an older one the appender sends each append
alone (``test_an_older_server_gets_every_append_alone``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager

import pytest

from libs.devstack import start_nats
from libs.eventstore import AppendResult, ConcurrencyConflict, EventStore
from libs.eventstore.jsbatch import BatchingAppender
from tests.eventstore.backends import batching_store
from tests.eventstore.test_contracts import EventStoreContract

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def nats_url() -> Iterator[str]:
    """A nats-server of this module's own, that takes atomic batches."""
    with start_nats() as server:
        yield server.url


class TestBatchedJetStream(EventStoreContract):
    """The event store's contract with appends group-committed in atomic batches."""

    @pytest.fixture(autouse=True)
    def _url(self, nats_url: str) -> None:
        self.nats_url = nats_url

    def stores(self) -> AbstractAsyncContextManager[EventStore]:
        return batching_store(self.nats_url)


TABLES = [f"t{i}" for i in range(12)]


async def _append_all(
    store: BatchingAppender, expected: dict[str, int], key: str
) -> list[AppendResult | BaseException]:
    """One append per table at once, on ``expected[table]``, message id ``<key>-<table>``."""
    return await asyncio.gather(
        *(
            store.append(t, f"{key}:{t}".encode(), expected_last=expected[t], msg_id=f"{key}-{t}")
            for t in TABLES
        ),
        return_exceptions=True,
    )


async def _tails(store: BatchingAppender) -> dict[str, list[tuple[int, str]]]:
    return {t: [(c.sequence, c.msg_id) for c in await store.read(t)] for t in TABLES}


def test_concurrent_appends_land_in_one_batch_at_the_sequences_read_back(nats_url: str) -> None:
    async def main() -> None:
        async with batching_store(nats_url) as store:
            first = await _append_all(store, dict.fromkeys(TABLES, 0), "a")
            assert store.stats.batches == 1 and store.stats.batched == len(TABLES)
            assert all(isinstance(r, AppendResult) and not r.duplicate for r in first)
            after = {t: r.sequence for t, r in zip(TABLES, first, strict=True)}  # type: ignore[union-attr]
            second = await _append_all(store, after, "b")
            tails = await _tails(store)
            for table, one, two in zip(TABLES, first, second, strict=True):
                assert isinstance(one, AppendResult) and isinstance(two, AppendResult)
                assert tails[table] == [(one.sequence, f"a-{table}"), (two.sequence, f"b-{table}")]

    asyncio.run(main())


def test_a_conflict_of_one_table_fails_no_other_tables_commit(nats_url: str) -> None:
    async def main() -> None:
        async with batching_store(nats_url) as store:
            first = await _append_all(store, dict.fromkeys(TABLES, 0), "a")
            after = {t: r.sequence for t, r in zip(TABLES, first, strict=True)}  # type: ignore[union-attr]
            stale = {**after, "t5": 0}  # another writer got there first
            results = await _append_all(store, stale, "b")
            assert store.stats.refused == 1  # the batch was void as a whole...
            by_table = dict(zip(TABLES, results, strict=True))
            conflict = by_table.pop("t5")
            assert isinstance(conflict, ConcurrencyConflict) and conflict.actual == after["t5"]
            assert all(isinstance(r, AppendResult) and not r.duplicate for r in by_table.values())
            tails = await _tails(store)  # ...and every other commit landed once, alone
            assert tails["t5"] == [(after["t5"], "a-t5")]
            assert all([m for _, m in tails[t]] == [f"a-{t}", f"b-{t}"] for t in by_table)

    asyncio.run(main())


def test_a_retry_in_a_batch_is_its_first_outcome_and_the_others_land(nats_url: str) -> None:
    async def main() -> None:
        async with batching_store(nats_url) as store:
            first = await _append_all(store, dict.fromkeys(TABLES, 0), "a")
            after = {t: r.sequence for t, r in zip(TABLES, first, strict=True)}  # type: ignore[union-attr]
            retry = store.append("t3", b"a:t3", expected_last=0, msg_id="a-t3")
            others = [
                store.append(t, b"b", expected_last=after[t], msg_id=f"b-{t}")
                for t in TABLES
                if t != "t3"
            ]
            again, *landed = await asyncio.gather(retry, *others)
            assert again == AppendResult(after["t3"], duplicate=True)
            assert all(not r.duplicate and r.sequence > max(after.values()) for r in landed)
            assert len((await _tails(store))["t3"]) == 1

    asyncio.run(main())


def test_two_appends_of_one_table_never_share_a_batch(nats_url: str) -> None:
    """The second's expectation depends on the first: it waits for the next batch."""

    async def main() -> None:
        async with batching_store(nats_url) as store:
            one = store.append("t0", b"1", expected_last=0, msg_id="one")
            two = store.append("t0", b"2", expected_last=0, msg_id="two")
            other = store.append("t1", b"1", expected_last=0, msg_id="other")
            results = await asyncio.gather(one, two, other, return_exceptions=True)
            assert isinstance(results[0], AppendResult) and isinstance(results[2], AppendResult)
            assert isinstance(results[1], ConcurrencyConflict)
            assert store.stats.batches == 1 and store.stats.alone == 1

    asyncio.run(main())


def test_fewer_appends_than_a_batch_is_worth_go_alone_side_by_side(nats_url: str) -> None:
    async def main() -> None:
        async with batching_store(nats_url, min_batch=len(TABLES) + 1) as store:
            results = await _append_all(store, dict.fromkeys(TABLES, 0), "a")
            assert all(isinstance(r, AppendResult) for r in results)
            assert (store.stats.batches, store.stats.alone) == (0, len(TABLES))

    asyncio.run(main())


def test_an_older_server_gets_every_append_alone(nats_url: str) -> None:
    """A stream that takes no atomic batches (what a server before 2.12 makes of
    ``allow_atomic``): ``check`` says so and every append goes alone."""

    async def main() -> None:
        async with batching_store(nats_url, atomic=False) as store:
            assert store.batching is False
            results = await _append_all(store, dict.fromkeys(TABLES, 0), "a")
            assert all(isinstance(r, AppendResult) for r in results)
            assert store.stats == type(store.stats)()  # nothing went through the batcher

    asyncio.run(main())
