"""Where a director got to in a tournament's stream: the last commit it finished, the state
after it, and how many events of the next commit are done (their directives carried out to
completion). Kept in the snapshot store (Redis) under ``director:<tournament>``, saved after
every event, so a director that crashed redoes at most the directives of one event (each keyed,
so the redo changes nothing). The snapshot's sequence is ``after * 1_000_000 + done``, so the
store's compare-and-set never lets an older position overwrite a newer one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from libs.eventstore import SnapshotStore
from libs.tournament import codec, initial
from libs.tournament.state import TournamentState

_SPAN = 1_000_000  # more events than one commit ever holds


@dataclass(frozen=True)
class Position:
    state: TournamentState  # after commit ``after``
    after: int  # the last commit carried out entirely (0: none)
    done: int  # events of the commit after it whose directives are done


class Checkpoints:
    def __init__(self, store: SnapshotStore) -> None:
        self._store = store
        self._state_bytes: dict[tuple[str, int], str] = {}

    @staticmethod
    def key(tournament_id: str) -> str:
        return f"director:{tournament_id}"

    async def load(self, tournament_id: str) -> Position:
        snap = await self._store.load(self.key(tournament_id))
        if snap is None:
            return Position(initial(tournament_id), 0, 0)
        body = json.loads(snap.data)
        state = codec.decode_state(body["state"].encode())
        return Position(state, body["after"], body["done"])

    async def save(self, tournament_id: str, position: Position) -> None:
        cached = (tournament_id, position.after)
        encoded = self._state_bytes.get(cached)
        if encoded is None:  # once per commit: the state is the same for all its events
            self._state_bytes = {cached: codec.encode_state(position.state).decode()}
            encoded = self._state_bytes[cached]
        body = {"after": position.after, "done": position.done, "state": encoded}
        await self._store.save(
            self.key(tournament_id),
            position.after * _SPAN + position.done,
            json.dumps(body, separators=(",", ":")).encode(),
        )
