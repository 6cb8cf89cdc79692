"""Rebalancing never sheds a table because the registry read lags what this replica holds
(services/table/ownership.py).

A table is claimed (its lease taken) before its opening commit adds it to the registry, so a
lone replica opening tables one after another saw fewer registered tables than it held, took
the difference for its "fair share" being exceeded, and released idle tables to nobody: their
next hand waited until some command claimed them again (an end-to-end run stalled 40 s so)."""

from __future__ import annotations

import asyncio

from services.table.ownership import Ownership


class FakeLeases:
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
    def __init__(self, tables: list[str]) -> None:
        self.tables = tables

    async def all(self) -> list[str]:
        return list(self.tables)


def rebalance(leases: FakeLeases, registered: list[str]) -> tuple[list[str], list[str]]:
    ownership = Ownership(leases, FakeRegistry(registered))  # type: ignore[arg-type]
    released: list[str] = []

    async def taken(table_id: str) -> None:
        return None

    adopted = asyncio.run(ownership.rebalance(lambda t: False, released.append, taken))
    return released, adopted


def test_a_lone_replica_keeps_the_tables_the_registry_does_not_list_yet() -> None:
    held = [f"t{i}" for i in range(6)]
    leases = FakeLeases("me", held, {t: "me" for t in held})
    released, adopted = rebalance(leases, held[:1])  # the registry is behind (or a read missed)
    assert released == [] and adopted == []
    assert sorted(leases.held()) == held


def test_a_replica_over_its_share_still_hands_idle_tables_to_the_others() -> None:
    held = [f"t{i}" for i in range(6)]
    others = {f"u{i}": "other" for i in range(2)}
    leases = FakeLeases("me", held, {**{t: "me" for t in held}, **others})
    registered = held + list(others)  # 8 tables, 2 replicas: a share of 4
    released, _ = rebalance(leases, registered)
    assert len(released) == 2 and len(leases.held()) == 4


def test_a_table_nobody_holds_is_adopted_within_the_share() -> None:
    leases = FakeLeases("me", ["t0"], {"t0": "me"})
    released, adopted = rebalance(leases, ["t0", "orphan"])
    assert released == [] and adopted == ["orphan"]
