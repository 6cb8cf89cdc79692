"""The web lobby in a room with more tables than a page: newest first, so a table just opened
heads the first page, and the rest a page at a time (Older / Newer)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import CONFIG, GatewayStack, bearer
from tests.web.browser import browser, web_stack
from tests.web.pages import create_table, guest, open_page
from tests.web.server import every_table

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

PAGE = 50  # the web lobby's page (web/src/lobby.ts PAGE_SIZE)
OWN = 8  # tables per host (under the lobby's limit of open tables a player may have)


def _rows(page: Any) -> list[str]:
    return [str(r.get_attribute("data-table")) for r in page.locator("tr[data-table]").all()]


def test_the_lobby_pages_through_a_room_of_many_tables(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Ann")
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        listed = len(every_table(gw))
        oldest = ""
        owner = ""
        for n in range(max(0, PAGE + 5 - listed)):  # more open tables than a page holds
            if n % OWN == 0:  # a player may hold only so many open tables
                login = gateway_pb2.GuestLoginRequest(display_name=f"Host {n // OWN}")
                owner = gw.GuestLogin(login, timeout=30).token
            request = gateway_pb2.CreateTableRequest(name=f"Filler {n}", config=CONFIG)
            table = gw.CreateTable(request, metadata=bearer(owner), timeout=60).table
            oldest = oldest or table.table_id
        everything = every_table(gw)
    first_ever = everything[0]  # oldest first: the API's default order

    newest = create_table(page, ais=0)  # created from the page: it heads the first page
    first = _rows(page)
    assert first[0] == newest and len(first) == PAGE
    assert page.locator(".pages .page").inner_text() == f"Tables 1-{PAGE}, newest first"
    assert page.locator("#tables-newer").is_disabled()

    seen = list(first)
    clicks = 0
    while page.locator("#tables-older").is_enabled():
        before = page.locator(".pages .page").inner_text()
        page.locator("#tables-older").click()
        page.wait_for_function(
            "([before]) => document.querySelector('.pages .page').innerText !== before",
            arg=[before],
        )
        seen.extend(_rows(page))
        clicks += 1
    assert len(seen) == len(set(seen)) == len(everything) + 1  # each table once
    assert seen[-1] == first_ever and (not oldest or oldest in seen)

    assert clicks >= 1 and page.locator("#tables-newer").is_enabled()
    page.locator("#tables-newer").click()  # and back a page
    page.wait_for_function(
        "([label]) => document.querySelector('.pages .page').innerText.startsWith(label)",
        arg=[f"Tables {(clicks - 1) * PAGE + 1}-"],
    )
    context.close()
