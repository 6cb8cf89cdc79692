"""Rebalancing by whole shards (services/table/ownership.py): the decisions on fakes of the
lease and registry buckets (the real buckets: test_shards.py and test_takeover.py).

A shard is claimed before its first table's opening commit marks it in use, so a lone replica
opening tables one after another must count the shards it holds as in use, or it would take the
difference for its "fair share" being exceeded and hand shards back to nobody (an end-to-end run
stalled 40 s so when this was done per table)."""

from __future__ import annotations

import asyncio

from libs.eventstore.shards import shard_key, shard_of
from services.table.ownership import Ownership

SHARDS = 16


class FakeLeases:
    ttl = 5.0

    def __init__(self, owner: str, held: list[str], holders: dict[str, str]) -> None:
        self.owner = owner
        self._held = list(held)
        self._holders = holders
        self.released: list[str] = []

    async def announce(self) -> None:
        return None

    def held(self) -> list[str]:
        return list(self._held)

    async def holder(self, key: str) -> str | None:
        return self._holders.get(key)

    async def members(self) -> list[str]:
        return sorted({self.owner, *self._holders.values()})

    async def release(self, key: str) -> None:
        self.released.append(key)
        self._held.remove(key)

    async def acquire(self, key: str) -> bool:
        self._held.append(key)
        return True


class FakeRegistry:
    def __init__(self, keys: list[str]) -> None:
        self.keys = keys

    async def all(self) -> list[str]:
        return list(self.keys)

    async def add(self, key: str) -> None:
        if key not in self.keys:
            self.keys.append(key)


def tables_in(shard: int, count: int) -> list[str]:
    found: list[str] = []
    i = 0
    while len(found) < count:
        if shard_of(f"t{i}", SHARDS) == shard:
            found.append(f"t{i}")
        i += 1
    return found


def rebalance(
    leases: FakeLeases,
    tables: list[str],
    busy: set[str] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[str], list[str], list[str]]:
    in_use = FakeRegistry([])
    ownership = Ownership(leases, FakeRegistry(tables), in_use, SHARDS)  # type: ignore[arg-type]
    released: list[str] = []
    taken: list[str] = []

    async def take(table_id: str) -> None:
        taken.append(table_id)

    adopted = asyncio.run(ownership.rebalance(lambda s: s in busy, released.append, take))
    return released, adopted, taken


def test_a_lone_replica_keeps_the_shards_the_registry_does_not_list_yet() -> None:
    held = [shard_key(s) for s in range(6)]
    leases = FakeLeases("me", held, {k: "me" for k in held})
    released, adopted, _ = rebalance(leases, tables_in(0, 1))  # the registry is behind
    assert released == [] and adopted == []
    assert sorted(leases.held()) == sorted(held)


def test_a_replica_over_its_share_hands_whole_shards_back_idle_ones_first() -> None:
    held = [shard_key(s) for s in range(6)]
    others = {shard_key(s): "other" for s in range(6, 8)}
    leases = FakeLeases("me", held, {**{k: "me" for k in held}, **others})
    tables = [t for s in range(8) for t in tables_in(s, 3)]  # 8 shards, 2 replicas: 4 each
    busy = set(held[:4])
    released, _, _ = rebalance(leases, tables, busy)
    assert len(released) == 2 and len(leases.held()) == 4
    assert not busy & set(released)  # the idle shards went


def test_a_shard_nobody_holds_is_adopted_with_every_table_in_it() -> None:
    leases = FakeLeases("me", [shard_key(0)], {shard_key(0): "me"})
    orphans = tables_in(3, 5)
    released, adopted, taken = rebalance(leases, tables_in(0, 2) + orphans)
    assert released == [] and adopted == [shard_key(3)]
    assert sorted(taken) == sorted(orphans)  # each driven by its new owner


def test_the_work_of_a_round_does_not_grow_with_the_tables() -> None:
    """Lease calls per round: the same for 10 tables in a shard as for 1,000."""

    class Counting(FakeLeases):
        calls = 0

        async def holder(self, key: str) -> str | None:
            Counting.calls += 1
            return await super().holder(key)

    counts = []
    shards = [shard_key(s) for s in range(4)]
    for per_shard in (10, 1000):
        Counting.calls = 0
        tables = [t for s in range(4) for t in tables_in(s, per_shard)]
        leases = Counting("me", shards[:2], {k: "me" for k in shards[:2]})
        leases._holders.update({k: "other" for k in shards[2:]})
        rebalance(leases, tables)
        counts.append(Counting.calls)
    assert counts[0] == counts[1] == 2  # one look per shard held elsewhere
