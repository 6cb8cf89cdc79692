"""``holdem play`` driven by textual's headless pilot against the stand-in gateway (80x24): a user
logs in as a guest, creates a table with AI opponents, plays hands with every kind of action,
sees a refusal's reason and the showdown; and a text snapshot of the table view."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Button, DataTable

from libs.client import GatewayClient
from libs.client.view import bet_sizes, is_my_turn, is_showdown_turn
from libs.tui.app import PlayApp
from libs.tui.newtable import NewTable, parse_levels
from libs.tui.screens import PAGE_SIZE, LobbyScreen
from libs.tui.table import TableScreen
from tests.client import fake_accounts, fake_gateway
from tests.client.test_client import NLHE

SNAPSHOT = Path(__file__).parent / "snapshots" / "table_80x24.txt"
SIZE = (80, 24)


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    for _ in range(400):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}:\n{screen_text(pilot.app)}")


def moved_past(screen: TableScreen, sequence: int) -> Callable[[], bool]:
    return lambda: screen.model.view.sequence > sequence


def table(app: PlayApp) -> TableScreen:
    screen = app.screen
    assert isinstance(screen, TableScreen), screen
    return screen


def screen_text(app: App[None]) -> str:
    return "\n".join(strip.text.rstrip() for strip in app.screen._compositor.render_strips())


async def log_in_and_create(pilot: Pilot[None], app: PlayApp, bots: str) -> TableScreen:
    await pilot.click("#guest-name")
    await pilot.press(*"Alice")
    await pilot.click("#guest-button")
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.pause()
    app.screen.query_one("#bots").value = bots  # type: ignore[attr-defined]
    await pilot.click("#create-button")
    await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
    return table(app)


def run(body: Callable[[Pilot[None], PlayApp, fake_gateway.Server], Awaitable[None]]) -> None:
    async def main() -> None:
        server = await fake_gateway.start()
        app = PlayApp(server.address, clock=lambda: 1_000.0)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await asyncio.wait_for(body(pilot, app, server), 60)
        finally:
            await server.server.stop(None)

    asyncio.run(main())


# The plan: one key sequence per decision, cycling; keys that are not legal fall back to check/call.
PLAN = ["raise_pot", "check_call", "bet_min", "check_call", "check_call", "fold", "check_call"]
WANTED = ("You fold", "You check", "You call", "You bet", "You raise", "are all-in")


def keys_for(screen: TableScreen, step: str) -> list[str]:
    view = screen.model.view
    legal = view.legal_actions
    sizes = bet_sizes(view)
    if step == "fold" and legal.can_fold and not legal.can_check:
        return ["f"]
    if step == "raise_pot" and sizes and legal.can_call:
        return ["p", "r"]
    if step == "bet_min" and sizes and legal.can_check:
        return ["m", "r"]
    if step == "all_in" and sizes:
        return ["a", "r"]
    return ["c"]


def test_a_guest_creates_a_table_with_ais_and_plays_every_action_to_a_showdown() -> None:
    async def body(pilot: Pilot[None], app: PlayApp, server: fake_gateway.Server) -> None:
        screen = await log_in_and_create(pilot, app, "easy,hard")
        await until(pilot, lambda: is_my_turn(screen.model.view), "our first turn")

        # a refused action shows the server's reason
        await pilot.press("1", "r")
        await until(pilot, lambda: screen.model.status.startswith("refused"), "the refusal")
        assert "4" in screen.model.status  # the bounds are in the reason
        await pilot.press("backspace")

        def log() -> str:
            return "\n".join(screen.model.log)

        def showdown() -> bool:  # hands shown, the winning hand named
            return any(" wins " in line and " with " in line for line in screen.model.log)

        step = 0
        while not (all(w in log() for w in WANTED[:-1]) and showdown()):
            await until(pilot, lambda: is_my_turn(screen.model.view), "our turn")
            sequence = screen.model.view.sequence
            if is_showdown_turn(screen.model.view):
                await pilot.press("s")
            else:
                await pilot.press(*keys_for(screen, PLAN[step % len(PLAN)]))
                step += 1
            await until(pilot, moved_past(screen, sequence), "the table to move")
            assert step < 200
        # last, all-in (the AIs call everything: somebody is busted after it)
        await until(pilot, lambda: is_my_turn(screen.model.view), "our turn")
        while is_showdown_turn(screen.model.view):
            sequence = screen.model.view.sequence
            await pilot.press("s")
            await until(pilot, moved_past(screen, sequence), "the show")
            await until(pilot, lambda: is_my_turn(screen.model.view), "our turn")
        await pilot.press("a", "r")
        await until(pilot, lambda: "are all-in" in log(), "the all-in")
        for wanted in WANTED:
            assert wanted in log(), wanted
        assert screen.wallet  # the wallet is on the header
        text = screen_text(app)
        assert len(text.splitlines()) == SIZE[1]

    run(body)


def test_sit_out_and_back_in_and_leave() -> None:
    async def body(pilot: Pilot[None], app: PlayApp, server: fake_gateway.Server) -> None:
        screen = await log_in_and_create(pilot, app, "normal")
        await until(pilot, lambda: is_my_turn(screen.model.view), "our turn")
        await pilot.press("o")
        await until(pilot, lambda: screen.model.status == "sitting out", "sitting out")
        await pilot.press("f")
        await until(pilot, lambda: "You sit out" in "\n".join(screen.model.log), "the sit-out")
        await pilot.press("o")
        await until(pilot, lambda: screen.model.status.startswith("back in"), "back in")
        await pilot.press("l")
        await until(pilot, lambda: screen.model.status.startswith("left the table"), "leaving")
        await until(pilot, lambda: "You leave with " in "\n".join(screen.model.log), "the log")
        # a call that comes back after the screen closed redraws nothing, and raises nothing
        await app.pop_screen()
        await pilot.pause()
        screen.set_status("a late answer")
        screen.redraw()

    run(body)


def test_the_table_view_matches_its_snapshot() -> None:
    async def body(pilot: Pilot[None], app: PlayApp, server: fake_gateway.Server) -> None:
        screen = await log_in_and_create(pilot, app, "easy,hard,normal")
        await until(
            pilot,
            lambda: (
                is_my_turn(screen.model.view)
                and screen.wallet == str(fake_accounts.GRANT - 200)  # after the buy-in
                and screen.model.status.startswith("seated")
            ),
            "our first turn",
        )
        await pilot.pause()
        text = screen_text(app) + "\n"
        if os.environ.get("UPDATE_SNAPSHOTS") or not SNAPSHOT.exists():
            SNAPSHOT.parent.mkdir(exist_ok=True)
            SNAPSHOT.write_text(text)
        assert text == SNAPSHOT.read_text(), f"table view changed (UPDATE_SNAPSHOTS=1):\n{text}"

    run(body)


def test_play_with_everything_on_the_command_line_opens_a_six_seat_table_with_five_ais() -> None:
    """What ``make run`` does on a terminal: no login screen, no lobby."""

    async def main() -> None:
        server = await fake_gateway.start()
        spec = NewTable(bots=parse_levels("hard,normal,easy,normal,hard"), seats=6)
        app = PlayApp(server.address, guest="You", create=spec, clock=lambda: 1_000.0)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
                screen = table(app)
                await until(pilot, lambda: is_my_turn(screen.model.view), "our turn")
                seats = [s for s in screen.model.view.seats if s.player_id]
                assert len(seats) == 6 and sum(s.is_bot for s in seats) == 5
                assert screen.model.view.config.max_seats == 6
        finally:
            await server.server.stop(None)

    asyncio.run(main())


def test_watch_spectates_without_seeing_hole_cards() -> None:
    async def main() -> None:
        server = await fake_gateway.start()
        try:
            async with GatewayClient(server.address) as owner:
                await owner.guest_login("owner")
                created = await owner.create_table(
                    NewTable(bots=parse_levels("easy")).config(), "", []
                )
                await owner.join_table(created.table_id, 200)
                async with GatewayClient(server.address) as other:
                    await other.guest_login("other")
                    await other.join_table(created.table_id, 200)
            app = PlayApp(
                server.address,
                guest="spectator",
                table_id=created.table_id,
                spectate=True,
                clock=lambda: 1_000.0,
            )
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
                screen = table(app)
                await until(pilot, lambda: bool(screen.model.view.hand_id), "a hand")
                assert screen.model.my_cards_line() == "Spectating"
                assert all(not s.hole_cards for s in screen.model.view.seats)
                assert "[][]" in "\n".join(screen.model.seat_lines())
            watched = [u for who, u in server.gateway.sent if who == "p3"]
            assert watched and all(
                not seat.cards
                for u in watched
                for e in u.commit.events
                if e.HasField("hole_cards_dealt")
                for seat in e.hole_cards_dealt.seats
            )
        finally:
            await server.server.stop(None)

    asyncio.run(main())


def test_the_lobby_shows_a_page_of_tables_newest_first_and_turns_pages() -> None:
    """A room of more tables than a page: the newest heads the first page, [Older] shows the
    rest and [Newer] comes back; the terminal client never reads the whole room at once."""

    async def body(pilot: Pilot[None], app: PlayApp, server: fake_gateway.Server) -> None:
        async with GatewayClient(server.address) as host_client:
            await host_client.guest_login("Host")
            made = [(await host_client.create_table(NLHE, f"room {n}")).table_id for n in range(60)]
        await pilot.click("#guest-name")
        await pilot.press(*"Alice")
        await pilot.click("#guest-button")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)

        def rows() -> list[str]:
            return [key.value or "" for key in lobby.query_one("#tables", DataTable).rows]

        await until(pilot, lambda: len(rows()) == PAGE_SIZE, "the first page")
        assert rows() == made[::-1][:PAGE_SIZE]
        assert "tables 1-50, newest first" in screen_text(app)
        await pilot.click("#tables-older")
        await until(pilot, lambda: rows() == made[::-1][PAGE_SIZE:], "the older page")
        assert lobby.query_one("#tables-older", Button).disabled
        await pilot.click("#tables-newer")
        await until(pilot, lambda: rows() == made[::-1][:PAGE_SIZE], "the newer page again")
        assert lobby.query_one("#tables-newer", Button).disabled

    run(body)
