"""Tournaments on the event store, like the lobby's aggregates (``libs.eventstore.aggregates``):
one JetStream commit per decided command (the events of one ``decide``), appended with the
expected last sequence and a message id (the command's key), state snapshots in Redis every
``snapshot_every`` commits. Stream HOLDEM_TOURNAMENTS, subjects ``holdem.tournament.<id>``;
which tournaments exist is the KV bucket ``holdem_tournaments`` (written before the first
commit, so a restarted service finds every tournament).
"""

from __future__ import annotations

from nats.aio.client import Client as NATS
from nats.js.api import StorageType, StreamConfig
from nats.js.errors import NotFoundError

from libs.eventstore import EventStore, SnapshotStore
from libs.eventstore.aggregates import Aggregates, Index, Kind
from libs.eventstore.jetstream import JetStreamEventStore
from libs.tournament import codec, decide, evolve, initial
from libs.tournament import commands as C
from libs.tournament import events as E
from libs.tournament.state import TournamentState

TOURNAMENT_STREAM = "HOLDEM_TOURNAMENTS"
TOURNAMENT_SUBJECTS = "holdem.tournament"
TOURNAMENT_INDEX = "holdem_tournaments"

TOURNAMENTS: Kind[TournamentState, E.Event] = Kind(
    name="tournament",
    initial=initial,
    evolve=evolve,
    encode_events=codec.encode_events,
    decode_events=codec.decode_events,
    encode_state=codec.encode_state,
    decode_state=codec.decode_state,
)


async def ensure_tournament_stream(nc: NATS, replicas: int = 1) -> None:
    """The JetStream stream of every tournament (created when missing)."""
    js = nc.jetstream()
    try:
        await js.stream_info(TOURNAMENT_STREAM)
    except NotFoundError:
        await js.add_stream(
            StreamConfig(
                name=TOURNAMENT_STREAM,
                subjects=[f"{TOURNAMENT_SUBJECTS}.>"],
                storage=StorageType.FILE,
                num_replicas=replicas,
                duplicate_window=120.0,
            )
        )


def jetstream_store(nc: NATS) -> JetStreamEventStore:
    return JetStreamEventStore(nc, stream=TOURNAMENT_STREAM, subject_prefix=TOURNAMENT_SUBJECTS)


class Tournaments:
    """Decide a command on a tournament and append its events as one commit."""

    def __init__(
        self,
        events: EventStore,
        snapshots: SnapshotStore | None,
        index: Index | None = None,
        snapshot_every: int = 50,
    ) -> None:
        self.events = events
        self.aggregates = Aggregates(TOURNAMENTS, events, snapshots, snapshot_every)
        self.index = index

    async def execute(self, tournament_id: str, command: C.Command, msg_id: str) -> TournamentState:
        """``command`` decided on the tournament's current state (a refusal raises its
        ``libs.errors`` kind, nothing appended); ``msg_id`` makes a retry append nothing."""
        if isinstance(command, C.CreateTournament) and self.index is not None:
            await self.index.put(tournament_id)
        return await self.aggregates.execute(tournament_id, lambda s: decide(s, command), msg_id)

    async def get(self, tournament_id: str) -> TournamentState:
        return await self.aggregates.get(tournament_id)

    async def ids(self) -> list[str]:
        return [] if self.index is None else await self.index.keys()


async def open_tournaments(
    nc: NATS, snapshots: SnapshotStore | None, snapshot_every: int = 50
) -> Tournaments:
    """The tournaments on this NATS (stream and index created when missing)."""
    await ensure_tournament_stream(nc)
    index = Index(nc, TOURNAMENT_INDEX)
    await index.start()
    return Tournaments(jetstream_store(nc), snapshots, index, snapshot_every)
