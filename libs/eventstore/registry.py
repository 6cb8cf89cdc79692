"""Which aggregates exist (e.g. the open tables), in a NATS KV bucket, so that replicas can find
tables nobody serves any more and take them over."""

from __future__ import annotations

import contextlib

from nats.aio.client import Client as NATS
from nats.js.api import KeyValueConfig, StorageType
from nats.js.errors import KeyNotFoundError
from nats.js.kv import KeyValue

from libs.eventstore.kv import open_bucket
from libs.eventstore.kvkeys import all_keys


class Registry:
    def __init__(self, nc: NATS, bucket: str = "holdem_tables", replicas: int = 1) -> None:
        self._nc = nc
        self.replicas = replicas
        self.bucket = bucket
        self._kv: KeyValue | None = None

    async def start(self) -> None:
        self._kv = await open_bucket(
            self._nc.jetstream(),
            KeyValueConfig(
                bucket=self.bucket, history=1, storage=StorageType.FILE, replicas=self.replicas
            ),
        )

    @property
    def kv(self) -> KeyValue:
        if self._kv is None:
            raise RuntimeError("Registry.start() was not called")
        return self._kv

    async def add(self, key: str) -> None:
        await self.kv.put(key, b"1")

    async def remove(self, key: str) -> None:
        with contextlib.suppress(KeyNotFoundError):
            await self.kv.delete(key)

    async def all(self) -> list[str]:
        return await all_keys(self._nc, self.bucket)
