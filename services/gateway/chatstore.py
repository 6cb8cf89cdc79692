"""Where the gateway keeps chat: the JetStream stream ``HOLDEM_CHAT`` (subjects
``holdem.chat.<room>``, rooms as libs/chat/rooms.py names them), whose max age and messages per
room are the retention settings, so old messages go by themselves; the KV bucket
``holdem_chat_mutes`` (a player's muted players) and ``holdem_chat_sanctions`` (a moderator's
mutes and removals, ``<scope>.<player>``, each gone a week after it was set at most). Every
gateway shares them: a message posted at one is streamed by all."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from nats.aio.client import Client as NATS
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    KeyValueConfig,
    StorageType,
    StreamConfig,
)
from nats.js.errors import KeyNotFoundError, NotFoundError
from nats.js.kv import KeyValue

from libs.chat.moderation import MAX_SANCTION_SECONDS, Action, Sanction
from libs.eventstore.kv import open_bucket
from libs.eventstore.pull import position_of, pull_consumer, pull_following

CHAT_STREAM = "HOLDEM_CHAT"
CHAT_SUBJECT = "holdem.chat"
MUTES_BUCKET = "holdem_chat_mutes"
SANCTIONS_BUCKET = "holdem_chat_sanctions"


@dataclass(frozen=True)
class Posted:
    """A stored chat message: its position in the stream and what was recorded."""

    sequence: int
    record: dict[str, Any]


class ChatStore:
    def __init__(
        self, nc: NATS, *, retention_seconds: int, keep_per_room: int, replicas: int = 1
    ) -> None:
        self.js = nc.jetstream(timeout=5.0)
        self.retention_seconds = retention_seconds
        self.keep_per_room = keep_per_room
        self.replicas = replicas
        self._mutes: KeyValue | None = None
        self._sanctions: KeyValue | None = None

    async def start(self) -> None:
        """The stream and the buckets, made if missing (an existing stream takes this gateway's
        retention)."""
        config = StreamConfig(
            name=CHAT_STREAM,
            subjects=[f"{CHAT_SUBJECT}.>"],
            storage=StorageType.FILE,
            num_replicas=self.replicas,
            max_age=float(self.retention_seconds),
            max_msgs_per_subject=self.keep_per_room,
            duplicate_window=120.0,
        )
        try:
            info = await self.js.stream_info(CHAT_STREAM)
        except NotFoundError:
            await self.js.add_stream(config)
        else:
            same = info.config.max_age == config.max_age and (
                info.config.max_msgs_per_subject == config.max_msgs_per_subject
            )
            if not same:
                await self.js.update_stream(config)
        self._mutes = await open_bucket(
            self.js,
            KeyValueConfig(
                bucket=MUTES_BUCKET, history=1, storage=StorageType.FILE, replicas=self.replicas
            ),
        )
        self._sanctions = await open_bucket(
            self.js,
            KeyValueConfig(
                bucket=SANCTIONS_BUCKET,
                history=1,
                ttl=float(MAX_SANCTION_SECONDS + 60),
                storage=StorageType.FILE,
                replicas=self.replicas,
            ),
        )

    async def post(self, room: str, record: dict[str, Any], msg_id: str) -> int:
        """Store ``record`` in ``room``; a second post with ``msg_id`` (within two minutes) is
        the first one's position again."""
        ack = await self.js.publish(
            f"{CHAT_SUBJECT}.{room}",
            json.dumps(record, separators=(",", ":")).encode(),
            stream=CHAT_STREAM,
            headers={"Nats-Msg-Id": msg_id},
        )
        return int(ack.seq)

    async def follow(self, read: str, after: int) -> AsyncGenerator[Posted, None]:
        """The kept messages of the rooms ``read`` names (a subject tail, maybe a wildcard)
        after position ``after`` (0: all kept), then each new one, for as long as the caller
        reads."""
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE if after else DeliverPolicy.ALL,
            opt_start_seq=after + 1 if after else None,
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
            mem_storage=True,
        )
        subject = f"{CHAT_SUBJECT}.{read}"
        async with pull_consumer(self.js, subject, stream=CHAT_STREAM, config=config) as sub:
            async for msg in pull_following(sub):
                yield Posted(position_of(msg), json.loads(msg.data))

    async def mutes(self, player_id: str) -> list[str]:
        assert self._mutes is not None, "start() first"
        try:
            entry = await self._mutes.get(player_id)
        except KeyNotFoundError:
            return []
        return list(json.loads(entry.value or b"[]"))

    async def set_mutes(self, player_id: str, muted: list[str]) -> None:
        assert self._mutes is not None, "start() first"
        await self._mutes.put(player_id, json.dumps(muted).encode())

    async def sanction(self, scope: str, player_id: str) -> Sanction | None:
        assert self._sanctions is not None, "start() first"
        try:
            entry = await self._sanctions.get(f"{scope}.{player_id}")
        except KeyNotFoundError:
            return None
        data = json.loads(entry.value or b"{}")
        return Sanction(Action(data["action"]), float(data["until"]))

    async def set_sanction(self, scope: str, player_id: str, sanction: Sanction) -> None:
        assert self._sanctions is not None, "start() first"
        value = {"action": sanction.action.value, "until": sanction.until}
        await self._sanctions.put(f"{scope}.{player_id}", json.dumps(value).encode())
