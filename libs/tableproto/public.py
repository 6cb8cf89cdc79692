"""The table's public projection as readers see it: one ``holdem.events.v1.Commit`` per table
commit on ``HOLDEM_PUBLIC`` (subject ``holdem.public.table.<id>``), its events stripped of hidden
cards (``envelope.encode_public``). ``decode_public`` turns what ``libs.eventstore.projection.
read_public`` (or a consumer of the stream) returns into events; pure, no I/O.

A reader proves it missed nothing by chaining ``previous`` to the ``sequence`` before it (the
table's previous commit; 0 for its first)."""

from __future__ import annotations

from dataclasses import dataclass

from libs.eventstore.projection import Projected
from libs.table.events import Event
from libs.tableproto.envelope import decode_commit, recorded_seconds


@dataclass(frozen=True, slots=True)
class PublicCommit:
    table_id: str
    sequence: int  # the commit's sequence in the table's stream
    previous: int  # the table's commit before it (0: the first)
    events: list[Event]  # hidden cards removed
    causation_id: str  # the command's idempotency key
    command_type: str
    recorded_at: float  # seconds since the epoch


def decode_public(message: Projected) -> PublicCommit:
    """One message of the public projection, decoded."""
    commit, events = decode_commit(message.data)
    recorded = recorded_seconds(commit)
    return PublicCommit(
        message.stream_id,
        message.sequence,
        message.previous,
        events,
        commit.causation_id,
        commit.command_type,
        recorded,
    )


def chain_gaps(commits: list[PublicCommit], after: int = 0) -> list[tuple[int, int]]:
    """Where ``commits`` (read after table sequence ``after``) skip a commit: (expected
    previous, found previous) pairs; empty when none is missing."""
    gaps = []
    previous = after
    for commit in commits:
        if commit.previous != previous:
            gaps.append((previous, commit.previous))
        previous = commit.sequence
    return gaps
