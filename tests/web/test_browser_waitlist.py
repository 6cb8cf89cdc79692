"""Waiting lists and seat changes in the web client, in Debian's chromium: joining a full table
puts the guest in line and the page shows their place (as GetWaitlist has it), pushed to it by
WatchWaitlist (the page never polls GetWaitlist); leaving the line; when a seat comes free the
first in line is offered it with its clock and takes it; a player
alone at a table moves to another free seat."""

from __future__ import annotations

from typing import Any

import pytest
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import GatewayStack
from tests.web.browser import browser, web_stack
from tests.web.pages import create_table, guest, join, open_page
from tests.web.server import call, person_of, seated_ids, table_now

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def place(stack: GatewayStack, page: Any, table_id: str) -> tuple[int, int]:
    w = call(
        stack, person_of(page), "GetWaitlist", gateway_pb2.GetWaitlistRequest(table_id=table_id)
    )
    return w.position, w.waiting


def wait_line(page: Any, text: str) -> None:
    page.locator("#waitlist").filter(has_text=text).wait_for(timeout=30_000)


def test_a_full_table_s_waiting_list_and_its_offered_seat(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    pages = {name: open_page(browser, url) for name in ("Ann", "Bob", "Cat")}
    ann, bob, cat = (page for _, page in pages.values())
    for name, (_, page) in pages.items():
        guest(page, name)
    ann.locator("#new-seats").fill("2")
    table_id = create_table(ann, ais=1)
    join(ann, table_id)  # Ann and the AI: full
    for page in (bob, cat):
        page.get_by_role("button", name="Refresh").click()
        join(page, table_id)
    wait_line(bob, "number 1 of")
    wait_line(cat, "number 2 of 2")
    assert place(stack, bob, table_id) == (1, 2)
    assert place(stack, cat, table_id) == (2, 2)
    assert person_of(bob).player_id not in seated_ids(stack, table_id)
    cat.get_by_role("button", name="Leave the waiting list").click()
    cat.locator("#status").filter(has_text="You left the waiting list").wait_for()
    assert place(stack, cat, table_id) == (0, 1)
    wait_line(bob, "number 1 of 1")
    # Ann leaves: her seat is offered to Bob, with its clock, and he takes it
    ann.get_by_role("button", name="Leave", exact=True).click()
    wait_line(bob, "A seat is yours for")
    bob.get_by_role("button", name="Take the seat").click()
    bob.locator(".seat.mine").wait_for(timeout=30_000)
    bob.wait_for_function("() => document.querySelector('#waitlist').innerText === ''")
    seated = seated_ids(stack, table_id)
    assert person_of(bob).player_id in seated and person_of(ann).player_id not in seated
    assert place(stack, bob, table_id) == (0, 0)
    asked = [u.rsplit("/", 1)[1] for u in bob.evaluate("window.__holdemReceived.map(e => e.url)")]
    assert "WatchWaitlist" in asked and "GetWaitlist" not in asked  # pushed, not polled
    for context, _ in pages.values():
        context.close()


def test_a_player_changes_seat(web_stack: tuple[GatewayStack, str], browser: Any) -> None:
    stack, url = web_stack
    context, page = open_page(browser, url)
    guest(page, "Dan")
    page.locator("#new-seats").fill("3")
    table_id = create_table(page, ais=0)
    join(page, table_id)
    page.locator(".seat.mine").wait_for()
    before = int(page.locator(".seat.mine").get_attribute("data-seat") or -1)
    choice = page.locator("#change-seat")
    choice.wait_for()
    target = next(
        v for v in choice.locator("option").all() if v.get_attribute("value") != str(before)
    )
    seat = int(target.get_attribute("value") or -1)
    choice.select_option(str(seat))
    page.get_by_role("button", name="Change seat").click()
    page.locator(f".seat.mine[data-seat='{seat}']").wait_for(timeout=30_000)
    me = person_of(page).player_id
    assert [s.seat for s in table_now(stack, table_id).seats if s.player_id == me] == [seat]
    context.close()
