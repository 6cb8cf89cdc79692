"""Chat under least privilege (libs.devstack.access): with the stack's generated users, the
gateway's own code path (services/gateway/chatstore.py) makes the chat stream and buckets,
posts, reads back and keeps mutes and sanctions; no other service may post in chat."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from libs.chat.moderation import Action, Sanction
from services.gateway.chatstore import ChatStore
from tests.devstack.test_access import QUIET, Client, Servers, _eventually, servers

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]
__all__ = ["servers"]


def test_chat_is_the_gateways_alone(servers: Servers) -> None:
    async def scenario() -> None:
        gateway, table = Client(), Client()
        g = await gateway.connect(servers.nats_url("gateway"))
        t = await table.connect(servers.nats_url("table"))
        store = ChatStore(g, retention_seconds=3600, keep_per_room=100)
        await store.start()
        await store.start()  # a second gateway finds them made
        sequence = await store.post("lobby", {"sender_id": "p1", "text": "hi"}, "m1")
        assert await store.post("lobby", {"sender_id": "p1", "text": "hi"}, "m1") == sequence
        follow = store.follow("lobby", 0)
        first = await asyncio.wait_for(anext(follow), 10)
        await follow.aclose()
        assert (first.sequence, first.record["text"]) == (sequence, "hi")
        await store.set_mutes("p1", ["p2"])
        assert await store.mutes("p1") == ["p2"]
        await store.set_sanction("lobby", "p2", Sanction(Action.MUTE, 5.0))
        assert await store.sanction("lobby", "p2") == Sanction(Action.MUTE, 5.0)
        assert await store.sanction("lobby", "p3") is None
        table.errors.clear()
        await t.publish("holdem.chat.lobby", b'{"sender_id":"table","text":"cards"}')
        await t.flush()
        await asyncio.sleep(QUIET)
        assert await _eventually(lambda: table.violated("publish"))
        with contextlib.suppress(Exception):
            await t.close()
        await g.close()

    asyncio.run(scenario())
