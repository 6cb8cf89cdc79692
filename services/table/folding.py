"""How a table is rebuilt from its stream: the codec the repository loads a table with (start
empty, fold commits, encode and decode a snapshot), keeping the table's idempotency window of
client keys beside its state; and what a stored commit looks like in the public projection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from libs.eventstore import Commit, Projectable
from libs.table import TableState, codec
from libs.table.settling import Replay
from libs.tableproto.envelope import public_of_stored, split_stored
from services.table.idempotency import Outcome, RecentCommits


@dataclass
class Folded:
    """What the repository rebuilds: the state and the window of keys seen on the way."""

    state: TableState
    recent: RecentCommits


class TableCodec:
    """How the repository starts, folds and (de)serializes a table with its idempotency window
    (``window`` seconds of client keys)."""

    def __init__(self, window: float) -> None:
        self.window = window

    def initial(self, table_id: str) -> Folded:
        return Folded(TableState(), RecentCommits(self.window))

    def fold(self, folded: Folded, commit: Commit) -> Folded:
        """One commit: every event applied (a run of one settles no hand)."""
        return self.fold_many(folded, [commit])

    def fold_many(self, folded: Folded, commits: list[Commit]) -> Folded:
        """Each commit in turn, in place (the folded state is ours alone), settling the hands
        that are over (libs/table/settling.py): a client's command keeps its events (the answer
        to its retry), the table's own steps only their time."""
        split = [split_stored(commit.data) for commit in commits]
        replay = Replay(folded.state, [kinds for _, _, kinds, _, _ in split])
        recent = folded.recent
        for index, (commit, (at, automatic, kinds, versions, datas)) in enumerate(
            zip(commits, split, strict=True)
        ):
            events = replay.commit(index, kinds, versions, datas, keep=not automatic)
            if automatic:
                recent.passed(at)
            else:
                recent.record(commit.msg_id, Outcome(commit.sequence, events), at)
        return folded

    def encode(self, folded: Folded) -> bytes:
        return codec.snapshot_dumps(folded.state, folded.recent.snapshot_keys())

    def decode(self, payload: bytes) -> Folded:
        state, keys = codec.snapshot_loads(payload)
        return Folded(state, RecentCommits.from_snapshot_keys(keys, self.window))


def public_projection(seeds: bool) -> Callable[[Commit], Projectable]:
    """A stored commit as the public projection shows it (``seeds``: revealed seeds too), for
    the projector's catch-up of commits it did not publish itself."""

    def project(commit: Commit) -> Projectable:
        return Projectable(*public_of_stored(commit.data, commit.sequence, seeds))

    return project
