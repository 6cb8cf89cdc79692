"""The idempotency window of a table: the keys of the commands committed in the last
``window`` seconds and each one's first outcome. This is the one place that answers "was this
command already committed?".

A command carries an idempotency key (the client's, or ``<table>:<sequence>:<Command>`` for an
automatic step) that becomes the commit's message id. Before deciding a command, the command
path looks its key up here: a known key is answered with the first outcome (its sequence and
events) and nothing is appended, whatever happened since (any number of commits, restarts,
Redis lost), for as long as the key is in the window.

The window is by age, not by count: a key stays until a commit recorded ``window`` seconds
after it (commit times are the table clock's, written in each commit), so its size is the
client commands of the last ``window`` seconds, whatever the table's history. It is filled from
three sources, so a retry is recognised across restarts too: every commit this process
appends, the keys kept in the snapshot (with their sequences and commit times; their events
are not kept), and every commit read from the stream after the snapshot (its message id is the
key). Losing the snapshot loses nothing: a full replay finds every key in the stream.

Automatic steps (deal, reveal, bots, the clock, the next hand) are not kept: their key names the
sequence they were decided on, a step worked out on an older sequence is dropped before it is
looked up, and the store's own duplicate check answers the one case left (the step's append
landed, its answer was lost). That keeps snapshots small while bots play hundreds of commits a
second.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, replace

from libs.table.events import Event

DEFAULT_WINDOW_SECONDS = 300.0


@dataclass(frozen=True)
class Outcome:
    """What a command did: the sequence of its commit and its events (``duplicate``: this is the
    answer to a retry, nothing new was appended; a key known only from a snapshot answers with
    its sequence and no events)."""

    sequence: int
    events: list[Event]
    duplicate: bool = False


@dataclass(frozen=True)
class _Entry:
    outcome: Outcome
    at: float | None  # commit time; None: from an old snapshot that did not keep it


class RecentCommits:
    """The keys of one table's client commands committed in the last ``window`` seconds."""

    def __init__(self, window: float = DEFAULT_WINDOW_SECONDS) -> None:
        self.window = window
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._newest = float("-inf")  # the latest commit time seen

    def first_outcome(self, key: str) -> Outcome | None:
        """The first outcome of the command with ``key``, as the answer to a retry."""
        first = self._entries.get(key)
        return None if first is None else replace(first.outcome, duplicate=True)

    def record(self, key: str, outcome: Outcome, at: float, automatic: bool = False) -> None:
        """A commit at time ``at``: keep its key (unless ``automatic``) and forget keys that
        are older than the window now."""
        if not automatic and key not in self._entries:
            self._entries[key] = _Entry(outcome, at)
        if at > self._newest:
            self._newest = at
            self._prune()

    def passed(self, at: float) -> None:
        """A commit at time ``at`` that keeps no key (``record`` of an automatic one)."""
        if at > self._newest:
            self._newest = at
            self._prune()

    def _prune(self) -> None:
        horizon = self._newest - self.window
        stale = []
        for key, entry in self._entries.items():  # in commit order
            if entry.at is None:
                self._entries[key] = replace(entry, at=self._newest)  # keep a full window
            elif entry.at >= horizon:
                break
            else:
                stale.append(key)
        for key in stale:
            del self._entries[key]

    def merge(self, other: RecentCommits) -> None:
        """Add what ``other`` (a fresh load of the same table) knows."""
        for key, entry in other._entries.items():
            self._entries.setdefault(key, entry)
        if other._newest > self._newest:
            self._newest = other._newest
            self._prune()

    def snapshot_keys(self) -> list[tuple[str, int, float | None]]:
        """The keys in the window with their sequences and commit times, for a snapshot."""
        return [(key, e.outcome.sequence, e.at) for key, e in self._entries.items()]

    @classmethod
    def from_snapshot_keys(
        cls, keys: list[tuple[str, int, float | None]], window: float = DEFAULT_WINDOW_SECONDS
    ) -> RecentCommits:
        recent = cls(window)
        for key, sequence, at in keys:
            recent._entries[key] = _Entry(Outcome(sequence, []), at)
            if at is not None and at > recent._newest:
                recent._newest = at
        return recent

    def __len__(self) -> int:
        return len(self._entries)
