"""A pot-limit Omaha hi-lo table in Debian's chromium: two people (two browsers, no AIs) check and
call every hand down to the showdown until the table splits a pot between a high hand and a
different low hand; the page shows that hand's split, each winner's amount with "(high)" or
"(low)", exactly as the table's own stream paid it.

The cards come from the real dealer (a fresh CSPRNG seed per hand), so the split is waited for
over a bounded number of hands: two hands checked down to the river split high and low between
different players about 28% of the time (simulated with libs.poker's evaluator over random deals),
so 50 hands all without one happen with probability 0.72^50, under 1e-7. The hands need no AI and
no clock: nothing happens at the table but what the test clicks."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.gateway.stack import GatewayStack
from tests.web.browser import ARTIFACTS, browser, web_stack
from tests.web.pages import create_table, guest, hand_number, join, open_page, passive_turn
from tests.web.truth import Award, awards_in_stream

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
HANDS = 50

#: The showdown on screen, read at one moment: its hand number and the winners' lines.
ON_SCREEN = """() => {
  const hand = document.querySelector('#showdown .showdown-hand');
  const lines = [...document.querySelectorAll('#showdown p.winner')].map((p) => p.innerText);
  return [hand ? Number(hand.innerText.replace('Hand ', '')) : 0, lines];
}"""


def _lines(awards: list[Award], names: dict[str, str]) -> list[str]:
    """The page's words for a hand's awards (web/src/table.ts)."""
    return [
        f"{names[player]} wins {amount}" + ("" if share == "whole" else f" ({share})")
        for player, amount, share in awards
    ]


def _split_between_players(awards: list[Award]) -> bool:
    high = {player for player, _, share in awards if share == "high"}
    low = {player for player, _, share in awards if share == "low"}
    return bool(high and low and high != low)


def test_an_omaha_hi_lo_split_pot_is_shown_as_high_and_low(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    contexts, pages = zip(*(open_page(browser, url) for _ in range(2)), strict=True)
    first, second = pages
    guest(first, "Ann")
    guest(second, "Bob")
    table_id = create_table(first, ais=0, betting="Pot limit", variant="Omaha Hi-Lo")
    second.get_by_role("button", name="Refresh").click()
    join(first, table_id)
    join(second, table_id)
    names = {
        page.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))[0]"): name
        for page, name in ((first, "Ann"), (second, "Bob"))
    }
    checked: set[int] = set()  # hands whose awards were held against the stream
    deadline = time.monotonic() + 540
    while True:
        hand, lines = first.evaluate(ON_SCREEN)
        if hand and hand not in checked and any(line.endswith(")") for line in lines):
            paid = awards_in_stream(stack.nats_url, table_id).get(hand)
            if paid is not None:  # the hand has ended at the table
                checked.add(hand)
                expected = _lines(paid, names)
                first.wait_for_function(  # the page shows exactly what the table paid
                    f"(want) => JSON.stringify(({ON_SCREEN})()) === JSON.stringify(want)",
                    arg=[hand, expected],
                    timeout=10_000,
                )
                if _split_between_players(paid):
                    break
        assert hand_number(first) <= HANDS, f"no hi-lo split in {HANDS} hands: {sorted(checked)}"
        assert time.monotonic() < deadline, first.locator("main").inner_text()
        if passive_turn(first) is None and passive_turn(second) is None:
            first.wait_for_timeout(50)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    first.screenshot(path=str(ARTIFACTS / "hi-lo-split.png"), full_page=True)
    shown = first.locator("#showdown").inner_text()
    assert "(high)" in shown and "(low)" in shown, shown
    for context in contexts:
        context.close()
