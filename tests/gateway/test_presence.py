"""The gateway's presence (services/gateway/presence.py), without processes: a player's last
stream of a table closing marks them disconnected after the grace period, unless a stream opens
or a call comes meanwhile; a stream or call after the mark marks them connected again; a stream
opened while the table shows them disconnected (another instance's mark) marks them back."""

from __future__ import annotations

import asyncio

from services.gateway.presence import Presence
from tests.conditions import wait_until


class Marks:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, bool]] = []

    async def __call__(self, player: str, table: str, connected: bool) -> None:
        self.sent.append((player, table, connected))


def test_the_last_stream_closing_marks_the_player_off_after_the_grace() -> None:
    async def body() -> None:
        marks = Marks()
        loop = asyncio.get_running_loop()
        presence = Presence(marks, 0.05, loop.time)
        await presence.opened("ann", "t", marked_off=False)
        await presence.opened("ann", "t", marked_off=False)
        presence.closed("ann", "t")  # one of two: still here
        await asyncio.sleep(0.1)
        assert marks.sent == []
        presence.closed("ann", "t")

        async def marked() -> bool:
            return marks.sent == [("ann", "t", False)]

        await wait_until(marked, "ann marked off")
        await presence.called("ann", "t")  # back through a call
        assert marks.sent[-1] == ("ann", "t", True)

    asyncio.run(body())


def test_a_stream_reopened_within_the_grace_marks_nothing() -> None:
    async def body() -> None:
        marks = Marks()
        loop = asyncio.get_running_loop()
        presence = Presence(marks, 0.2, loop.time)
        await presence.opened("bob", "t", marked_off=False)
        presence.closed("bob", "t")
        await presence.opened("bob", "t", marked_off=False)  # a resumed stream
        await asyncio.sleep(0.3)
        assert marks.sent == []
        await presence.opened("bob", "u", marked_off=True)  # marked off by another gateway
        assert marks.sent == [("bob", "u", True)]

    asyncio.run(body())


def test_a_gateway_shutting_down_marks_nobody_off() -> None:
    async def body() -> None:
        marks = Marks()
        loop = asyncio.get_running_loop()
        presence = Presence(marks, 0.05, loop.time)
        await presence.opened("cy", "t", marked_off=False)
        await presence.opened("dee", "t", marked_off=False)
        presence.closed("cy", "t")  # its grace period runs...
        presence.stop()  # ...and the shutdown cancels it
        presence.closed("dee", "t")
        await asyncio.sleep(0.1)
        assert marks.sent == [] and not presence.timers

    asyncio.run(body())
