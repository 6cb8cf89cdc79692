"""Sitting out and blinds in a real browser (Debian's chromium, headless, driven by Playwright):
a guest creates a table with two AIs, joins, ticks "Sit out next big blind" (the box stays ticked
as the table confirms it), plays on passively (never calling off the whole stack: busted by an
AI the seat sits out with "no chips", which failed a CI run), and sees their seat sit out at its
big blind, the box unticked again (the setting is spent); the table's own stream says why they
sat out and that no hand after the setting had them post the big blind."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from libs.eventstore.jetstream import JetStreamEventStore
from libs.platform.natsconn import connect_nats
from libs.tableproto.envelope import decode_commit
from tests.gateway.stack import GatewayStack
from tests.web.browser import ARTIFACTS, browser, web_stack
from tests.web.pages import create_table, guest, join, open_page, safe_turn

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


async def _records(nats_url: str, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    nc = await connect_nats(nats_url)
    try:
        commits = await JetStreamEventStore(nc).read(table_id)
    finally:
        await nc.close()
    return [
        (record.type, json.loads(record.data))
        for stored in commits
        for record in decode_commit(stored.data)[0].recorded
    ]


def records(nats_url: str, table_id: str) -> list[tuple[str, dict[str, Any]]]:
    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        return pool.submit(asyncio.run, _records(nats_url, table_id)).result()


def test_sit_out_next_big_blind_sits_the_seat_out_at_its_big_blind(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Sitter")
    table_id = create_table(page, ais=2)
    join(page, table_id)
    mine = page.locator("li.seat.mine")
    mine.wait_for(timeout=30_000)
    box = page.get_by_label("Sit out next big blind")
    box.check()
    page.wait_for_function(  # the table's answer, or a refusal
        "() => document.querySelector('#opt-sit-out-next-bb').checked"
        " || document.querySelector('#status').innerText !== ''",
        timeout=30_000,
    )
    assert page.locator("#status").inner_text() == ""
    set_at = len(records(stack.nats_url, table_id))
    player = page.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))[0]")

    deadline = time.monotonic() + 300
    while "sitting out" not in mine.inner_text():
        if time.monotonic() > deadline:
            page.screenshot(path=str(ARTIFACTS / "seat-options-stuck.png"), full_page=True)
            raise AssertionError(page.locator("main").inner_text())
        if safe_turn(page) is None:  # never busted: that sits out too ("no chips")
            page.wait_for_timeout(100)
    assert not box.is_checked()  # spent once sat out
    assert page.get_by_role("button", name="Sit in").count() == 1

    stream = records(stack.nats_url, table_id)
    seat = next(
        d["seat"] for kind, d in stream if kind == "PlayerSeated" and d["player_id"] == player
    )
    assert (
        "PlayerSatOut",
        {
            "seat": seat,
            "reason": "sat out at the big blind",
            "player_id": player,
            "tournament": False,
        },
    ) in stream
    later = [d for kind, d in stream[set_at:] if kind == "HandBegan"]
    assert all(d["big_blind_seat"] != seat for d in later)
    context.close()
