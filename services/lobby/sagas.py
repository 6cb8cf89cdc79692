"""Seating sagas: chips move between a wallet and a seat exactly once, whatever fails, times out or
is retried (docs/lobby.md, "Sagas").

Buy-in (saga id = hash of the caller's idempotency key and the player): (1) the saga is put in
the open-saga index, (2) the wallet reserves the chips (commit ``reserve-<saga>``), (3) the
table seats the player (SubmitCommand seat_player, idempotency key = saga id), (4) the wallet
confirms (``confirm-<saga>``) or, when the table refused, releases the reservation
(``release-<saga>``, the compensation), (5) the saga leaves the index. Every step is idempotent;
the process manager (``resume_all``, at start and every few seconds) drives every saga still in
the index from wherever it stopped. Before compensating a saga that may have reached the table
earlier, it looks for the saga's own commit in the table's public stream (the commit's causation
id is the saga id), so a seat that did happen is never refunded.

Leave: leaving.py. What the sagas share (saga ids, the open-saga index's entries, a table's
refusal as the caller's error): saga_common.py.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog

from libs.errors import (
    DomainError,
    InvalidArgument,
    NotFound,
    PreconditionFailed,
)
from libs.lobby import wallet, wallet_decide
from libs.lobby.catalogue import CLOSED, Listing
from libs.lobby.wallet import BUY_IN, TOP_UP, Outcome
from libs.platform.metrics.lobby import (
    SAGAS_COMPENSATED,
    SAGAS_FINISHED,
    SAGAS_STARTED,
    SAGAS_STUCK,
)
from libs.table import TableConfig

# the table's own codes, answered by the lobby too when it can tell before asking the table
from libs.table.errors import (
    BUY_IN_OUT_OF_RANGE,
    NO_SUCH_SEAT,
    TABLE_CLOSED,
    TABLE_NOT_FOUND,
)
from services.lobby.app import Lobby
from services.lobby.gate import Gate
from services.lobby.leaving import Leaving
from services.lobby.saga_common import (
    TABLE_UNAVAILABLE,
    Pending,
    index_entry,
    parse_index_entry,
    refusal_error,
    saga_id,
)
from services.lobby.tables import TableRefusal

log = structlog.get_logger("lobby.sagas")

BUY_IN_PENDING = "BUY_IN_PENDING"
STUCK_AFTER_SECONDS = 30.0
HOUSE_GRANT_ATTEMPTS = 3
#: The process manager leaves a saga reserved this recently to the call driving it.
RESUME_AFTER_SECONDS = 3.0
#: An indexed saga with no reservation is dropped from the index only this long after it was
#: indexed: until then a replica may be between indexing it and reserving.
INDEX_GRACE_SECONDS = 30.0

#: (table id, causation id) -> (table sequence, seat) of the table commit with that causation.
FindCommit = Callable[[str, str], Awaitable[tuple[int, int] | None]]


def check_buy_in(
    config: TableConfig,
    listing: Listing,
    kind: str,
    seat: int | None,
    amount: int,
    player: wallet.Wallet,
) -> None:
    """Refuse a buy-in (or top-up) that the table would refuse whatever its state: a closed
    table, a seat it does not have, a buy-in outside its range (a top-up above its maximum; the
    stack it adds to is the table's to check), more than the wallet holds (checked first, as
    the wallet's reservation did before the table was asked). The table and the wallet decide
    again: this only keeps a request they would refuse from writing anything."""
    if listing.status == CLOSED:
        raise PreconditionFailed(TABLE_CLOSED, "this table is closed")
    if amount > player.balance:
        raise PreconditionFailed(
            wallet_decide.NOT_ENOUGH_CHIPS,
            f"the wallet holds {player.balance} chips, {amount} were asked",
        )
    if seat is not None and not 0 <= seat < config.seats:
        raise InvalidArgument(NO_SUCH_SEAT, f"seats are numbered 0..{config.seats - 1}")
    if kind == TOP_UP:
        if amount > config.max_buy_in:
            raise InvalidArgument(
                BUY_IN_OUT_OF_RANGE,
                f"after a top-up a stack holds at most {config.max_buy_in} (the maximum buy-in)",
            )
    elif not config.min_buy_in <= amount <= config.max_buy_in:
        raise InvalidArgument(
            BUY_IN_OUT_OF_RANGE,
            f"the buy-in must be within {config.min_buy_in}..{config.max_buy_in}",
        )


class Seating(Leaving):
    """The buy-in and top-up sagas and their process manager (and, from leaving.py, the
    leave)."""

    def __init__(
        self,
        lobby: Lobby,
        gate: Gate,
        find_commit: FindCommit,
        *,
        leave_wait_seconds: float = 10.0,
    ) -> None:
        self.lobby = lobby
        self.players = lobby.players
        self.index = lobby.stores.saga_index
        self.tables = lobby.tables
        self.gate = gate
        self.find_commit = find_commit
        self.leave_wait = leave_wait_seconds
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, saga: str) -> asyncio.Lock:
        lock = self._locks.get(saga)
        if lock is None:
            lock = self._locks[saga] = asyncio.Lock()
        return lock

    # ---- buy-in ----

    async def join(
        self,
        player_id: str,
        table_id: str,
        seat: int | None,
        buy_in: int,
        wait_for_big_blind: bool,
        key: str,
    ) -> Outcome:
        """Buy in and take a seat; a retry with the same key answers the first outcome."""
        return await self._run(BUY_IN, player_id, table_id, seat, buy_in, wait_for_big_blind, key)

    async def seat_ais(self, table_id: str, levels: list[str], buy_in: int) -> list[Outcome | None]:
        """Seat one house AI per level at a new table (CreateTable with bots), each bought in
        with ``buy_in`` from its own wallet by the same saga as anyone (keys from the table id
        and the AI's place, so a retry seats nobody twice); all at once. An AI whose seat the
        table has not confirmed in time (None) is seated by the process manager when it does;
        one the table refused (None) got its reservation back (the saga's refund), so what was
        granted for it waits in its wallet for its next seat. The table exists either way, so
        the call does not fail for it."""
        numbers: dict[str, int] = {}
        places = []
        for index, level in enumerate(levels):
            numbers[level] = numbers.get(level, 0) + 1
            places.append((level, numbers[level], f"ai-{table_id}-{index}"))

        async def seat(level: str, number: int, key: str) -> Outcome | None:
            try:
                return await seat_once(level, number, key)
            except Pending:  # the table is slow: the process manager seats it later
                log.warning("ai seat pending", table_id=table_id, level=level, number=number)
            except Exception as exc:  # the table exists: CreateTable answers it all the same
                # (the table refused the seat, and the reservation was refunded to the AI)
                log.warning("ai not seated", table_id=table_id, level=level, error=str(exc)[:200])
            return None

        async def seat_once(level: str, number: int, key: str) -> Outcome | None:
            for attempt in range(HOUSE_GRANT_ATTEMPTS):
                grant_key = key if attempt == 0 else f"{key}-{attempt}"
                ai = await self.lobby.house_ai(level, number, buy_in, grant_key)
                try:
                    return await self.join(ai.player_id, table_id, None, buy_in, False, key)
                except PreconditionFailed as refusal:
                    # Another table (on any replica) bought this AI in between its grant and
                    # this reservation: grant again (a new grant key) and reserve again.
                    if refusal.code != wallet_decide.NOT_ENOUGH_CHIPS:
                        raise
                    if attempt == HOUSE_GRANT_ATTEMPTS - 1:
                        raise
            return None

        return await asyncio.gather(*(seat(*place) for place in places))

    async def top_up(self, player_id: str, table_id: str, amount: int, key: str) -> Outcome:
        """More chips to the player's seat, between their hands; same saga as a buy-in."""
        return await self._run(TOP_UP, player_id, table_id, None, amount, False, key)

    async def _run(
        self,
        kind: str,
        player_id: str,
        table_id: str,
        seat: int | None,
        amount: int,
        wait_for_big_blind: bool,
        key: str,
    ) -> Outcome:
        saga = saga_id(kind, player_id, key)
        player = await self.lobby.player(player_id)
        if saga not in player.outcomes and saga not in player.reservations:
            # What the lobby can tell is refused before anything is written (a retry of a saga
            # it has is answered its first outcome instead)
            listing = await self.lobby.table(table_id)
            check_buy_in(self.lobby.config_of(listing), listing, kind, seat, amount, player)
        async with self.gate.shared():
            fresh = saga not in player.reservations and saga not in player.outcomes
            if fresh:
                now = self.lobby.clock()
                await self.index.put(saga, index_entry(player_id, now))
                try:
                    await self.players.execute(
                        player_id,
                        lambda w: wallet_decide.reserve(
                            w, saga, kind, table_id, amount, seat, wait_for_big_blind, now
                        ),
                        msg_id=f"reserve-{saga}",
                    )
                except DomainError:
                    await self.index.remove(saga)
                    raise
                SAGAS_STARTED.labels(BUY_IN).inc()
            outcome = await self._drive(player_id, saga, fresh=fresh)
        if outcome is None:
            raise Pending(BUY_IN_PENDING, "the buy-in is being completed: retry with the same key")
        if outcome.code:
            raise refusal_error(outcome.code, outcome.status, outcome.message)
        return outcome

    async def _drive(
        self, player_id: str, saga: str, *, fresh: bool, unreserved_is_over: bool = True
    ) -> Outcome | None:
        """Take the saga one step further to its end; its outcome (None: still open).
        ``unreserved_is_over``: a saga with no reservation is over (a live call knows; the
        process manager only once its index entry is old enough that no replica can still be
        about to reserve it)."""
        async with self._lock(saga):
            player = await self.players.get(player_id)
            if saga in player.outcomes:
                await self.index.remove(saga)
                return player.outcomes[saga]
            held = player.reservations.get(saga)
            if held is None:  # indexed, never reserved (refused, or the lobby stopped between)
                if unreserved_is_over:
                    await self.index.remove(saga)
                return None
            try:
                sequence = await self._seat(player, saga, held)
            except TableRefusal as refusal:
                if not refusal.definitive:
                    log.warning("buy-in waits for the table", saga=saga, reason=str(refusal))
                    raise Pending(
                        TABLE_UNAVAILABLE,
                        "the table did not answer; the buy-in completes when it does: "
                        "retry with the same idempotency key",
                    ) from None
                found = None if fresh else await self.find_commit(held.table_id, saga)
                if found is None:
                    return await self._release(player_id, saga, refusal)
                sequence = found[0]
            return await self._confirm(player_id, saga, held, sequence)

    async def _seat(self, player: wallet.Wallet, saga: str, held: wallet.Reservation) -> int:
        async def attempt() -> int:
            return await self.tables.seat(
                held.table_id,
                saga,
                player.player_id,
                player.display_name,
                held.seat,
                held.amount,
                held.wait_for_big_blind,
                player.bot,
                player.bot_level,
            )

        if held.kind == TOP_UP:
            return await self.tables.add_chips(held.table_id, saga, player.player_id, held.amount)
        try:
            return await attempt()
        except TableRefusal as refusal:
            if refusal.code != TABLE_NOT_FOUND:
                raise
            try:  # from the stream when this replica has not seen the table yet
                listing = await self.lobby.table(held.table_id)
            except NotFound:
                raise refusal from None
        # Listed but never opened (the lobby stopped between the two): open it, then seat.
        await self.lobby.open_at_table(listing)
        return await attempt()

    async def _confirm(
        self, player_id: str, saga: str, held: wallet.Reservation, sequence: int
    ) -> Outcome:
        seat, stack = held.seat or 0, held.amount
        with contextlib.suppress(TableRefusal):
            state = await self.tables.state(held.table_id)
            mine = state.seat_of(player_id)
            if mine is not None:
                seat, stack = mine.seat, mine.stack
        now = self.lobby.clock()
        player = await self.players.execute(
            player_id,
            lambda w: wallet_decide.confirm(w, saga, seat, stack, sequence, now),
            msg_id=f"confirm-{saga}",
        )
        SAGAS_FINISHED.labels(BUY_IN).inc()
        await self.index.remove(saga)
        return player.outcomes[saga]

    async def _release(self, player_id: str, saga: str, refusal: TableRefusal) -> Outcome:
        now = self.lobby.clock()
        player = await self.players.execute(
            player_id,
            lambda w: wallet_decide.release(
                w, saga, refusal.code, refusal.status.name, refusal.message, now
            ),
            msg_id=f"release-{saga}",
        )
        outcome = player.outcomes[saga]
        SAGAS_COMPENSATED.labels(BUY_IN).inc()
        await self.index.remove(saga)
        return outcome

    # ---- the process manager ----

    async def resume_all(self, grace_seconds: float = RESUME_AFTER_SECONDS) -> int:
        """Drive every open saga; how many are still open. Every replica runs this, and any
        may drive any saga: each step is idempotent (the table answers a command's key with
        its first outcome, the wallet decides a step once, appends carry the expected
        sequence), so two drivers end the same way. Left alone: sagas this process is driving,
        and those reserved less than ``grace_seconds`` ago (a live call, maybe on another
        replica, is driving them: not worth a second table call)."""
        still_open = 0
        stuck = {BUY_IN: 0}
        now = self.lobby.clock()
        for saga in await self.index.keys():
            player_id, indexed_at = parse_index_entry(await self.index.get(saga))
            if not player_id or self._lock(saga).locked():
                still_open += 1
                continue
            if grace_seconds > 0:
                held = (await self.players.get(player_id)).reservations.get(saga)
                if held is not None and now - held.at < grace_seconds:
                    still_open += 1
                    continue
            try:
                async with self.gate.shared():
                    outcome = await self._drive(
                        player_id,
                        saga,
                        fresh=False,
                        unreserved_is_over=now - indexed_at > INDEX_GRACE_SECONDS,
                    )
            except Exception as exc:  # keep resuming the others
                log.warning("saga not finished yet", saga=saga, error=str(exc)[:200])
                outcome = None
            if outcome is None and await self.index.get(saga):
                still_open += 1
                held = (await self.players.get(player_id)).reservations.get(saga)
                if held is not None and now - held.at > STUCK_AFTER_SECONDS:
                    stuck[BUY_IN] += 1
        for kind, count in stuck.items():
            SAGAS_STUCK.labels(kind).set(count)
        return still_open

    async def run(self, every_seconds: float) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.lobby.open_pending()
            with contextlib.suppress(Exception):
                await self.resume_all()
            await asyncio.sleep(every_seconds)
