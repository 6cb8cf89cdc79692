"""``holdem play`` told on the command line what the gateway refuses, driven by textual's
headless pilot against the stand-in gateway: a log-in that fails shows the form with the reason
(it showed the bare form, the reason lost), and a table that cannot be opened (``--table`` with
an id nobody has) goes to the lobby saying so, instead of an empty table screen with the reason
in its status line; the lobby's form says what blinds look like (it made "1/2/3" 1/2 and
showed Python's "invalid literal for int()" for "abc")."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual.pilot import Pilot
from textual.widgets import Button, Input, Label

from libs.tui.app import PlayApp
from libs.tui.screens import LobbyScreen, LoginScreen
from tests.client import fake_gateway
from tests.client.test_play_tui import SIZE, until


def _run(
    app_for: Callable[[str], PlayApp], body: Callable[[Pilot[None], PlayApp], Awaitable[None]]
) -> None:
    async def main() -> None:
        server = await fake_gateway.start()
        app = app_for(server.address)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await asyncio.wait_for(body(pilot, app), 60)
        finally:
            await server.server.stop(None)

    asyncio.run(main())


def _error(app: PlayApp, widget: str) -> str:
    return str(app.screen.query_one(widget, Label).render())


def test_a_failed_command_line_log_in_says_why() -> None:
    async def body(pilot: Pilot[None], app: PlayApp) -> None:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen), "the log-in form")
        await pilot.pause()
        assert _error(app, "#login-error") == "wrong username or password"

    _run(lambda address: PlayApp(address, user="nobody", password="wrong"), body)


def test_a_table_that_cannot_be_opened_leads_to_the_lobby_saying_why() -> None:
    async def body(pilot: Pilot[None], app: PlayApp) -> None:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.pause()
        assert _error(app, "#lobby-error") == "could not open table nosuch: no such table"

    _run(lambda address: PlayApp(address, guest="Ann", table_id="nosuch"), body)


def test_the_lobby_form_says_what_blinds_look_like() -> None:
    async def body(pilot: Pilot[None], app: PlayApp) -> None:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.pause()
        for typed in ("abc", "1/2/3", "5", "-1/2", "1.5/3"):
            app.screen.query_one("#blinds", Input).value = typed
            app.screen.query_one("#lobby-error", Label).update("")
            app.screen.query_one("#create-button", Button).press()
            await until(pilot, lambda: bool(_error(app, "#lobby-error")), "a refusal")
            assert _error(app, "#lobby-error") == f"blinds are SMALL/BIG, e.g. 1/2, not {typed!r}"
            assert isinstance(app.screen, LobbyScreen)  # nothing was created

    _run(lambda address: PlayApp(address, guest="Ann"), body)
