"""Numbers typed into the web lobby's forms, in Debian's chromium: a value out of range, not
whole or too long for the API is refused on the page, naming the field and its range, and
nothing is created ("2.5" as the big blind failed silently, twenty digits showed an int64
encoding error, 0 seats made a 6-seat table); a private table's box that holds neither an invite
link nor an id says so, instead of "table_id: is required"; and a disabled button looks it (it
looked like every other)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from tests.gateway.stack import GatewayStack
from tests.web.browser import browser, web_stack
from tests.web.pages import guest, open_page
from tests.web.server import every_table

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

REFUSED = [
    ("#new-seats", "0", "Seats: a whole number from 2 to 10"),
    ("#new-seats", "11", "Seats: a whole number from 2 to 10"),
    ("#new-bb", "2.5", "Big blind: a whole number from 2 to 1,000,000,000,000"),
    ("#new-bb", "-5", "Big blind: a whole number from 2 to 1,000,000,000,000"),
    ("#new-bb", "9" * 20, "Big blind: a whole number from 2 to 1,000,000,000,000"),
    ("#new-ais", "6", "AI opponents: a whole number from 0 to 5"),
    ("#new-ais", "-1", "AI opponents: a whole number from 0 to 5"),
    ("#new-bomb-ante", "-1", "Bomb pot ante: a whole number from 0 to 1,000,000,000,000"),
    ("#new-bomb-every", "1001", "Bomb pot every N hands: a whole number from 0 to 1,000"),
]


def _tables(stack: GatewayStack) -> set[str]:
    """The open public tables' ids."""
    with grpc.insecure_channel(stack.gateway.address) as channel:
        return set(every_table(stack.gateway_stub(channel)))


def test_the_lobby_refuses_numbers_out_of_range_before_sending(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Numbers")
    # a button that does nothing now looks it (the first page has no newer one)
    newer = page.locator("#tables-newer")
    assert newer.is_disabled()
    assert float(newer.evaluate("b => getComputedStyle(b).opacity")) < 1
    before = _tables(stack)
    for field, value, said in REFUSED:
        page.reload()
        page.get_by_role("button", name="Create table").wait_for()
        page.locator(field).fill(value)
        page.get_by_role("button", name="Create table").click()
        page.wait_for_function(
            "([said]) => [...document.querySelectorAll('.lobby p.status')]"
            ".some(p => p.innerText === said)",
            arg=[said],
            timeout=10_000,
        )
    assert _tables(stack) <= before  # nothing was created
    for typed, said in [
        ("", "Give the table's invite link, or its id and password"),
        ("https://x/?y=1", "Not an invite link (…?table=…&invite=…) or a table id"),
    ]:
        page.get_by_label("Table id or invite link").fill(typed)
        page.get_by_role("button", name="Join private table").click()
        page.locator(".private-join .status").filter(has_text=said).wait_for(timeout=10_000)
    context.close()
