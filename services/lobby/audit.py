"""The chip audit at one moment: the process manager first finishes what it can, then, with every
money move paused on every replica (the gate held exclusively), the wallets, every listed
table's chips (read from the table service, its public projection waited for up to that commit)
and the public commits the cash-out consumer has not applied yet (chips on their way to
wallets) are summed (libs/lobby/audit.py says what must hold)."""

from __future__ import annotations

import asyncio

from nats.aio.client import Client as NATS

from libs.lobby.audit import ChipAudit, TableChips
from libs.lobby.wallet import Wallet
from libs.table.errors import TABLE_NOT_FOUND
from services.lobby.app import Lobby
from services.lobby.cashout import CashOuts, money_pending, wait_projected
from services.lobby.gate import Gate
from services.lobby.sagas import Seating
from services.lobby.tables import TableRefusal, TableState

#: How long the audit waits for the tables that do not answer for now (moving between table
#: replicas) before it pauses money moves; a fifth of it once they are paused.
TABLE_WAIT_SECONDS = 10.0


async def audit_chips(
    nc: NATS, lobby: Lobby, seating: Seating, cashouts: CashOuts, gate: Gate
) -> ChipAudit:
    await seating.resume_all(grace_seconds=0.0)
    await lobby.refresh_tables()  # tables another replica listed a moment ago too
    loop = asyncio.get_running_loop()
    settle = loop.time() + TABLE_WAIT_SECONDS  # tables moving between table replicas settle
    for listing in list(lobby.listings.values()):  # before money moves are paused
        await _table_state(lobby, listing.table_id, settle)
    async with gate.exclusive():
        deadline = loop.time() + TABLE_WAIT_SECONDS / 5
        await lobby.refresh_tables()
        players = [await lobby.players.get(p) for p in await lobby.stores.player_index.keys()]
        players = [p for p in players if p.registered]
        tables: list[TableChips] = []
        through: dict[str, int] = {}
        seated = 0
        for listing in list(lobby.listings.values()):
            state = await _table_state(lobby, listing.table_id, deadline)
            if state is None:
                continue  # listed, never opened: nothing there
            await wait_projected(nc, listing.table_id, state.sequence)
            through[listing.table_id] = state.sequence
            seated += len(state.seats)
            tables.append(TableChips(listing.table_id, state.chips, listing.rake, state.sequence))
        by_id = {p.player_id: p for p in players}
        credited = set(by_id)

        def was_credited(player_id: str, table_id: str, sequence: int) -> bool:
            player = by_id.get(player_id)
            return player is not None and player.was_credited(table_id, sequence)

        def was_recorded(table_id: str, sequence: int) -> bool:
            listing = lobby.listings.get(table_id)
            return listing is not None and sequence <= listing.last_sequence

        pending = money_pending(await cashouts.pending(), through, was_credited, was_recorded)
        landed = await _reserved_on_tables(cashouts, players, through)
        return ChipAudit(
            grants=sum(p.granted for p in players),
            wallets=sum(p.balance for p in players),
            reserved=sum(p.reserved for p in players) - landed,
            on_tables=sum(t.on_table for t in tables),
            in_flight=sum(amount for who, amount in pending.credits if who in credited),
            rake=sum(t.rake for t in tables) + pending.rake,
            tables=tables,
            open_sagas=sum(len(p.reservations) for p in players),
            seated_players=seated,
            in_tournaments=sum(p.in_tournaments for p in players),
        )


async def _table_state(lobby: Lobby, table_id: str, deadline: float) -> TableState | None:
    """The table's state at the table service (None: never opened there), waiting until
    ``deadline`` (loop time) for a table between two table replicas (its lease held by one that
    stopped: UNAVAILABLE NOT_OWNER until it expires and another adopts the table)."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            return await lobby.tables.state(table_id)
        except TableRefusal as refusal:
            if refusal.code == TABLE_NOT_FOUND:
                return None
            if refusal.definitive or loop.time() > deadline:
                raise
        await asyncio.sleep(0.2)


async def _reserved_on_tables(
    cashouts: CashOuts, players: list[Wallet], through: dict[str, int]
) -> int:
    """Chips reserved by open sagas whose seat (or top-up) the table has already applied, in a
    commit the audit's table reads include: the lobby's call timed out (or its replica died)
    and the saga is not confirmed yet, so the chips are on the table and still reserved. Counted
    once, on the table."""
    open_by_table: dict[str, dict[str, int]] = {}
    for player in players:
        for saga, held in player.reservations.items():
            open_by_table.setdefault(held.table_id, {})[saga] = held.amount
    landed = 0
    for table_id, sagas in open_by_table.items():
        seated = await cashouts.seated_by(table_id, set(sagas))
        landed += sum(
            sagas[saga] for saga, sequence in seated.items() if sequence <= through.get(table_id, 0)
        )
    return landed
