"""The feed of finished hands into the statistics books (player_stats.py): a durable JetStream
consumer of the tables' public projection (HOLDEM_PUBLIC: hidden cards are never in it), in
order, read by one replica at a time, as the cash-out consumer is (public_feed.py).

Per table it follows who sits where and the hand in progress. When a commit ends a hand, the
hand is cut as a spectator saw it (libs.history.played_hands), counted (libs.stats.hand_count)
and added to the book of every person dealt into it; then the commit is acknowledged. A lobby
killed in between gets the commit again, and a book that counted the hand already adds nothing.
A table whose earlier commits this process did not see (a restart, or another replica took
them) is caught up by reading them from the projection first (only counting what is
delivered). The books are event-sourced: rebuilt from their own stream, never from Redis."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from libs.eventstore.projection import read_public
from libs.history import StoredCommit, played_hands
from libs.poker.events import HandEnded, HandVoided
from libs.stats import HandCount, hand_count
from libs.table.events import Event, HandBegan, PlayerLeft, PlayerSeated
from libs.tableproto.public import PublicCommit, decode_public
from services.lobby.feed_lease import FeedLease
from services.lobby.player_stats import PlayerStats
from services.lobby.public_feed import (
    consume_forever,
    in_flight,
    projected_message,
    public_subscription,
)

log = structlog.get_logger("lobby.stats")

CONSUMER = "holdem-lobby-stats"
#: A commit not acknowledged in this time goes to the next holder of the feed (feed_lease.py),
#: which waits at most this long for the commits a replica that died left in flight.
ACK_WAIT_SECONDS = 10.0
#: Tables whose seats and hand in progress one process follows (the least recent forgotten:
#: it is read back from the projection when that table's next commit comes).
FOLLOWED_TABLES = 10_000


@dataclass
class _Table:
    """What one table's public commits said so far."""

    last: int = 0  # its last commit folded in
    seated: dict[int, PlayerSeated] = field(default_factory=dict)
    hand: list[Event] | None = None  # the hand in progress, from its HandBegan
    hand_seated: list[PlayerSeated] = field(default_factory=list)  # seats when it began
    began_at: float = 0.0


def fold(table: _Table, table_id: str, commit: PublicCommit) -> list[HandCount]:
    """Fold one public commit into ``table``; the hands it finished, counted."""
    finished: list[HandCount] = []
    for event in commit.events:
        if isinstance(event, PlayerSeated):
            table.seated[event.seat] = event
        elif isinstance(event, PlayerLeft):
            table.seated.pop(event.seat, None)
        elif isinstance(event, HandBegan):
            table.hand, table.hand_seated = [event], list(table.seated.values())
            table.began_at = commit.recorded_at
        elif table.hand is not None and type(event).__module__ == HandEnded.__module__:
            table.hand.append(event)
            if isinstance(event, HandEnded | HandVoided):
                count = _count(table, table_id, commit.recorded_at)
                if count is not None:
                    finished.append(count)
                table.hand = None
    table.last = commit.sequence
    return finished


def _count(table: _Table, table_id: str, ended_at: float) -> HandCount | None:
    assert table.hand is not None
    commits: list[StoredCommit] = [
        (0, table.began_at, list(table.hand_seated)),
        (1, table.began_at, list(table.hand)),
    ]
    hands = played_hands(commits, None)  # as a spectator saw it: no hole card at all
    if not hands:
        return None
    hand = hands[-1]
    hand.table_id = table_id
    return hand_count(hand)


class StatsFeed:
    def __init__(self, nc: NATS, stats: PlayerStats) -> None:
        self.nc = nc
        self.js = nc.jetstream(timeout=10.0)
        self.stats = stats
        self.tables: dict[str, _Table] = {}
        self.counted = 0  # hands added to books by this process
        self.lease = FeedLease(nc, CONSUMER, lambda: in_flight(self.js, CONSUMER), ACK_WAIT_SECONDS)

    async def _subscription(self) -> JetStreamContext.PullSubscription:
        return await public_subscription(self.js, CONSUMER, ACK_WAIT_SECONDS)

    async def run(self) -> None:
        """Consume for ever (reconnects on errors)."""
        await consume_forever(self._subscription, self.handle, "stats", self.lease)

    async def handle(self, msg: Msg) -> None:
        try:
            commit = decode_public(projected_message(msg))
        except Exception as exc:  # not a table commit: nothing in it to count
            log.error("undecodable public commit skipped", subject=msg.subject, error=str(exc))
            await msg.term()
            return
        try:
            for hand in await self.apply(commit):
                await self.stats.count(hand)
                self.counted += 1
            await msg.ack()  # lost: delivered again, and a book counts a hand once
        except Exception:
            self.tables.pop(commit.table_id, None)  # read it again next time
            with contextlib.suppress(Exception):
                await msg.nak(delay=0.5)
            raise

    async def apply(self, commit: PublicCommit) -> list[HandCount]:
        """Fold ``commit`` into its table (caught up first when commits before it were not
        seen here); the hands it finished."""
        table_id = commit.table_id
        table = self.tables.pop(table_id, None) or _Table()
        if commit.sequence <= table.last:  # delivered again (its first delivery was not
            table = _Table()  # acknowledged): what came before it is read again
        self.tables[table_id] = table  # the most recent last
        while len(self.tables) > FOLLOWED_TABLES:
            self.tables.pop(next(iter(self.tables)))
        if commit.previous != table.last:
            for projected in await read_public(self.nc, table_id, table.last):
                earlier = decode_public(projected)
                if earlier.sequence >= commit.sequence:
                    break
                _fold_safely(table, table_id, earlier)  # not counted: its own delivery counts it
        return _fold_safely(table, table_id, commit)


def _fold_safely(table: _Table, table_id: str, commit: PublicCommit) -> list[HandCount]:
    """``fold``, but a commit it cannot read (a bug, an event this version does not know how to
    count) costs that hand its statistics, not the feed: logged, and the hand forgotten."""
    try:
        return fold(table, table_id, commit)
    except Exception as exc:
        log.error(
            "hand not counted", table_id=table_id, sequence=commit.sequence, error=str(exc)[:200]
        )
        table.hand = None
        table.last = commit.sequence
        return []
