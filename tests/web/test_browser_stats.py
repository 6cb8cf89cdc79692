"""Statistics and notes in the web client, in Debian's chromium: a guest plays hands against an
AI, clicks the AI's seat and sees its statistics (exactly what the gateway answers the same
player), writes a private note, edits and deletes it; a second browser watching the same table
sees the AI's seat with no note (notes are their author's only), and no page ever received a
card it could not see."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from holdem.gateway.v1 import gateway_pb2

from tests.e2e.play_support import shown_in_stream
from tests.gateway.stack import GatewayStack, bearer
from tests.web.browser import browser, received, web_stack
from tests.web.pages import create_table, guest, hand_number, join, open_page, safe_turn

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


def _panel(page: Any) -> dict[str, str]:
    """The statistics panel's rows: label -> value."""
    labels = page.locator("#stats dt").all_inner_texts()
    values = page.locator("#stats dd").all_inner_texts()
    return dict(zip(labels, values, strict=True))


def _ai_seat(page: Any) -> Any:
    return page.locator(".seat").filter(has_text="(AI)").first


def _open_ai(page: Any) -> dict[str, str]:
    _ai_seat(page).locator(".name").click()
    page.locator("#stats dt").first.wait_for(timeout=30_000)
    return _panel(page)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{round(value * 100)}%"


def _note_answer(page: Any, expected: str) -> None:
    """Wait for the note's answer, whichever it is, and check it (a refusal names its reason)."""
    page.wait_for_function("() => document.querySelector('#note-status').innerText !== ''")
    assert page.locator("#note-status").inner_text() == expected


def test_a_seat_shows_its_statistics_and_my_private_note(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Ann")
    table_id = create_table(page, ais=1)
    join(page, table_id)
    deadline = time.monotonic() + 240
    while hand_number(page) < 4:  # three hands over: counted in Ann's book
        assert time.monotonic() < deadline
        if safe_turn(page) is None:  # never busted: the AI alone deals no more
            page.wait_for_timeout(100)
    token = page.evaluate("sessionStorage.getItem('holdem.token')")
    ai_name = _ai_seat(page).locator(".name").inner_text().removesuffix(" (AI)")
    ai_id = ""

    def gateway_says() -> gateway_pb2.PlayerStats:
        with grpc.insecure_channel(stack.gateway.address) as channel:
            gw = stack.gateway_stub(channel)
            view = stack.view(table_id)
            nonlocal ai_id
            ai_id = next(s.player_id for s in view.seats if s.is_bot)
            request = gateway_pb2.GetPlayerStatsRequest(player_id=ai_id)
            return gw.GetPlayerStats(request, metadata=bearer(token), timeout=30).stats

    # the page says what the gateway says (a hand may end between the two: ask again)
    while True:
        assert time.monotonic() < deadline
        shown = _open_ai(page)
        truth = gateway_says()
        if shown.get("Hands") == str(truth.hands) and truth.hands >= 3:
            break
        page.wait_for_timeout(200)
    assert page.locator("#stats-title").inner_text().startswith(ai_name)
    assert shown["VPIP"] == _percent(truth.vpip if truth.HasField("vpip") else None)
    assert shown["PFR"] == _percent(truth.pfr if truth.HasField("pfr") else None)
    assert shown["3-bet"].endswith(f"({truth.three_bets}/{truth.three_bet_chances})")
    page.get_by_label("This table only").check()  # every hand was at this table
    page.wait_for_function(
        "([hands]) => Number(document.querySelector('#stats dd')?.innerText) >= hands",
        arg=[truth.hands],
    )
    page.get_by_label("This table only").uncheck()

    # a private note: written, read back, edited, deleted
    note = page.get_by_label("Your note")
    note.fill("calls too much")
    page.get_by_role("button", name="Save note").click()
    _note_answer(page, "Note saved")
    page.locator(".seat.mine .name").click()  # my own seat: no note about myself
    page.locator("#stats-title").filter(has_text="Ann: statistics").wait_for()
    assert not page.get_by_label("Your note").is_visible()
    _open_ai(page)
    page.wait_for_function("() => document.querySelector('#note').value === 'calls too much'")

    # a second browser watching the table: the AI's seat shows no note of Ann's
    other_context, other = open_page(browser, url)
    guest(other, "Bob")
    other.get_by_role("button", name="Refresh").click()
    other.locator(f"tr[data-table='{table_id}']").get_by_role("button", name="Watch").click()
    other.locator("#pots").wait_for()
    _ai_seat(other).wait_for()
    stats = _open_ai(other)
    assert stats["Hands"] == "0"  # Bob was dealt into none of them
    assert other.get_by_label("Your note").input_value() == ""

    note.fill("folds to 3-bets")
    page.get_by_role("button", name="Save note").click()
    _note_answer(page, "Note saved")
    page.get_by_role("button", name="Delete note").click()
    _note_answer(page, "Note deleted")
    _open_ai(page)
    assert page.get_by_label("Your note").input_value() == ""
    assert ai_id

    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        cards = pool.submit(asyncio.run, shown_in_stream(stack.nats_url, table_id)).result()
    for who in (page, other):
        me = who.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))[0]")
        assert received(who, me).problems(cards) == []
    other_context.close()
    context.close()
