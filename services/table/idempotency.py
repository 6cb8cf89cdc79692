"""The idempotency window of a table: the keys of its latest commits and each one's first
outcome. This is the one place that answers "was this command already committed?".

A command carries an idempotency key (the client's, or ``<table>:<sequence>:<Command>`` for an
automatic step) that becomes the commit's message id. Before deciding a command, the command
path looks its key up here: a known key is answered with the first outcome (its sequence and
events) and nothing is appended. The window is filled from three sources, so a retry is
recognised across restarts too: every commit this process appends, every commit read from the
stream when the table loads (the tail after the snapshot), and the keys kept in the snapshot
itself (``SNAPSHOT_KEYS`` of them, with their sequences; their events are not kept). The event
store's own duplicate check (same message id as the last commit) is the safety net behind it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace

from libs.table.events import Event

RECENT_KEYS = 2048  # keys remembered in memory per table
SNAPSHOT_KEYS = 512  # of those, the latest kept in a snapshot


@dataclass(frozen=True)
class Outcome:
    """What a command did: the sequence of its commit and its events (``duplicate``: this is the
    answer to a retry, nothing new was appended)."""

    sequence: int
    events: list[Event]
    duplicate: bool = False


class RecentCommits:
    def __init__(self) -> None:
        self._outcomes: OrderedDict[str, Outcome] = OrderedDict()

    def first_outcome(self, key: str) -> Outcome | None:
        """The first outcome of the command with ``key``, as the answer to a retry."""
        first = self._outcomes.get(key)
        return None if first is None else replace(first, duplicate=True)

    def record(self, key: str, outcome: Outcome) -> None:
        self._outcomes[key] = outcome
        while len(self._outcomes) > RECENT_KEYS:
            self._outcomes.popitem(last=False)

    def merge(self, other: RecentCommits) -> None:
        """Add what ``other`` (a fresh load of the same table) knows."""
        self._outcomes.update(other._outcomes)

    def snapshot_keys(self) -> list[tuple[str, int]]:
        """The latest keys with their sequences, for a snapshot."""
        return [(key, o.sequence) for key, o in self._outcomes.items()][-SNAPSHOT_KEYS:]

    @classmethod
    def from_snapshot_keys(cls, keys: list[tuple[str, int]]) -> RecentCommits:
        window = cls()
        for key, sequence in keys:
            window._outcomes[key] = Outcome(sequence, [])
        return window

    def __len__(self) -> int:
        return len(self._outcomes)
