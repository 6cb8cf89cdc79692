"""A person plays a tournament in a real browser (Debian's chromium, headless, driven by Playwright)
over the real services (nats-server, redis-server, the table, lobby, tournament and gateway
services; the gateway's HTTP port serving web/dist): a sit & go of three with two AIs registered,
the guest opens the tournaments from the lobby, registers (the tournament fills and starts), opens
it and sees the clock (level, blinds, what comes next), the field, the payouts and the standings,
then opens their table from it and is seated there. Screenshots in build/web-screenshots."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from holdem.common.v1 import common_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.devstack.processes import free_port
from tests.gateway.tournament_stack import BUY_IN, Stack, tournament_stack
from tests.web.browser import ARTIFACTS, CHROMIUM, WEB_DIST, browser
from tests.web.pages import guest, open_page

__all__ = ["browser"]  # fixture

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def web_tournaments(
    tmp_path_factory: pytest.TempPathFactory, redis_url: str
) -> Iterator[tuple[Stack, str]]:
    assert (WEB_DIST / "index.html").is_file(), "the web client is not built: run `make web`"
    assert CHROMIUM.is_file(), "Debian's chromium is missing: run `make browser`"
    port = free_port()
    web = {
        "HOLDEM_GATEWAY_HTTP_LISTEN": f"127.0.0.1:{port}",
        "HOLDEM_GATEWAY_WEB_ROOT": str(WEB_DIST),
    }
    log_dir = tmp_path_factory.mktemp("web-tournaments")
    with tournament_stack(log_dir, redis_url, web) as stack:
        yield stack, f"http://127.0.0.1:{port}/"


def test_a_person_registers_for_a_sit_and_go_of_ais_and_sees_the_clock_and_their_table(
    web_tournaments: tuple[Stack, str], browser: Any
) -> None:
    stack, url = web_tournaments
    minutes = tpb.BlindStructure(name="hyper", unit=tpb.LEVEL_UNIT_MINUTES)  # a clock to show
    tid = stack.create(
        name="Browser SNG",
        max_entrants=3,
        seats_per_table=3,
        starting_stack=500,
        structure=minutes,
    )
    for i in range(2):
        bot = stack.lobby.register(bot=True).player_id
        request = tpb.RegisterRequest(
            tournament_id=tid,
            player_id=bot,
            idempotency_key=f"b{i}",
            is_bot=True,
            bot_level=common_pb2.BOT_DIFFICULTY_EASY,
        )
        stack.tools("Register", request)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context, page = open_page(browser, url)
    try:
        guest(page, "Tess")
        page.get_by_role("button", name="Tournaments").click()
        row = page.locator(f"tr[data-tournament='{tid}']")
        row.wait_for(timeout=30_000)
        assert "2/3" in row.inner_text() and str(BUY_IN) in row.inner_text()
        row.get_by_role("button", name="Register", exact=True).click()
        page.locator(".tournaments p.status").filter(has_text="Registered").wait_for()
        row.get_by_role("button", name="Open").click()
        clock = page.locator("#t-clock")
        clock.filter(has_text=re.compile(r"Level \d+ · blinds \d+/\d+")).wait_for(timeout=60_000)
        assert re.search(r"level in \d+ s", clock.inner_text())
        assert "of 3 left" in page.locator("#t-field").inner_text()
        assert f"Prize pool {3 * BUY_IN}" in page.locator("#t-payouts").inner_text()
        page.locator("#t-me").filter(has_text="You: table").wait_for(timeout=30_000)
        page.locator("#t-standings tr.me").wait_for(timeout=30_000)
        assert page.locator("#t-standings tr").count() == 3
        page.screenshot(path=str(ARTIFACTS / "tournament.png"))
        page.locator("#t-table").click()
        page.locator("#pots").wait_for(timeout=30_000)
        page.locator(".seats li").filter(has_text="Tess").first.wait_for(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "tournament-table.png"))
    finally:
        context.close()
        stack.tools("Cancel", tpb.CancelRequest(tournament_id=tid, reason="test over"))
