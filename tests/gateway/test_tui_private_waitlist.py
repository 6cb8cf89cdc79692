"""The terminal client against real processes (lobby, table, gateway on real NATS and Redis),
three players each in their own ``holdem play`` driven by textual's pilot: Ann creates a private
two-seat table with a password from the lobby form and reads its invite; Bob joins it by its id
and the password; Cy, with the invite code, finds it full and waits in line (his place pushed by
WatchWaitlist), leaves the line and joins it again; Bob leaves, the seat is offered to Cy with
its clock, and [F3] takes it. Then a table whose creator approves each seat: the request shows
on the creator's screen, [F7] approves it and the player sits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input

from libs.client.view import is_my_turn, my_seat
from libs.tui.app import PlayApp
from libs.tui.screens import LobbyScreen
from libs.tui.table import TableScreen
from tests.gateway.stack import GatewayStack, start_gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
SIZE = (80, 24)


@pytest.fixture(scope="module")
def tui_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    stack = start_gateway_stack(
        tmp_path_factory.mktemp("tui"), nats_url, redis_url, {"HOLDEM_GATEWAY_RATE_BURST": "500"}
    )
    yield stack
    stack.stop()


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    for _ in range(3000):  # a bound for a stuck test, not a timing assertion
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"{what}: never happened")


@asynccontextmanager
async def player(stack: GatewayStack, name: str) -> AsyncIterator[tuple[PlayApp, Pilot[None]]]:
    """``name``'s ``holdem play``, logged in as a guest, in the lobby."""
    app = PlayApp(stack.gateway.address, guest=name)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), f"{name}'s lobby")
        await pilot.pause()
        yield app, pilot


def table(app: PlayApp) -> TableScreen:
    assert isinstance(app.screen, TableScreen), app.screen
    return app.screen


def fill(app: PlayApp, **values: str | bool) -> None:
    for widget_id, value in values.items():
        widget = app.screen.query_one(f"#{widget_id.replace('_', '-')}")
        assert isinstance(widget, Input | Checkbox)
        widget.value = value


async def create_private(app: PlayApp, pilot: Pilot[None], **form: str | bool) -> TableScreen:
    fill(app, seats="2", bots="", private=True, **form)
    await pilot.click("#create-button")
    await until(pilot, lambda: isinstance(app.screen, TableScreen), "the private table")
    screen = table(app)
    await until(pilot, lambda: my_seat(screen.model.view) is not None, "the creator seated")
    return screen


async def join_private(app: PlayApp, pilot: Pilot[None], table_id: str, **form: str) -> TableScreen:
    fill(app, private_table=table_id, **form)
    await pilot.click("#join-private-button")
    await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table screen")
    return table(app)


def social(screen: TableScreen) -> str:
    return str(screen.query_one("#social").render())


def test_private_table_by_password_then_the_waiting_list(tui_stack: GatewayStack) -> None:
    async def main() -> None:
        async with (
            player(tui_stack, "Ann") as (ann_app, ann_pilot),
            player(tui_stack, "Bob") as (bob_app, bob_pilot),
            player(tui_stack, "Cy") as (cy_app, cy_pilot),
        ):
            ann = await create_private(ann_app, ann_pilot, new_password="s3cret pw")
            table_id, invite = ann.model.table_id, ann.access.created_invite
            assert invite and f"invite {invite} or the password" in social(ann)

            bob = await join_private(bob_app, bob_pilot, table_id, private_password="s3cret pw")
            await until(bob_pilot, lambda: bob.model.status.startswith("seated"), "Bob seated")

            cy = await join_private(cy_app, cy_pilot, table_id, invite_code=invite)
            await until(cy_pilot, lambda: "Waiting list: 1 of 1" in social(cy), "Cy in line")
            assert cy.model.status.startswith("the table is full")
            await cy_pilot.press("f4")
            await until(cy_pilot, lambda: cy.model.status.startswith("left the waiting"), "out")
            await until(cy_pilot, lambda: "Waiting list" not in social(cy), "no place shown")
            await cy_pilot.press("f3")
            await until(cy_pilot, lambda: "Waiting list: 1 of 1" in social(cy), "back in line")

            await bob_pilot.press("l")  # at once between hands, else when the hand ends
            while "A seat is yours for" not in social(cy):
                if is_my_turn(ann.model.view):  # Ann folds so that the hand ends
                    await ann_pilot.press("f")
                await cy_pilot.pause(0.05)
            await cy_pilot.press("f3")
            await until(cy_pilot, lambda: cy.model.status.startswith("seated"), "Cy seated")
            await until(cy_pilot, lambda: my_seat(cy.model.view) is not None, "Cy's seat")
            assert not social(cy)

    asyncio.run(main())


def test_the_creator_approves_a_seat_from_the_table_screen(tui_stack: GatewayStack) -> None:
    async def main() -> None:
        async with (
            player(tui_stack, "Dee") as (dee_app, dee_pilot),
            player(tui_stack, "Eve") as (eve_app, eve_pilot),
        ):
            dee = await create_private(dee_app, dee_pilot, approve_seats=True)
            assert "or the password" not in social(dee)
            eve = await join_private(
                eve_app, eve_pilot, dee.model.table_id, invite_code=dee.access.created_invite
            )
            await until(
                eve_pilot, lambda: eve.model.status.startswith("waiting for the creator"), "ask"
            )
            asked = eve_app.client.player_id[:8]
            await until(dee_pilot, lambda: f"Seat asked: {asked}" in social(dee), "the request")
            await dee_pilot.press("f7")
            await until(dee_pilot, lambda: dee.model.status.startswith("approved"), "approved")
            await until(eve_pilot, lambda: eve.model.status.startswith("seated"), "Eve seated")
            assert "Seat asked" not in social(dee)

    asyncio.run(main())
