"""What a replica announces in the ``<bucket>_members`` KV bucket beside its liveness: the
address its callers reach it at and the number of shards it hashes tables into, so that a
caller can send each table's calls straight to the replica holding its shard
(libs/eventstore/owners.py). Older replicas announce ``b"1"``: alive, address unknown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

ALIVE = b"1"  # an announcement without an address (replicas from before routing)


@dataclass(frozen=True)
class Announcement:
    address: str | None = None  # host:port its callers reach it at; None: unknown
    shards: int | None = None  # the shard count it hashes tables into; None: unknown

    def encode(self) -> bytes:
        if self.address is None and self.shards is None:
            return ALIVE
        body: dict[str, object] = {}
        if self.address is not None:
            body["address"] = self.address
        if self.shards is not None:
            body["shards"] = self.shards
        return json.dumps(body, separators=(",", ":")).encode()

    @staticmethod
    def decode(value: bytes | None) -> Announcement:
        """Any value read from the bucket: ``b"1"``, empty or unreadable is an announcement
        without an address (never an error: a member entry is a hint)."""
        if not value or not value.startswith(b"{"):
            return Announcement()
        try:
            body = json.loads(value)
        except ValueError:
            return Announcement()
        if not isinstance(body, dict):
            return Announcement()
        address = body.get("address")
        shards = body.get("shards")
        return Announcement(
            address if isinstance(address, str) and address else None,
            shards if isinstance(shards, int) and shards > 0 else None,
        )
