"""A person in a real browser plays on the composed stack: the page the gateway's image serves on
the published HTTP port, its calls over Connect to the gateway container, the tables, dealer,
evaluator and AIs in their own containers. A guest creates a table with three AIs, joins it and
plays two whole hands with the mouse alone (check, call or show when it is their turn)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.containers.conftest import ComposeStack
from tests.web.browser import ARTIFACTS, browser
from tests.web.pages import create_table, guest, hand_number, join, open_page, passive_turn

__all__ = ["browser"]  # fixture

pytestmark = [pytest.mark.containers, pytest.mark.timeout(600)]

HANDS = 2


def test_a_guest_plays_hands_in_the_browser_against_the_composed_stack(
    compose_stack: ComposeStack, browser: Any
) -> None:
    context, page = open_page(browser, compose_stack.web)
    guest(page, "Boxed")
    table_id = create_table(page, ais=3)
    join(page, table_id)
    clicked: dict[str, int] = {}
    deadline = time.monotonic() + 300
    first = 0
    while True:
        number = hand_number(page)
        first = first or number
        if first and number >= first + HANDS:
            break
        if time.monotonic() > deadline:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "containers-stuck.png"), full_page=True)
            raise AssertionError(f"hands {first}..{number}: {clicked}\n{page.inner_text('main')}")
        sit_in = page.get_by_role("button", name="Sit in")
        if sit_in.count():  # busted by the AIs: buy more and play on
            page.get_by_role("button", name="Top up").click()
            page.wait_for_timeout(300)
            if sit_in.count():  # else the page already shows the seat back in play
                sit_in.click()
            # until the page shows the seat back in play, its view is the old one: topping up
            # again then would land in the next hand (HAND_IN_PROGRESS)
            sit_in.wait_for(state="detached", timeout=30_000)
            continue
        done = passive_turn(page)
        if done is None:
            page.wait_for_timeout(100)
        else:
            clicked[done] = clicked.get(done, 0) + 1
    assert clicked, "a whole hand went by without a turn for the person"
    assert page.locator("#status").inner_text() == ""
    context.close()
