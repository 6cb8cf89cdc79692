"""The lobby's aggregates on the event store (``libs.eventstore.aggregates``: commits appended
with the expected last sequence and a message id, snapshots in Redis, a cache that is caught up
before every read and never trusted by a decision).

Streams (JetStream stream HOLDEM_LOBBY, subjects ``holdem.lobby.<kind>.<id>``): ``player`` (the
wallet, libs/lobby/wallet.py), ``account`` (credentials by username), ``table`` (the catalogue).
Which ids exist is kept in NATS KV buckets (``Index``), written before the first commit, so a
restarted lobby finds every player and table.
"""

from __future__ import annotations

from nats.aio.client import Client as NATS
from nats.js.api import StorageType, StreamConfig
from nats.js.errors import NotFoundError

from libs.eventstore.aggregates import Aggregates, E, Index, Kind, S
from libs.eventstore.jetstream import JetStreamEventStore

__all__ = [
    "LOBBY_STREAM",
    "LOBBY_SUBJECTS",
    "Aggregates",
    "E",
    "Index",
    "Kind",
    "S",
    "ensure_lobby_stream",
    "jetstream_store",
]

LOBBY_STREAM = "HOLDEM_LOBBY"
LOBBY_SUBJECTS = "holdem.lobby"


async def ensure_lobby_stream(nc: NATS, replicas: int = 1) -> None:
    """One JetStream stream for every lobby aggregate (created when missing)."""
    js = nc.jetstream()
    try:
        await js.stream_info(LOBBY_STREAM)
    except NotFoundError:
        await js.add_stream(
            StreamConfig(
                name=LOBBY_STREAM,
                subjects=[f"{LOBBY_SUBJECTS}.>"],
                storage=StorageType.FILE,
                num_replicas=replicas,
                duplicate_window=120.0,
            )
        )


def jetstream_store(nc: NATS, kind: str) -> JetStreamEventStore:
    return JetStreamEventStore(nc, stream=LOBBY_STREAM, subject_prefix=f"{LOBBY_SUBJECTS}.{kind}")
