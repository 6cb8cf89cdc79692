"""A person plays in a real browser (Debian's chromium, headless, driven by Playwright): a guest
opens the lobby, creates a 6-seat no-limit hold'em table with five AIs, joins it and plays 5 hands
by clicking (fold, check or call, a raise sized with a preset and the slider), reaches a showdown,
opens the replayer; every message the page received is checked for cards it may not see; the
lobby and the table mid-hand are kept as screenshots (build/web-screenshots)."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.e2e.play_support import shown_in_stream
from tests.gateway.stack import GatewayStack
from tests.web.browser import ARTIFACTS, SPY, browser, received, web_stack
from tests.web.pages import create_table, guest, join

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
HANDS = 5


def _hand_number(page: Any) -> int:
    found = re.search(r"Hand (\d+)", page.locator("#pots").inner_text())
    return int(found.group(1)) if found else 0


def test_a_guest_plays_five_hands_against_ais_with_the_mouse(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.add_init_script(SPY)
    page = context.new_page()
    page.goto(url)
    guest(page, "Webby")
    # earlier tests on this stack left tables in the lobby: join the one created here
    table_id = create_table(page, ais=5)
    page.screenshot(path=str(ARTIFACTS / "lobby.png"), full_page=True)
    join(page, table_id)

    used: dict[str, int] = {}
    showdowns = 0
    deadline = time.monotonic() + 420
    shot = False
    while _hand_number(page) <= HANDS:  # 0 between hands
        if time.monotonic() > deadline:
            page.screenshot(path=str(ARTIFACTS / "stuck.png"), full_page=True)
            raise AssertionError(f"still playing: {used}\n{page.locator('main').inner_text()}")
        if "shows" in page.locator("#showdown").inner_text():
            showdowns += 1
        sit_in = page.get_by_role("button", name="Sit in")
        if sit_in.count():  # busted (no hand starts without a person): buy more, play on
            page.get_by_role("button", name="Top up").click()
            page.wait_for_timeout(300)
            if sit_in.count():  # else the page already shows the seat back in play
                sit_in.click()
            # until the page shows the seat back in play, its view is the old one: topping up
            # again then would land in the next hand (HAND_IN_PROGRESS)
            sit_in.wait_for(state="detached", timeout=30_000)
            used["sat_in"] = used.get("sat_in", 0) + 1
            page.wait_for_timeout(300)
            continue
        enabled = page.locator(".actions button:not([disabled])").all()
        buttons = {b.inner_text().split(" ")[0]: b for b in enabled}
        if not buttons:
            page.wait_for_timeout(100)
            continue
        if not shot:
            page.screenshot(path=str(ARTIFACTS / "table.png"), full_page=True)
            shot = True
        if "Show" in buttons:
            choice = "Show"
        elif "Fold" in buttons and not used.get("Fold") and _hand_number(page) >= 2:
            choice = "Fold"
        elif ("Raise" in buttons or "Bet" in buttons) and not used.get("sized"):
            page.get_by_role("button", name="Half pot").click()
            slider = page.get_by_label("Amount")
            if slider.is_visible():
                slider.press("ArrowRight")  # the slider itself, one chip up from the preset
            choice = "Raise" if "Raise" in buttons else "Bet"
            used["sized"] = 1
        else:
            choice = "Check" if "Check" in buttons else "Call" if "Call" in buttons else "Fold"
        before = int(page.locator("section.table").get_attribute("data-sequence") or 0)
        buttons[choice].click()
        used[choice] = used.get(choice, 0) + 1
        page.wait_for_function(  # the answer (a later view) or a refusal
            "([before]) => Number(document.querySelector('section.table').dataset.sequence)"
            " > before || document.querySelector('#status').innerText !== ''",
            arg=[before],
            timeout=30_000,
        )
        assert page.locator("#status").inner_text() == "", page.locator("#status").inner_text()
    assert used.get("Fold") and used.get("sized"), used
    assert used.get("Call") or used.get("Check"), used
    # a showdown was seen (cards shown on the page) in one of the hands, or the log says so
    log = page.locator("#log").inner_text()
    assert showdowns or "shows" in log or used.get("Show"), (used, log)

    page.get_by_text("Hand history").click()
    page.get_by_role("button", name="Load hands").click()
    page.get_by_role("button", name="Next").click()
    page.wait_for_function("() => document.querySelector('#replay').innerText.length > 0")
    steps = page.locator("#replay-step").inner_text()
    assert re.match(r"2 / \d+", steps), steps

    me = page.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))[0]")
    spy = received(page, me)
    assert spy.updates and spy.views
    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        shown = pool.submit(asyncio.run, shown_in_stream(stack.nats_url, table_id)).result()
    assert spy.problems(shown) == []
    context.close()
