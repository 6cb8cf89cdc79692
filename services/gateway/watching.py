"""WatchTable: a player's stream of a table, each update one public commit of the table (and, at
the end of each burst, the player's own view), from a snapshot or from where the client was
(``from_sequence``: resumed from the store when the commits missed are still there and few
enough). Live commits come through ``TableFeeds`` (watch.py); a commit missed on the way is filled
from the store; a stream that fell behind its bounded queue ends ABORTED (``FELL_BEHIND``: resume
with from_sequence). The stream ends (OK) once its table has closed and it sent every commit. At
most ``HOLDEM_GATEWAY_WATCHES_PER_PLAYER`` streams per player (``TOO_MANY_WATCHES``).

Statuses and the resume rules: docs/gateway.md."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

import structlog
from holdem.common.v1 import common_pb2
from holdem.events.v1 import events_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.errors import Conflict, NotImplementedYet, ResourceExhausted
from libs.eventstore.projection import Projected
from libs.platform.server import Context
from libs.table.events import TableClosed
from services.gateway.base import GatewayBase
from services.gateway.watch import Listener

log = structlog.get_logger("gateway")

TOO_MANY_WATCHES = "TOO_MANY_WATCHES"
FELL_BEHIND = "FELL_BEHIND"
#: A closed table (its view's status), and the event type of the commit that closed it.
CLOSED = common_pb2.TABLE_STATUS_CLOSED
TABLE_CLOSED = TableClosed.__name__


class Watching(GatewayBase):
    async def WatchTable(
        self, request: gateway_pb2.WatchTableRequest, context: Context
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        claims = await self.admission.caller(context)
        if self.feeds is None:
            raise NotImplementedYet("GatewayService.WatchTable", "this gateway has no NATS")
        who = claims.player_id
        # the slot is taken before anything is awaited: parallel calls cannot all pass the check
        if not self.watches.try_acquire(who):
            raise ResourceExhausted(
                TOO_MANY_WATCHES,
                f"at most {self.config.watches_per_player} WatchTable streams per player",
            )
        began = self.clock()
        try:  # every way out gives the slot back (a refusal, a failure, the client leaving)
            async with contextlib.aclosing(self._watch(request, who)) as updates:
                async for update in updates:
                    yield update
        finally:
            self.watches.release(who, self.clock() - began)

    async def _watch(
        self, request: gateway_pb2.WatchTableRequest, who: str
    ) -> AsyncGenerator[gateway_pb2.TableUpdate, None]:
        assert self.feeds is not None
        table_id = request.table_id
        first = await self._view(table_id, who, self.rpc_timeout)  # NOT_FOUND: unknown table
        listener = await self.feeds.listen(table_id, self.config.watch_buffer)
        sent, how = 0, "returned"
        gone = any(seat.player_id == who and seat.disconnected for seat in first.seats)
        try:
            await self.presence.opened(who, table_id, marked_off=gone)
            async for update in self._follow(table_id, who, request.from_sequence, first, listener):
                yield update
                sent = update.sequence
        except BaseException as exc:  # the client left (GeneratorExit, cancelled), or a refusal
            how = type(exc).__name__
            raise
        finally:
            log.info("watch_ended", table_id=table_id, player_id=who, sequence=sent, how=how)
            self.presence.closed(who, table_id)  # the last stream closed: the grace period runs
            await self.feeds.leave(table_id, listener)

    async def _follow(
        self,
        table_id: str,
        who: str,
        from_sequence: int,
        first: common_pb2.PlayerView,
        listener: Listener,
    ) -> AsyncIterator[gateway_pb2.TableUpdate]:
        assert self.feeds is not None
        limit = self.config.watch_buffer
        last = from_sequence
        # the sequence at which the table is known to be closed (0: open): once everything up
        # to it is sent and nothing newer waits, the stream ends (nothing more will come)
        closed_at = first.sequence if first.table_status == CLOSED else 0
        backlog: list[Projected] = []
        if from_sequence:
            backlog = await self.feeds.read(table_id, from_sequence, limit + 1)
            resumable = len(backlog) <= limit and (
                (not backlog and first.sequence == from_sequence)  # nothing missed
                or (bool(backlog) and backlog[0].previous == from_sequence)
            )  # else: aged out, too many, or not a sequence of this table: a snapshot
            if not resumable:
                backlog = []
                last = 0
        if not last:
            snapshot = await self._view(table_id, who, self.rpc_timeout)
            last = snapshot.sequence
            if snapshot.table_status == CLOSED:
                closed_at = closed_at or last
            yield gateway_pb2.TableUpdate(
                table_id=table_id, sequence=last, snapshot=snapshot, view=snapshot
            )
        for index, commit in enumerate(backlog):
            tail = index == len(backlog) - 1 and listener.idle_after(commit.sequence)
            update = await self._update(table_id, who, commit, tail)
            yield update
            last = commit.sequence
            if closes_table(update):
                closed_at = closed_at or last
        while True:
            if closed_at and last >= closed_at and listener.idle_after(last):
                if listener.behind:  # a commit after the close was dropped: resume for it
                    raise_behind(last)
                return  # the table closed and the client has all of it: the stream ends (OK)
            live = await listener.next()
            if live is None:
                raise_behind(last)
            assert live is not None
            commit = live
            if commit.sequence <= last:
                continue  # already sent (read from the store, or delivered twice)
            if commit.previous != last:  # missed live messages: fill from the store
                missing = await self.feeds.read(table_id, last, limit + 1)
                if len(missing) > limit or not missing or missing[0].previous != last:
                    raise_behind(last)
                for fill in missing:
                    if fill.sequence > commit.sequence:
                        break
                    tail = fill.sequence == commit.sequence and listener.idle_after(fill.sequence)
                    update = await self._update(table_id, who, fill, tail)
                    yield update
                    last = fill.sequence
                    if closes_table(update):
                        closed_at = closed_at or last
                continue
            update = await self._update(table_id, who, commit, listener.idle_after(commit.sequence))
            yield update
            last = commit.sequence
            if closes_table(update):
                closed_at = closed_at or last

    async def _update(
        self, table_id: str, who: str, commit: Projected, with_view: bool
    ) -> gateway_pb2.TableUpdate:
        envelope = events_pb2.Commit.FromString(commit.data)
        update = gateway_pb2.TableUpdate(
            table_id=table_id,
            sequence=commit.sequence,
            previous=commit.previous,
            commit=gateway_pb2.ProjectedCommit(
                recorded_at=envelope.recorded_at,
                recorded=envelope.recorded,
                command_type=envelope.command_type,
            ),
        )
        if with_view:
            update.view.CopyFrom(await self._view(table_id, who, self.rpc_timeout))
        return update


def closes_table(update: gateway_pb2.TableUpdate) -> bool:
    """``update`` is the commit that closed its table (nothing but a late seed reveal follows)."""
    return any(record.type == TABLE_CLOSED for record in update.commit.recorded)


def raise_behind(last: int) -> None:
    """End a stream that fell behind (ABORTED): the client resumes where it was."""
    raise Conflict(
        FELL_BEHIND, f"this stream fell behind the table: resume with from_sequence={last}"
    )
