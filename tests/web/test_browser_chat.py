"""Chat in the web client, in Debian's chromium, on a stack with the chat tests' tight limits and
word list (tests/gateway/chat_steps.py): the lobby's chat (a message reaches the other page,
masked; over-long, a link, a repeat and flooding are refused on screen and never stored), a
mute (the muted player's messages leave the page and the server leaves them out), and a table
that keeps spectators apart (a spectator's words reach the other spectators, never the
players)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.gateway.chat_steps import CHAT_ENV
from tests.gateway.stack import GatewayStack
from tests.web.browser import browser, start_web_stack
from tests.web.pages import create_table, guest, join, open_page
from tests.web.server import chat_of, person_of

__all__ = ["browser"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def chat_web(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[tuple[GatewayStack, str]]:
    stack, url = start_web_stack(tmp_path_factory.mktemp("chatweb"), nats_url, redis_url, CHAT_ENV)
    yield stack, url
    stack.stop()


def say(page: Any, text: str, box: str = "#lobby-chat-text") -> None:
    page.locator(box).fill(text)
    page.locator(box).press("Enter")


def wait_message(page: Any, text: str, room: str = "#lobby-chat") -> Any:
    line = page.locator(f"{room} li").filter(has_text=text)
    line.first.wait_for(timeout=30_000)
    return line


def status_says(page: Any, code: str) -> None:
    page.locator(".chat-status").filter(has_text=code).first.wait_for(timeout=30_000)


def test_lobby_chat_masks_refuses_on_screen_and_mutes(
    chat_web: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = chat_web
    ann_context, ann = open_page(browser, url)
    bob_context, bob = open_page(browser, url)
    guest(ann, "Ann")
    guest(bob, "Bob")
    tag = uuid.uuid4().hex[:6]
    say(ann, f"good luck {tag} darn")
    line = wait_message(bob, f"good luck {tag}")
    assert "Ann" in line.inner_text() and f"good luck {tag} ****" in line.inner_text()
    # refused, said on the page, stored nowhere
    say(ann, "x" * 51)
    status_says(ann, "CHAT_TOO_LONG")
    say(ann, f"see www.example.com {tag}")
    status_says(ann, "CHAT_LINK")
    assert ann.locator("#lobby-chat-text").input_value() == f"see www.example.com {tag}"
    say(bob, f"one {tag}")
    wait_message(bob, f"one {tag}")
    say(bob, f"one {tag}")
    status_says(bob, "CHAT_REPEATED")
    for n in ("two", "three", "four"):
        say(bob, f"{n} {tag}")
        wait_message(bob, f"{n} {tag}")
    say(bob, f"five {tag}")
    status_says(bob, "CHAT_TOO_FAST")
    # Ann mutes Bob: his messages leave her page, and the server sends her none of them
    wait_message(ann, f"four {tag}").first.get_by_role("button", name="Mute").click()
    ann.locator(".chat-muted button").filter(has_text="Unmute").wait_for()
    assert ann.locator("#lobby-chat li").filter(has_text=f"one {tag}").count() == 0
    end = f"end {tag}"
    say(ann, end)
    wait_message(ann, end)
    server = [m.text for m in chat_of(stack, person_of(ann), end)]
    assert f"good luck {tag} ****" in server
    assert not [t for t in server if re.search(rf"(one|two|four|five|example) {tag}", t)]
    bobs = [m.text for m in chat_of(stack, person_of(bob), end)]
    assert [t for t in bobs if tag in t] == [
        f"good luck {tag} ****",
        *(f"{n} {tag}" for n in ("one", "two", "three", "four")),
        end,
    ]  # nothing refused was kept
    ann_context.close()
    bob_context.close()


def test_spectators_chat_apart_at_a_table_that_says_so(
    chat_web: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = chat_web
    ann_context, ann = open_page(browser, url)
    cat_context, cat = open_page(browser, url)
    guest(ann, "Ann")
    guest(cat, "Cat")
    ann.locator("#new-spectator-chat").check()
    table_id = create_table(ann, ais=1)
    join(ann, table_id)
    cat.get_by_role("button", name="Refresh").click()
    cat.locator(f"tr[data-table='{table_id}']").get_by_role("button", name="Watch").click()
    cat.locator("#pots").wait_for()
    cat.locator(".chat-room").filter(has_text="You are watching").wait_for(timeout=30_000)
    tag = uuid.uuid4().hex[:6]
    say(cat, f"rail {tag}", "#table-chat-text")
    rail = wait_message(cat, f"rail {tag}", "#table-chat")
    assert "(watching)" in rail.inner_text()
    say(ann, f"table {tag}", "#table-chat-text")
    wait_message(cat, f"table {tag}", "#table-chat")  # spectators read both rooms
    wait_message(ann, f"table {tag}", "#table-chat")
    assert ann.locator("#table-chat li").filter(has_text=f"rail {tag}").count() == 0
    players = chat_of(stack, person_of(ann), f"table {tag}", table_id)
    assert [m.text for m in players if m.text.endswith(tag)] == [f"table {tag}"]
    watching = chat_of(stack, person_of(cat), f"table {tag}", table_id)
    rooms = {m.text: m.room for m in watching if m.text.endswith(tag)}
    assert rooms == {
        f"rail {tag}": f"table.{table_id}.spectators",
        f"table {tag}": f"table.{table_id}.main",
    }
    ann_context.close()
    cat_context.close()
