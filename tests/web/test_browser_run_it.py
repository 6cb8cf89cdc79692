"""Run it twice and the rabbit hunt in the web client, in Debian's chromium, two guests heads-up
at a table that offers both: a hand folded before the flop, then "Rabbit hunt" shows both pages
the cards that would have come (those the table's stream recorded); a hand both players are all
in before the flop runs it twice (Bob agreed in advance with the seat setting, Ann answers the
question), and each page shows both runs' boards and what each run paid, as the stream dealt
and paid them. Neither page ever received a run's or the rabbit's card before it was public,
nor the other's hidden cards."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.e2e.play_support import shown_in_stream
from tests.gateway.stack import GatewayStack
from tests.web.browser import ARTIFACTS, browser, received, web_stack
from tests.web.pages import click_and_wait, create_table, enabled_actions, guest, join, open_page
from tests.web.server import card_text, person_of, table_events, table_now

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]


def cards_of(page: Any, selector: str) -> list[str]:
    return [str(c.get_attribute("data-card")) for c in page.locator(f"{selector} .card").all()]


def hunt_a_rabbit(pages: list[Any]) -> None:
    """Fold each hand at once until a page got to ask for the rabbit between hands (the next
    hand waits 5 s for it; a slow click may miss that and try again)."""
    deadline = time.monotonic() + 120
    while not pages[0].locator("#rabbit .card").count():
        assert time.monotonic() < deadline, pages[0].locator("main").inner_text()
        for page in pages:
            hunt = page.get_by_role("button", name="Rabbit hunt")
            if hunt.count():
                hunt.click()
                page.wait_for_timeout(300)  # SEED_NOT_REVEALED for a moment: ask again
            elif "Fold" in (buttons := enabled_actions(page)):
                click_and_wait(page, buttons["Fold"])
        pages[0].wait_for_timeout(50)


def all_in_and_run_twice(pages: list[Any]) -> None:
    deadline = time.monotonic() + 120
    while not all(page.locator("#runs .run[data-run='2'] .run-winner").count() for page in pages):
        assert time.monotonic() < deadline, pages[0].locator("main").inner_text()
        for page in pages:
            twice = page.locator("#run-it").get_by_role("button", name="Twice")
            if twice.count():
                twice.click()
                continue
            buttons = enabled_actions(page)
            for name in ("All-in", "Call", "Show"):
                if name in buttons:
                    click_and_wait(page, buttons[name])
                    break
        pages[0].wait_for_timeout(50)


def test_the_rabbit_hunt_and_running_it_twice(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    (ann_context, ann), (bob_context, bob) = open_page(browser, url), open_page(browser, url)
    guest(ann, "Ann")
    guest(bob, "Bob")
    ann.locator("#new-seats").fill("2")
    ann.locator("#new-run-it").select_option(label="Twice")
    ann.locator("#new-rabbit").check()
    table_id = create_table(ann, ais=0)
    join(ann, table_id)
    bob.get_by_role("button", name="Refresh").click()
    join(bob, table_id)
    pages = [ann, bob]

    hunt_a_rabbit(pages)
    events = table_events(stack, table_id)
    hunted = [data for _, kind, data in events if kind == "RabbitHunted"]
    assert hunted and all(len(d["cards"]) == 5 for d in hunted)  # folded before the flop
    for page in pages:
        page.locator("#rabbit .card").nth(4).wait_for(timeout=30_000)
        assert cards_of(page, "#rabbit") == [card_text(c) for c in hunted[-1]["cards"]]

    # Bob agrees in advance (the seat setting); Ann answers when asked
    bob.locator("#run-it-setting").select_option(label="Up to twice")
    deadline = time.monotonic() + 30
    bob_id = person_of(bob).player_id
    while [s.run_it_times for s in table_now(stack, table_id).seats if s.player_id == bob_id] != [
        2
    ]:
        assert time.monotonic() < deadline, "the seat setting never reached the table"
        bob.wait_for_timeout(100)
    all_in_and_run_twice(pages)
    events = table_events(stack, table_id)
    ran = [i for i, (_, kind, _) in enumerate(events) if kind == "RunDealt"]
    assert ran, "no hand was run twice"
    began = max(i for i, (_, kind, _) in enumerate(events[: ran[-1]]) if kind == "HandBegan")
    hand = events[began:]
    hand = hand[: next((i for i, e in enumerate(hand[1:], 1) if e[1] == "HandBegan"), len(hand))]
    first = [card_text(c) for _, kind, d in hand if kind == "StreetDealt" for c in d["cards"]]
    second = [card_text(c) for _, kind, d in hand if kind == "RunDealt" for c in d["cards"]]
    paid = {
        run: sorted(
            w[1]
            for _, kind, d in hand
            if kind == "PotAwarded" and d["run"] == run - 1
            for w in d["winners"]
        )
        for run in (1, 2)
    }
    assert all(paid.values()), paid  # each run paid its share
    for page in pages:
        assert cards_of(page, "#runs .run[data-run='1']") == first
        assert cards_of(page, "#runs .run[data-run='2']") == first[: 5 - len(second)] + second
        for run in (1, 2):
            lines = page.locator(f"#runs .run[data-run='{run}'] .run-winner").all_inner_texts()
            assert sorted(int(line.rsplit(" ", 1)[1]) for line in lines) == paid[run]

    ann.screenshot(path=str(ARTIFACTS / "run-it-twice.png"), full_page=True)
    shown = shown_in_stream_sync(stack, table_id)
    for page in pages:
        spy = received(page, person_of(page).player_id)
        assert spy.updates and spy.views
        assert spy.problems(shown) == []
    ann_context.close()
    bob_context.close()


def shown_in_stream_sync(stack: GatewayStack, table_id: str) -> Any:
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        return pool.submit(asyncio.run, shown_in_stream(stack.nats_url, table_id)).result()
