"""The web client at harder moments, in Debian's chromium: the network cut for 5 s mid-hand (the
page resumes from its last sequence and says nothing was missed), two browsers at one table and
a third watching it (no page ever receives another's hidden cards), a fixed-limit table (only
the legal amount is offered), and a mobile-sized screen (375 px) that still offers every
control."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.e2e.play_support import shown_in_stream
from tests.gateway.stack import GatewayStack
from tests.web.browser import ARTIFACTS, browser, received, web_stack
from tests.web.pages import (
    click_and_wait,
    create_table,
    enabled_actions,
    guest,
    hand_number,
    join,
    open_page,
    passive_turn,
    safe_turn,
    sequence,
)
from tests.web.proxy import CuttableProxy

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


def _shown(stack: GatewayStack, table_id: str) -> Any:
    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        return pool.submit(asyncio.run, shown_in_stream(stack.nats_url, table_id)).result()


def test_the_page_resumes_after_the_network_is_cut_mid_hand(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    _, url = web_stack
    proxy = CuttableProxy(int(url.rstrip("/").rsplit(":", 1)[1]))
    context, page = open_page(browser, f"http://127.0.0.1:{proxy.port}/")
    guest(page, "Cut")
    table_id = create_table(page, ais=3)
    join(page, table_id)
    deadline = time.monotonic() + 120
    while not (hand_number(page) and page.locator(".seat.acting:not(.mine)").count()):
        assert time.monotonic() < deadline  # mid-hand, an AI to act: commits go on meanwhile
        if passive_turn(page) is None:
            page.wait_for_timeout(50)
    proxy.cut(5.0)
    page.locator("#connection").filter(has_text="Connection lost").wait_for(timeout=30_000)
    page.locator("#connection").filter(has_text="Reconnected").wait_for(timeout=30_000)
    assert "nothing missed" in page.locator("#connection").inner_text()
    # and play goes on from there: our next turn comes and is answered
    deadline = time.monotonic() + 180
    while passive_turn(page) is None:
        if time.monotonic() > deadline:
            page.screenshot(path=str(ARTIFACTS / "after-cut.png"), full_page=True)
            raise AssertionError(page.locator("main").inner_text())
        page.wait_for_timeout(100)
    context.close()
    proxy.close()


def test_two_browsers_at_one_table_never_see_each_other_s_cards(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    first_context, first = open_page(browser, url)
    second_context, second = open_page(browser, url)
    guest(first, "Ann")
    guest(second, "Bob")
    table_id = create_table(first, ais=1)
    second.get_by_role("button", name="Refresh").click()
    join(first, table_id)
    join(second, table_id)
    # and a third browser watches the table: a spectator, who may see only shown cards
    watcher_context, watcher = open_page(browser, url)
    guest(watcher, "Cat")
    watcher.locator(f"tr[data-table='{table_id}']").get_by_role("button", name="Watch").click()
    watcher.locator("#pots").wait_for()
    # Both guests check, call and show, but never call off their whole stack: an AI's shove
    # called by both could bust them both in one hand, and a table of its AI alone deals no
    # more (needs_a_person): the test would wait for hand 4 forever.
    deadline = time.monotonic() + 240
    while hand_number(first) < 4 and hand_number(second) < 4:
        assert time.monotonic() < deadline, _where(first, second, watcher)
        if safe_turn(first) is None and safe_turn(second) is None:
            first.wait_for_timeout(100)
    # the spectator follows the table to where the players are (a sequence, not a hand number:
    # between hands its page says "Waiting for the next hand")
    watcher.wait_for_function(
        "([at]) => Number(document.querySelector('section.table').dataset.sequence) >= at",
        arg=[min(sequence(first), sequence(second))],
        timeout=60_000,
    )
    assert watcher.locator(".actions button:not([disabled])").count() == 0
    shown = _shown(stack, table_id)
    for page in (first, second, watcher):
        me = page.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))[0]")
        spy = received(page, me)
        assert spy.updates and (spy.views or page is watcher)  # a spectator never acts
        assert spy.problems(shown) == []
    first_context.close()
    second_context.close()
    watcher_context.close()


def _where(*pages: Any) -> str:
    """What each page shows: for a deadline that passed."""
    return "\n----\n".join(page.locator("main").inner_text() for page in pages)


def test_a_fixed_limit_table_offers_only_the_legal_amount_on_a_small_screen(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    _, url = web_stack
    context, page = open_page(browser, url, width=375)
    guest(page, "Limit")
    table_id = create_table(page, ais=2, betting="Fixed limit")
    join(page, table_id)
    deadline = time.monotonic() + 180
    while True:
        assert time.monotonic() < deadline
        buttons = enabled_actions(page)
        if "Raise" in buttons or "Bet" in buttons:
            break
        if passive_turn(page) is None:
            page.wait_for_timeout(100)
    assert page.locator(".presets button").count() == 0  # no sizes to choose
    assert not page.get_by_label("Amount").is_visible()  # one legal amount: nothing to slide
    legal = page.get_by_label("Amount")
    assert legal.get_attribute("min") == legal.get_attribute("max")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width} px wide at 375"
    click_and_wait(page, buttons["Raise" if "Raise" in buttons else "Bet"])
    context.close()
