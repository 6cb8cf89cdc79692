"""Which replica serves which table: a lease per table (NATS KV, renewed while held), the
registry of open tables, and adoption: taking over tables nobody serves (their owner died) up
to a fair share, and handing idle tables back when over it.

Leases decide who does the work; they are not the safety net. Every append carries the expected
stream sequence, so two replicas that both think they own a table can never both commit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

import structlog

from libs.eventstore.lease import LeaseLost, Leases
from libs.eventstore.registry import Registry
from libs.table.events import Event, TableOpened

log = structlog.get_logger("table")

NOT_OWNER = "NOT_OWNER"


class NotOwner(Exception):
    """Another replica serves this table (answered UNAVAILABLE: the client retries, and finds
    the owner, or this replica once the lease is free)."""

    code = NOT_OWNER
    kind = "unavailable"

    def __init__(self, table_id: str, holder: str | None) -> None:
        self.message = f"table {table_id} is served by {holder or 'another replica'}: retry"
        super().__init__(self.message)


def fair_share(tables: int, replicas: int) -> int:
    """Tables each replica should serve: the registered tables over the live replicas, rounded
    up (so every table has a taker)."""
    return -(-tables // max(replicas, 1))


class Ownership:
    """With no ``leases`` this process serves every table it is asked about (one replica)."""

    def __init__(self, leases: Leases | None, registry: Registry | None) -> None:
        self.leases = leases
        self.registry = registry

    async def claim(self, table_id: str) -> None:
        """Make sure this replica holds ``table_id``'s lease (taking it if free); NotOwner when
        another replica holds it."""
        if self.leases is None or self.leases.fresh(table_id):
            return
        if not await self.leases.acquire(table_id):
            raise NotOwner(table_id, await self.leases.holder(table_id))

    async def note_commit(self, table_id: str, events: Iterable[Event]) -> None:
        """A table that opened joins the registry of open tables."""
        if self.registry is None:
            return
        if any(isinstance(event, TableOpened) for event in events):
            await self.registry.add(table_id)

    async def closed(self, table_id: str) -> None:
        """A closed table leaves the registry (once its closing commit is public)."""
        if self.registry is not None:
            await self.registry.remove(table_id)

    async def renew(self) -> list[str]:
        """Renew every lease held; the tables whose lease was lost."""
        if self.leases is None:
            return []
        try:
            return await self.leases.renew_all()
        except LeaseLost:
            return []

    async def rebalance(
        self,
        busy: Callable[[str], bool],
        released: Callable[[str], None],
        taken: Callable[[str], Awaitable[None]],
    ) -> list[str]:
        """Take over tables that nobody serves, up to a fair share of the registered tables
        among the replicas alive; over the share while others are alive, hand idle tables
        (``busy`` false: no hand in play) back. ``released`` and ``taken`` are told of each
        table as it goes; return the tables taken."""
        if self.leases is None or self.registry is None:
            return []
        await self.leases.announce()
        held = set(self.leases.held())
        # The tables held count as registered whatever the registry read says: a table is
        # claimed before its opening commit adds it to the registry, and a read can miss keys.
        # Counting only the registry, a lone replica opening tables saw fewer tables than it
        # held and handed idle ones "back" to nobody (their next hand waited for a command).
        tables = sorted(set(await self.registry.all()) | held)
        holders: dict[str, str | None] = {}
        for table_id in tables:
            if table_id not in held:
                holders[table_id] = await self.leases.holder(table_id)
        replicas = (
            {h for h in holders.values() if h is not None}
            | set(await self.leases.members())
            | {self.leases.owner}
        )
        share = fair_share(len(tables), len(replicas))
        await self._release_over_share(held, share, busy, released)
        adopted = []
        for table_id, holder in holders.items():
            mine = holder == self.leases.owner  # held under our name before a restart
            if (holder is not None and not mine) or len(held) >= share:
                continue
            if await self.leases.acquire(table_id):
                held.add(table_id)
                adopted.append(table_id)
                log.info("table_adopted", table_id=table_id)
                await taken(table_id)
        return adopted

    async def _release_over_share(
        self,
        held: set[str],
        share: int,
        busy: Callable[[str], bool],
        released: Callable[[str], None],
    ) -> None:
        assert self.leases is not None
        for table_id in sorted(held):
            if len(held) <= share:
                break
            if busy(table_id):
                continue
            await self.leases.release(table_id)
            released(table_id)
            held.discard(table_id)
            log.info("table_released", table_id=table_id, share=share)
