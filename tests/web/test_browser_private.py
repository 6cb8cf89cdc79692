"""Private tables in the web client, in Debian's chromium: created with a password, the table is
in no lobby list (neither on the pages nor in ListTables) and its creator gets an invite link;
a guest opening the link signs in and sits; a wrong password is refused on screen and seats
nobody, the right one seats; at a table whose creator approves each seat, the asker is told
to wait and sits once the creator lets them in from the table page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.stack import GatewayStack
from tests.web.browser import browser, web_stack
from tests.web.pages import create_table, guest, open_page
from tests.web.server import call, person_of, seated_ids

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def create_private(page: Any, password: str, ais: int, approve: bool = False) -> str:
    page.locator("#new-ais").fill(str(ais))
    page.locator("#new-private").check()
    page.locator("#new-password").fill(password)
    if approve:
        page.locator("#new-approve").check()
    status = page.locator(".lobby > p.status")
    before = status.inner_text()
    page.get_by_role("button", name="Create table").click()
    created = status.filter(has_text=re.compile(r"^Created \S+"))
    created.filter(has_not_text=before or "-").wait_for(timeout=30_000)
    page.locator("#invite-link").wait_for(timeout=30_000)
    return str(created.inner_text()).split(" ", 1)[1].strip()


def join_private(page: Any, where: str, password: str) -> None:
    page.locator("#private-table").fill(where)
    page.locator("#private-password").fill(password)
    page.get_by_role("button", name="Join private table").click()
    page.locator("#pots").wait_for(timeout=30_000)


def sits(page: Any) -> None:
    page.locator(".seat.mine").wait_for(timeout=30_000)


def test_a_private_table_by_invite_link_and_by_password(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    ann_context, ann = open_page(browser, url)
    guest(ann, "Ann")
    public_id = create_table(ann, ais=0)  # listed: the lobby's list is loaded once it shows
    table_id = create_private(ann, "sesame", ais=1)
    link = ann.locator("#invite-link").input_value()
    assert link.startswith(url) and f"table={table_id}" in link and "invite=" in link
    listed = call(
        stack, person_of(ann), "ListTables", gateway_pb2.ListTablesRequest(page_size=1000)
    )
    assert table_id not in {t.table_id for t in listed.tables}
    ann.get_by_role("button", name="Open my table").click()
    sits(ann)
    # Bob opens the invite link: he signs in as a guest and sits
    bob_context, bob = open_page(browser, link)
    bob.get_by_label("Name", exact=True).fill("Bob")
    bob.get_by_role("button", name="Play as guest").click()
    sits(bob)
    assert "invite" not in bob.url  # the code does not stay in the address bar
    # Cat has the id: a wrong password is refused and seats nobody; the right one seats her
    cat_context, cat = open_page(browser, url)
    guest(cat, "Cat")
    cat.locator(f"tr[data-table='{public_id}']").wait_for(timeout=30_000)
    assert cat.locator(f"tr[data-table='{table_id}']").count() == 0  # not listed
    join_private(cat, table_id, "open sesame")
    cat.locator("#status").filter(has_text="WRONG_TABLE_PASSWORD").wait_for(timeout=30_000)
    cat_id = person_of(cat).player_id
    assert cat.locator(".seat.mine").count() == 0
    assert seated_ids(stack, table_id) >= {person_of(ann).player_id, person_of(bob).player_id}
    assert cat_id not in seated_ids(stack, table_id)
    cat.get_by_role("button", name="Lobby").click()
    join_private(cat, table_id, "sesame")
    sits(cat)
    assert cat_id in seated_ids(stack, table_id)
    for context in (ann_context, bob_context, cat_context):
        context.close()


def test_the_creator_decides_who_sits(web_stack: tuple[GatewayStack, str], browser: Any) -> None:
    stack, url = web_stack
    dan_context, dan = open_page(browser, url)
    eve_context, eve = open_page(browser, url)
    guest(dan, "Dan")
    guest(eve, "Eve")
    table_id = create_private(dan, "door", ais=0, approve=True)
    dan.get_by_role("button", name="Open my table").click()
    sits(dan)
    join_private(eve, table_id, "door")
    eve.locator("#waitlist").filter(has_text="creator decides").wait_for(timeout=30_000)
    eve_id = person_of(eve).player_id
    assert eve_id not in seated_ids(stack, table_id)
    asked = call(
        stack,
        person_of(dan),
        "ListSeatRequests",
        gateway_pb2.ListSeatRequestsRequest(table_id=table_id),
    )
    assert list(asked.waiting_player_ids) == [eve_id]
    request = dan.locator(f"#seat-requests li[data-player='{eve_id}']")
    request.get_by_role("button", name="Let sit").click()
    sits(eve)  # her page asked again and was let in
    assert eve_id in seated_ids(stack, table_id)
    asked = call(
        stack,
        person_of(dan),
        "ListSeatRequests",
        gateway_pb2.ListSeatRequestsRequest(table_id=table_id),
    )
    assert not asked.waiting_player_ids
    dan_context.close()
    eve_context.close()
