"""What a person does in the web client, as the browser tests do it: sign in as a guest, create
a table, join it, and take one turn by clicking."""

from __future__ import annotations

import re
from typing import Any

from tests.web.browser import SPY


def open_page(browser: Any, url: str, width: int = 1000) -> tuple[Any, Any]:
    """A new context (its own session) with the spy, and its page at ``url``."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_init_script(SPY)
    page = context.new_page()
    page.goto(url)
    return context, page


def guest(page: Any, name: str) -> None:
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_role("button", name="Play as guest").click()
    page.get_by_role("button", name="Create table").wait_for()


def create_table(page: Any, ais: int, betting: str = "No limit", variant: str = "Hold'em") -> str:
    """Creates a table from the lobby; its id, as the lobby's status line names it ("Created
    <id>"; not the newest row: the lobby's first listing may still be arriving with tables
    earlier tests left), once its row is listed."""
    page.locator("#new-variant").select_option(label=variant)
    page.locator("#new-structure").select_option(label=betting)
    page.locator("#new-ais").fill(str(ais))
    page.get_by_role("button", name="Create table").click()
    created = page.locator(".lobby p.status").filter(has_text=re.compile(r"^Created \S+"))
    created.wait_for(timeout=30_000)
    table_id = str(created.inner_text()).split(" ", 1)[1].strip()
    page.locator(f"tr[data-table='{table_id}']").wait_for(timeout=30_000)
    return table_id


def join(page: Any, table_id: str) -> None:
    page.locator(f"tr[data-table='{table_id}']").get_by_role("button", name="Join").click()
    page.locator("#pots").wait_for()


def hand_number(page: Any) -> int:
    """The hand in play (0 between hands)."""
    found = re.search(r"Hand (\d+)", page.locator("#pots").inner_text())
    return int(found.group(1)) if found else 0


def sequence(page: Any) -> int:
    return int(page.locator("section.table").get_attribute("data-sequence") or 0)


def enabled_actions(page: Any) -> dict[str, Any]:
    """The action buttons offered now, by their first word (Fold, Check, Call, Bet, ...)."""
    enabled = page.locator(".actions button:not([disabled])").all()
    return {b.inner_text().split(" ")[0]: b for b in enabled}


def click_and_wait(page: Any, button: Any) -> None:
    """Click an action; wait for its answer (a later view) or its refusal; fail on a refusal."""
    before = sequence(page)
    button.click()
    page.wait_for_function(
        "([before]) => Number(document.querySelector('section.table').dataset.sequence)"
        " > before || document.querySelector('#status').innerText !== ''",
        arg=[before],
        timeout=30_000,
    )
    status = page.locator("#status").inner_text()
    assert status == "", status


def passive_turn(page: Any) -> str | None:
    """Show, check or call if it is this page's turn; what it clicked (None: not its turn)."""
    buttons = enabled_actions(page)
    for name in ("Show", "Check", "Call"):
        if name in buttons:
            click_and_wait(page, buttons[name])
            return name
    return None


def safe_turn(page: Any) -> str | None:
    """``passive_turn``, except that a call of the whole stack folds instead: a player who must
    keep a seat (to reach its big blind, to play on with the AIs) is never busted by an AI's
    shove, which would sit them out with "no chips"."""
    buttons = enabled_actions(page)
    call = buttons.get("Call")
    if call is not None and "Check" not in buttons and "Show" not in buttons:
        stack = int(page.locator(".seat.mine .stack").inner_text())
        if int(call.inner_text().split(" ")[1]) >= stack and "Fold" in buttons:
            click_and_wait(page, buttons["Fold"])
            return "Fold"
    return passive_turn(page)
