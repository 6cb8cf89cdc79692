"""Reading a table's events from JetStream for the fairness audit: the one part of
``libs.fairdeck`` that does I/O (``audit`` and ``histories`` are pure)."""

from __future__ import annotations

from typing import Any

from libs.eventstore.jetstream import JetStreamEventStore
from libs.platform.natsconn import connect_nats
from libs.platform.tls import TlsFiles
from libs.tableproto.envelope import decode_commit

__all__ = ["read_table_events"]


async def read_table_events(
    nats_url: str, stream: str, table_id: str, tls: TlsFiles | None = None
) -> list[Any]:
    """Every event of ``table_id``'s stream, in order (the commits' events flattened); ``tls``
    for a ``tls://`` URL."""
    nc = await connect_nats(nats_url, tls)
    try:
        commits = await JetStreamEventStore(nc, stream=stream).read(table_id)
    finally:
        await nc.close()
    return [event for commit in commits for event in decode_commit(commit.data)[1]]
