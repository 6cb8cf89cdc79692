"""The hand log of a page that opened a table mid-hand, in Debian's chromium: the hand's
beginning (which names the seat at each position) came before the page watched, and the page
learns the positions from the table's view instead, so every move is logged under its player's
name (it said "A player: call 2", seen joining a table of AIs from `make up`); the board's
cards are logged as each street is dealt."""

from __future__ import annotations

import time
import uuid
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.chat_steps import person
from tests.gateway.stack import CONFIG, GatewayStack
from tests.web.browser import browser, web_stack
from tests.web.pages import guest, open_page
from tests.web.server import table_now

__all__ = ["browser", "web_stack"]  # fixtures

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def test_a_page_that_opens_a_table_mid_hand_names_each_move(
    web_stack: tuple[GatewayStack, str], browser: Any
) -> None:
    stack, url = web_stack
    with grpc.insecure_channel(stack.gateway.address) as channel:
        gw = stack.gateway_stub(channel)
        ann, bob = person(gw, "Ann"), person(gw, "Bob")
        created = gw.CreateTable(
            gateway_pb2.CreateTableRequest(name="Mid-hand", config=CONFIG),
            metadata=ann.meta,
            timeout=60,
        )
        table_id = created.table.table_id
        for who in (ann, bob):
            join = gateway_pb2.JoinTableRequest(
                table_id=table_id, buy_in=200, idempotency_key=uuid.uuid4().hex
            )
            gw.JoinTable(join, metadata=who.meta, timeout=30)
        view = table_now(stack, table_id)
        while not view.HasField("acting_seat"):  # the first hand is dealt
            time.sleep(0.1)
            view = table_now(stack, table_id)
        hand_id = view.hand_id
        # a spectator opens the table now: its hand began before the page watched
        context, page = open_page(browser, url)
        guest(page, "Cat")
        page.locator(f"tr[data-table='{table_id}']").get_by_role("button", name="Watch").click()
        page.locator("#pots").wait_for()
        page.wait_for_function(
            "([at]) => Number(document.querySelector('section.table').dataset.sequence) >= at",
            arg=[view.sequence],
            timeout=30_000,
        )
        seated = {s.seat: s.player_id for s in view.seats}
        acting = next(p for p in (ann, bob) if p.player_id == seated[view.acting_seat])
        act = gateway_pb2.ActRequest(
            table_id=table_id,
            hand_id=hand_id,
            action=common_pb2.ACTION_TYPE_CALL,
            idempotency_key=uuid.uuid4().hex,
        )
        gw.Act(act, metadata=acting.meta, timeout=30)
        other = bob if acting is ann else ann  # the big blind checks: the flop is dealt
        check = gateway_pb2.ActRequest(
            table_id=table_id,
            hand_id=hand_id,
            action=common_pb2.ACTION_TYPE_CHECK,
            idempotency_key=uuid.uuid4().hex,
        )
        flop = gw.Act(check, metadata=other.meta, timeout=30).view
        while len(flop.board) < 3:  # dealt by the table after the check's answer
            time.sleep(0.1)
            flop = table_now(stack, table_id)
    page.locator("#log li").filter(has_text=f"{acting.name}: call").wait_for(timeout=30_000)
    page.locator("#log li").filter(has_text=f"{other.name}: check").wait_for(timeout=30_000)
    board = " ".join("23456789TJQKA"[c.rank - 2] + "cdhs"[c.suit - 1] for c in flop.board[:3])
    page.locator("#log li").filter(has_text=f"Flop: {board}").wait_for(timeout=30_000)
    assert "A player" not in page.locator("#log").inner_text()
    context.close()
