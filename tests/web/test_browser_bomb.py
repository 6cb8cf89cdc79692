"""A bomb pot in the web client, in Debian's chromium: a table created with the straddle and
bomb pots by vote from the lobby's form, the seat's straddle setting switched on, a bomb pot
proposed (the AI agrees at once) and then played: the banner says so, the hand starts on the
flop with both antes in the pot, and play goes on to the next hand; the page never received a
card it may not see."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.e2e.play_support import shown_in_stream
from tests.gateway.stack import GatewayStack
from tests.web.browser import ARTIFACTS, browser, received, web_stack
from tests.web.pages import create_table, guest, hand_number, join, open_page, safe_turn

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


def _shown(stack: GatewayStack, table_id: str) -> Any:
    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        return pool.submit(asyncio.run, shown_in_stream(stack.nats_url, table_id)).result()


def _play_until(page: Any, done: Any, what: str, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            page.screenshot(path=str(ARTIFACTS / "bomb.png"), full_page=True)
            raise AssertionError(f"{what}: {page.locator('main').inner_text()}")
        if safe_turn(page) is None:  # never busted: the AI alone deals no more
            page.wait_for_timeout(50)


def test_a_bomb_pot_voted_in_the_browser_is_played_from_the_flop(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Bomber")
    page.locator("#new-straddle").check()
    page.locator("#new-bomb-ante").fill("4")
    page.locator("#new-bomb-vote").check()
    table_id = create_table(page, ais=1)
    join(page, table_id)
    straddle = page.locator("#straddle")
    straddle.filter(has_text="Straddle: off").wait_for(timeout=30_000)
    straddle.click()
    page.locator("#straddle").filter(has_text="Straddle: on").wait_for(timeout=30_000)

    page.get_by_role("button", name="Propose a bomb pot").click()
    banner = page.locator("#bomb-pot")
    _play_until(page, lambda: banner.count() > 0, "the bomb pot")
    bomb_hand = hand_number(page)
    assert bomb_hand >= 2  # proposed during (or after) the first hand, dealt the next
    pots = page.locator("#pots").inner_text()
    assert "Preflop" not in pots, pots  # the hand starts on the flop
    assert int(re.search(r"Pot (\d+)", pots).group(1)) >= 8  # type: ignore[union-attr]
    assert page.locator(".board .card").count() >= 3
    assert "anted 4" in banner.inner_text()

    _play_until(page, lambda: hand_number(page) > bomb_hand, "the hand after the bomb pot")
    assert page.locator("#bomb-pot").count() == 0  # a usual hand again
    me = page.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))[0]")
    spy = received(page, me)
    assert spy.updates and spy.views
    assert spy.problems(_shown(stack, table_id)) == []
    context.close()
