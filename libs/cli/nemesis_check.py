"""The history of a ``holdem nemesis`` run and its checker.

``AckRecorder`` is the event store the tables write through: every append JetStream acknowledged
is recorded (the table, the stream sequence, the commit's id) the moment the acknowledgement
comes back, before the table service acts on it. ``check`` reads every table's stream once the
run is over and compares:

- lost: acknowledged commits that are not in the stream at their sequence with their id;
- duplicated: commits whose id appears more than once in a table's stream (a command applied
  twice);
- gaps: commits not appended on the one before them (``Nats-Expected-Last-Subject-Sequence``);
- chips conserved: at every hand's end and at the close, the chips at the table plus those that
  left it equal those that came in (buy-ins, top-ups), replaying the stream;
- with several writers (``holdem nemesis --network``'s replicas), ``isolation``: what a writer
  cut off from the network got acknowledged meanwhile (nothing may land), and what the other
  took over; ``stale_after_waking``: what a writer that was paused (stopped, not cut off) got
  acknowledged after it woke, while the other still held the tables it took over meanwhile
  (nothing may land); ``recovery``: seconds from a heal to the next acknowledged commit.
  When the client cannot see which writer answered (it plays through the gateway),
  ``attributed`` names each acknowledged commit's writer as the stream does (``Holdem-Writer``),
  and ``landed_while_cut_off`` counts what a cut-off writer got into the stream, acknowledged
  or not (each commit's recorded time against the cut).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from libs.eventstore import AppendResult, Commit, EventStore
from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.platform.natsconn import close_nats, connect_nats
from libs.poker.events import HandEnded, HandVoided
from libs.table import TableState, apply
from libs.table.events import ChipsAdded, PlayerLeft, PlayerSeated, TableClosed
from libs.tableproto.envelope import decode_commit, decode_stored
from services.table.commits import WRITER_HEADER

__all__ = [
    "FAULT_SECONDS",
    "RECOVERY_DEADLINE",
    "AckRecorder",
    "Acknowledged",
    "History",
    "acked_while_cut_off",
    "attributed",
    "check",
    "landed_while_cut_off",
    "read_streams",
    "recovered",
    "recovery",
    "stale_after_waking",
    "taken_over",
]

#: how long a fault lasts, at most (seconds), and how long a table may take to commit again
FAULT_SECONDS = (0.5, 2.0)
RECOVERY_DEADLINE = 60.0


@dataclass(frozen=True, slots=True)
class Acknowledged:
    table_id: str
    sequence: int
    msg_id: str
    at: float  # the run's clock, seconds
    by: str = ""  # the writer that got it acknowledged (a replica's name), when several write


@dataclass
class History:
    """What the run recorded: every acknowledged append, in order."""

    acknowledged: list[Acknowledged] = field(default_factory=list)

    def dump(self, path: Path) -> None:
        """Every acknowledgement as a JSON line (table, sequence, id, when, by), for reading
        what a failed check counted (kept with the run's directory: ``--keep``)."""
        with path.open("w") as out:
            for ack in self.acknowledged:
                out.write(json.dumps(dataclasses.astuple(ack)) + "\n")


class AckRecorder:
    """``EventStore`` over ``inner`` that records each acknowledged append in ``history``."""

    def __init__(self, inner: EventStore, history: History, clock: Any, by: str = "") -> None:
        self.inner = inner
        self.history = history
        self._clock = clock
        self.by = by

    async def append(
        self,
        stream_id: str,
        data: bytes,
        *,
        expected_last: int,
        msg_id: str,
        headers: dict[str, str] | None = None,
    ) -> AppendResult:
        result = await self.inner.append(
            stream_id, data, expected_last=expected_last, msg_id=msg_id, headers=headers
        )
        self.history.acknowledged.append(
            Acknowledged(stream_id, result.sequence, msg_id, self._clock(), self.by)
        )
        return result

    async def read(self, stream_id: str, after: int = 0) -> list[Commit]:
        return await self.inner.read(stream_id, after)

    async def last_sequence(self, stream_id: str) -> int:
        return await self.inner.last_sequence(stream_id)


@dataclass
class Verdict:
    """What ``check`` found over every table."""

    commits: int = 0
    lost: list[str] = field(default_factory=list)  # "table@sequence id"
    duplicated: int = 0
    gaps: int = 0
    hands: int = 0
    chip_failures: list[str] = field(default_factory=list)

    @property
    def chips_conserved(self) -> bool:
        return not self.chip_failures


def _chips(table_id: str, commits: list[Commit], verdict: Verdict) -> None:
    """Chips at the table plus those that left equal those that came in, at every hand's end
    and at the end of the stream."""
    state = TableState()
    came_in = went_out = 0
    for commit in commits:
        for event in decode_commit(commit.data)[1]:
            apply(state, event)
            if isinstance(event, PlayerSeated):
                came_in += event.stack
            elif isinstance(event, ChipsAdded):
                came_in += event.amount
            elif isinstance(event, PlayerLeft):
                went_out += event.stack
            elif isinstance(event, TableClosed):
                went_out += sum(stack for _, _, stack in event.stacks)
            if isinstance(event, HandEnded | HandVoided | TableClosed) or commit is commits[-1]:
                verdict.hands += isinstance(event, HandEnded | HandVoided)
                at_table = 0 if state.closed else state.total_chips()
                if came_in != went_out + at_table:
                    verdict.chip_failures.append(
                        f"{table_id}@{commit.sequence}: in {came_in} != out {went_out} + "
                        f"at the table {at_table}"
                    )


def check(streams: dict[str, list[Commit]], history: History) -> Verdict:
    """Compare every table's stream with what was acknowledged (module docstring)."""
    verdict = Verdict()
    stored = {
        (table_id, c.sequence): c.msg_id for table_id, commits in streams.items() for c in commits
    }
    for ack in history.acknowledged:
        if stored.get((ack.table_id, ack.sequence)) != ack.msg_id:
            verdict.lost.append(f"{ack.table_id}@{ack.sequence} {ack.msg_id}")
    for table_id, commits in streams.items():
        verdict.commits += len(commits)
        ids = Counter(c.msg_id for c in commits)
        verdict.duplicated += sum(n - 1 for n in ids.values() if n > 1)
        previous = 0
        for commit in commits:
            expected = commit.headers.get("Nats-Expected-Last-Subject-Sequence")
            if expected is None or int(expected) != previous:
                verdict.gaps += 1
            previous = commit.sequence
        if commits:
            try:
                _chips(table_id, commits, verdict)
            except Exception as exc:  # a stream missing commits may not even replay
                verdict.chip_failures.append(f"{table_id}: does not replay ({exc!r})")
    return verdict


def recovery(history: History, healed: float) -> float:
    """Seconds from a heal to the next acknowledged commit."""
    after = [a.at for a in history.acknowledged if a.at >= healed]
    return (min(after) - healed) if after else float("inf")


async def recovered(history: History, healed: float, clock: Any) -> None:
    """Wait until a commit was acknowledged after the last heal (or give up at the deadline)."""
    deadline = clock() + RECOVERY_DEADLINE
    while recovery(history, healed) == float("inf") and clock() < deadline:
        await asyncio.sleep(0.05)


def taken_over(history: History, cut_off: list[tuple[str, str, float, float]]) -> int:
    """For writers cut off from the network (or paused), each ``(writer, other writer, began,
    healed)``: how many appends the other writer made meanwhile on tables the cut-off one had
    committed to before (it took them over). Whether the cut-off writer itself got anything
    acknowledged is read from the streams (``landed_while_cut_off``, ``acked_while_cut_off``)."""
    count = 0
    for writer, other, began, healed in cut_off:
        its_tables = {a.table_id for a in history.acknowledged if a.by == writer and a.at < began}
        theirs = [a for a in history.acknowledged if a.by == other]
        count += sum(1 for a in theirs if began < a.at < healed and a.table_id in its_tables)
    return count


def attributed(history: History, streams: dict[str, list[Commit]]) -> History:
    """``history`` with each acknowledgement's writer (``by``) the one the stream names for
    the commit at its sequence (``Holdem-Writer``); "" for one the stream does not hold."""
    writers = {
        (table_id, c.sequence): c.headers.get(WRITER_HEADER, "")
        for table_id, commits in streams.items()
        for c in commits
    }
    return History(
        [
            dataclasses.replace(a, by=writers.get((a.table_id, a.sequence), ""))
            for a in history.acknowledged
        ]
    )


def landed_while_cut_off(
    streams: dict[str, list[Commit]],
    cut_off: list[tuple[str, str, float, float]],
    grace: float,
    epoch: float,
) -> set[tuple[str, int]]:
    """For writers cut off from the network, each ``(writer, other writer, began, healed)`` on
    the run's clock (``epoch``: the wall-clock time of its zero): the commits (table, sequence)
    in the streams that a cut-off writer recorded (decided) while cut off, past ``grace``
    seconds, whether anyone saw them acknowledged or not (nothing it sends may land)."""
    landed: set[tuple[str, int]] = set()
    for table_id, table_commits in streams.items():
        for commit in table_commits:
            writer = commit.headers.get(WRITER_HEADER, "")
            at = decode_stored(commit.data)[0] - epoch
            if any(w == writer and began + grace < at < healed for w, _, began, healed in cut_off):
                landed.add((table_id, commit.sequence))
    return landed


def acked_while_cut_off(history: History, landed: set[tuple[str, int]]) -> int:
    """How many of the commits that landed while their writer was cut off a player saw
    acknowledged. By when the commit was recorded, not when its answer was read: through the
    gateway a retry may be answered, after the cut began, with a commit made before it."""
    return sum(1 for a in history.acknowledged if (a.table_id, a.sequence) in landed)


def stale_after_waking(
    history: History, paused: list[tuple[str, str, float, float]], window: float
) -> int:
    """For writers that were paused, each ``(writer, other writer, began, woke)``: how many
    appends the paused writer got acknowledged within ``window`` seconds after it woke (the
    other writer's lease on the tables it took over outlasts that) on a table the other
    committed to while it slept, after the other's first commit there, while the other still
    wrote there (the other got an append with a higher sequence acknowledged within the same
    window): two writers at once, the woken one believing it still owned the table (must be
    none). Appends of its own that reached the store before the other took over count not,
    whenever their answer was read: their sequence is below the other's; nor does a clean
    handover back (the other gave the table up: a table service rebalances its shards once the
    woken replica is back), after which the other writes nothing more there."""
    stale = 0
    for writer, other, began, woke in paused:
        taken: dict[str, int] = {}  # table -> the other's first sequence there meanwhile
        last: dict[str, int] = {}  # table -> the other's last sequence there, up to the window
        for a in history.acknowledged:
            if a.by == other and began < a.at < woke:
                taken[a.table_id] = min(a.sequence, taken.get(a.table_id, a.sequence))
            if a.by == other and began < a.at <= woke + window:
                last[a.table_id] = max(a.sequence, last.get(a.table_id, a.sequence))
        stale += sum(
            1
            for a in history.acknowledged
            if a.by == writer
            and woke <= a.at <= woke + window
            and taken.get(a.table_id, float("inf")) < a.sequence < last.get(a.table_id, 0)
        )
    return stale


async def read_streams(
    url: str, table_ids: list[str], seconds: float = RECOVERY_DEADLINE
) -> dict[str, list[Commit]]:
    """Every table's stream, on a connection of its own, within ``seconds`` (again while a
    leader is elected after the last heal). The connection too: nats-py retries a first
    connection for good when told to reconnect for ever (a cluster gone held the run)."""
    nc = await asyncio.wait_for(connect_nats(url), seconds)
    deadline = time.monotonic() + seconds
    try:
        store = JetStreamEventStore(nc, stream=TABLE_STREAM)
        while True:
            try:
                return {t: await store.read(t) for t in table_ids}
            except Exception as exc:
                if time.monotonic() > deadline:
                    raise
                print(f"[nemesis] reading the streams: {exc!r:.100}; again", file=sys.stderr)
                await asyncio.sleep(0.5)
    finally:
        await close_nats(nc, drain_seconds=2.0)
