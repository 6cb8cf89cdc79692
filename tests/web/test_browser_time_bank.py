"""The clock in the web client, in Debian's chromium: once a player's action clock has run out
and their time bank runs, the turn line says so and counts down to the bank's end, with no bank
left to add on top (the view's ``time_bank_running``; before, the page showed the whole bank
again beside a deadline that already held it)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import CONFIG, GatewayStack
from tests.web.browser import browser, web_stack
from tests.web.pages import guest, join, open_page
from tests.web.server import call, person_of

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def test_the_turn_line_counts_the_running_time_bank_once(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Eve")
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.max_seats, config.action_clock_seconds, config.time_bank_seconds = 2, 2, 40
    request = gateway_pb2.CreateTableRequest(
        name="Short clock", config=config, bots=[common_pb2.BOT_DIFFICULTY_EASY]
    )
    table_id = call(stack, person_of(page), "CreateTable", request).table.table_id
    page.get_by_role("button", name="Refresh").click()
    join(page, table_id)
    # her clock (2 s) runs out: the line counts down the bank alone, with nothing added to it
    banked = re.compile(r"^Your turn · \d+s \(time bank\)$")
    page.locator("#turn").filter(has_text=banked).wait_for(timeout=60_000)
    first = int(re.findall(r"(\d+)s", page.locator("#turn").inner_text())[0])
    assert 30 <= first <= 40, first
    page.wait_for_timeout(2_500)
    later = page.locator("#turn").inner_text()
    assert banked.match(later) and int(re.findall(r"(\d+)s", later)[0]) < first, later
    context.close()
