"""``holdem play`` / ``holdem watch``: a textual terminal client of the gateway (80x24 and up).
This module is the app (``PlayApp``: logging in, creating and opening tables, which screen
shows); the screens are ``libs.tui.screens`` (log in, lobby) and ``libs.tui.table``.

Screens: log in (account or guest) -> lobby (pick a table, or create one with AI opponents) ->
the table (your cards, the board, pots and side pots, stacks, button and blinds, whose turn and
their clock, the legal actions with their amounts, the running log, the showdown, your wallet;
its chat, a private table's invite and seat requests, the waiting list, seat changes).
It talks only to the gateway, through libs.client; the stream resumes by itself after a dropped
connection, and a refused action shows the server's reason on the status line.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual import work
from textual.app import App
from textual.screen import Screen

from libs.client import GatewayClient, GatewayError
from libs.tui.newtable import NewTable, default_buy_in
from libs.tui.privatetables import Access
from libs.tui.screens import LobbyScreen, LoginScreen
from libs.tui.table import TableScreen


class PlayApp(App[None]):
    """``target``: the gateway address. With ``guest``/``user`` the login screen is skipped; with
    ``table_id`` or ``create`` the lobby is too."""

    TITLE = "holdem"
    CSS = """
    Screen { layout: vertical; }
    #login { padding: 1 2; }
    .buttons, .form { height: auto; }
    .error { color: $error; }
    #tables { height: 1fr; }
    .form Input { width: 1fr; }
    .form Select { width: 1fr; }
    #header { height: 1; background: $primary; color: $text; text-wrap: nowrap; }
    #main { height: 1fr; }
    #left { width: 48; }
    #left #seats { height: 10; }
    #board, #mine, #turn, #seats-header { height: 1; }
    #seats-header { color: $text-muted; }
    #pots, #showdown { height: auto; max-height: 3; }
    #log { width: 1fr; height: 1fr; border-left: solid $primary; padding-left: 1;
           scrollbar-size-vertical: 1; }
    #actions { height: 2; background: $boost; }
    #bottom { height: 1; }
    #social { height: auto; max-height: 4; }
    #lobby-chat-header { height: 1; background: $primary; }
    #lobby-chat-log { height: 1fr; }
    #amount { width: 14; border: none; height: 1; padding: 0 1; }
    #chat { width: 1fr; border: none; height: 1; padding: 0 1; }
    #status { width: 1fr; color: $warning; text-wrap: nowrap; }
    """

    def __init__(
        self,
        target: str,
        *,
        client: GatewayClient | None = None,
        user: str = "",
        password: str = "",
        guest: str = "",
        table_id: str = "",
        create: NewTable | None = None,
        buy_in: int | None = None,
        spectate: bool = False,
        clock: Callable[[], float] = time.time,
        tls: bool | bytes = False,
    ) -> None:
        super().__init__()
        self.target = target
        self.tls = tls  # to the gateway: libs.client.channel.gateway_channel
        self._client = client  # made in the app's event loop when not given (grpc.aio needs one)
        self.start = (user, password, guest)
        self.table_id = table_id
        self.create = create
        self.buy_in = buy_in
        self.spectate = spectate
        self.clock = clock

    @property
    def client(self) -> GatewayClient:
        if self._client is None:
            self._client = GatewayClient(self.target, tls=self.tls)
        return self._client

    def on_mount(self) -> None:
        user, password, guest = self.start
        if user or guest or self.client.token:
            self.log_in(user=user, password=password, guest=guest)
        else:
            self.push_screen(LoginScreen())

    @work(exclusive=True, group="login")
    async def log_in(
        self, *, user: str = "", password: str = "", guest: str = "", register: bool = False
    ) -> None:
        try:
            if self.client.token:
                pass
            elif guest:
                await self.client.guest_login(guest)
            else:
                if register:
                    await self.client.register(user, password)
                await self.client.login(user, password)
        except GatewayError as error:
            if isinstance(self.screen, LoginScreen):
                self.screen.show_error(error.message)
            else:  # asked for on the command line: the form, saying why
                self.push_screen(LoginScreen(error=error.message))
            return
        if self.create is not None:
            self.create_and_sit(self.create)
        elif self.table_id:
            self.open_table(self.table_id, sit=not self.spectate)
        else:
            self.switch_or_push(LobbyScreen())

    def switch_or_push(self, screen: Screen[None]) -> None:
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    @work(exclusive=True, group="create")
    async def create_and_sit(self, spec: NewTable) -> None:
        access = None
        try:
            if spec.is_private:
                created = await self.client.create_private_table(
                    spec.config(),
                    name=spec.name,
                    password=spec.password,
                    approve_seats=spec.approve_seats,
                )
                table = created.table
                access = Access(
                    created_invite=created.invite_code,
                    has_password=bool(spec.password),
                    approve_seats=spec.approve_seats,
                )
            else:
                table = await self.client.create_table(spec.config(), spec.name, spec.bots)
        except GatewayError as error:
            if isinstance(self.screen, LobbyScreen):
                self.screen.show_error(f"refused: {error.message}")
            else:
                self.exit(message=f"could not create the table: {error}")
            return
        self.open_table(
            table.table_id,
            sit=True,
            buy_in=self.buy_in or default_buy_in(table.config),
            access=access,
        )

    def open_table(
        self,
        table_id: str,
        *,
        sit: bool,
        buy_in: int | None = None,
        access: Access | None = None,
    ) -> None:
        """The table screen; seated with ``buy_in`` (default: the app's, else 100 big blinds of
        the table, found in the catalogue) unless only watching; ``access``: how a private
        table is entered (its password or invite code; the creator's invite to pass on)."""
        chips = (buy_in or self.buy_in or 0) if sit else None  # 0: the table's default
        screen = TableScreen(table_id, buy_in=chips, clock=self.clock, access=access)
        self.switch_or_push(screen)

    def table_unavailable(self, table_id: str, message: str) -> None:
        """The table screen of ``table_id`` could not open it (no such table, not one this
        player may watch): the lobby, saying why."""
        self.switch_or_push(LobbyScreen(error=f"could not open table {table_id}: {message}"))

    async def on_unmount(self) -> None:
        await self.client.close()
