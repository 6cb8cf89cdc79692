"""The screens before a table: logging in (an account, a new one, or a guest) and the lobby (the
open tables, a form to create one with AI opponents, public or private, and one to join a private
table; its chat is libs/tui/lobbychat.py)."""

from __future__ import annotations

from typing import ClassVar

from holdem.common.v1 import common_pb2 as pb
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, Checkbox, DataTable, Input, Label, Select, Static

from libs.client import GatewayError
from libs.tui.host import host
from libs.tui.lobbychat import LobbyChatScreen
from libs.tui.model import STRUCTURES, VARIANTS, stakes
from libs.tui.newtable import NewTable, default_buy_in, parse_blinds, parse_levels
from libs.tui.privatetables import Access
from libs.tui.tournaments import TournamentsScreen

#: tables a lobby page shows (a room may hold tens of thousands)
PAGE_SIZE = 50


class LoginScreen(Screen[None]):
    """An account (log in or register) or a guest name; ``error``: why the last try failed (a
    log-in asked for on the command line)."""

    def __init__(self, error: str = "") -> None:
        super().__init__()
        self.error = error

    def compose(self) -> ComposeResult:
        with Vertical(id="login"):
            yield Label("holdem: log in, register, or play as a guest")
            yield Input(placeholder="username", id="username")
            yield Input(placeholder="password", password=True, id="password")
            with Horizontal(classes="buttons"):
                yield Button("Log in", id="login-button", variant="primary")
                yield Button("Register", id="register-button")
            yield Input(placeholder="guest name", id="guest-name")
            yield Button("Play as guest", id="guest-button", variant="success")
            yield Label(self.error, id="login-error", classes="error")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        app = host(self)
        user = self.query_one("#username", Input).value
        password = self.query_one("#password", Input).value
        guest = self.query_one("#guest-name", Input).value or "guest"
        if event.button.id == "guest-button":
            app.log_in(guest=guest)
        elif event.button.id == "login-button":
            app.log_in(user=user, password=password)
        elif event.button.id == "register-button":
            app.log_in(user=user, password=password, register=True)

    def show_error(self, message: str) -> None:
        self.query_one("#login-error", Label).update(message)


class LobbyScreen(Screen[None]):
    """The open tables; a form to create one with AI opponents, public or private (a password,
    seats approved by its creator); a form to join a private table by its id and its password
    or invite code; [F6] the tournaments, [F7] the lobby's chat."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("f5", "refresh", "refresh"),
        Binding("f6", "tournaments", "tournaments"),
        Binding("f7", "lobby_chat", "lobby chat"),
    ]

    def __init__(self, error: str = "") -> None:
        super().__init__()
        self.error = error  # shown until the next one: e.g. a table that could not be opened
        self.summaries: dict[str, pb.TableSummary] = {}
        # pages of PAGE_SIZE tables, newest first: the token of the page shown, those of the
        # pages before it ([Newer]) and of the next one ([Older])
        self.shown = ""
        self.before: list[str] = []
        self.following = ""

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="lobby-header")
        yield DataTable(id="tables", cursor_type="row")
        with Horizontal(classes="buttons"):
            yield Button("Newer", id="tables-newer", disabled=True)
            yield Button("Older", id="tables-older", disabled=True)
            yield Static("", markup=False, id="tables-page")
        with Horizontal(classes="form"):
            yield Select(
                [(name, v) for v, name in VARIANTS.items()],
                value=pb.VARIANT_HOLDEM,
                allow_blank=False,
                id="variant",
            )
            yield Select(
                [(name, v) for v, name in STRUCTURES.items()],
                value=pb.BETTING_STRUCTURE_NO_LIMIT,
                allow_blank=False,
                id="structure",
            )
            yield Input("1/2", placeholder="blinds", id="blinds")
            yield Input("6", placeholder="seats", id="seats", restrict="[0-9]*")
        with Horizontal(classes="form"):
            yield Input("normal,easy,hard,normal,easy", placeholder="AI levels", id="bots")
            yield Button("Create", id="create-button", variant="primary")
            yield Button("Join", id="join-button", variant="success")
            yield Button("Tournaments", id="tournaments-button")
        with Horizontal(classes="form"):
            yield Checkbox("Private", id="private")
            yield Input(placeholder="password (optional)", id="new-password", password=True)
            yield Checkbox("I approve each seat", id="approve-seats")
        with Horizontal(classes="form"):
            yield Input(placeholder="private table id", id="private-table")
            yield Input(placeholder="password", id="private-password", password=True)
            yield Input(placeholder="or invite code", id="invite-code")
            yield Button("Join private", id="join-private-button")
        yield Label(self.error, id="lobby-error", classes="error")

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        table.add_columns("table", "game", "seats", "players")
        self.action_refresh()

    @work(exclusive=True, group="lobby")
    async def action_refresh(self) -> None:
        app = host(self)
        header = self.query_one("#lobby-header", Static)
        header.update(f"Tables · {app.client.player.display_name if app.client.player else ''}")
        try:
            tables, self.following = await app.client.tables_page(
                page_token=self.shown, newest_first=True, page_size=PAGE_SIZE
            )
        except GatewayError as error:
            self.show_error(str(error))
            return
        try:
            widget = self.query_one("#tables", DataTable)
        except NoMatches:  # the screen was closed (or the app quit) while the call ran
            return
        widget.clear()
        self.summaries = {t.table_id: t for t in tables}
        for t in tables:
            widget.add_row(
                t.name or t.table_id,
                stakes(t.config),
                str(t.config.max_seats or 6),
                str(t.seated_players),
                key=t.table_id,
            )
        self.query_one("#tables-newer", Button).disabled = not self.before
        self.query_one("#tables-older", Button).disabled = not self.following
        first = len(self.before) * PAGE_SIZE
        label = f"tables {first + 1}-{first + len(tables)}, newest first" if tables else "no tables"
        self.query_one("#tables-page", Static).update(label)

    @on(Button.Pressed, "#tables-older")
    def older(self) -> None:
        self.before.append(self.shown)
        self.shown = self.following
        self.action_refresh()

    @on(Button.Pressed, "#tables-newer")
    def newer(self) -> None:
        self.shown = self.before.pop() if self.before else ""
        self.action_refresh()

    def show_error(self, message: str) -> None:
        self.query_one("#lobby-error", Label).update(message)

    def form(self) -> NewTable:
        small, big = parse_blinds(self.query_one("#blinds", Input).value)
        variant = self.query_one("#variant", Select).value
        structure = self.query_one("#structure", Select).value
        assert isinstance(variant, int) and isinstance(structure, int)
        return NewTable(
            variant=variant,  # type: ignore[arg-type]
            structure=structure,  # type: ignore[arg-type]
            small_blind=small,
            big_blind=big,
            seats=int(self.query_one("#seats", Input).value or 6),
            bots=parse_levels(self.query_one("#bots", Input).value),
            private=self.query_one("#private", Checkbox).value,
            password=self.query_one("#new-password", Input).value,
            approve_seats=self.query_one("#approve-seats", Checkbox).value,
        )

    @on(Button.Pressed, "#create-button")
    def create(self) -> None:
        app = host(self)
        try:
            spec = self.form()
        except ValueError as error:
            self.show_error(str(error))
            return
        app.create_and_sit(spec)

    @on(Button.Pressed, "#join-button")
    @on(DataTable.RowSelected)
    def join(self) -> None:
        app = host(self)
        widget = self.query_one("#tables", DataTable)
        if widget.row_count == 0:
            self.show_error("no table to join: create one")
            return
        row_key = widget.coordinate_to_cell_key(widget.cursor_coordinate).row_key
        summary = self.summaries.get(row_key.value or "")
        if summary is not None:
            app.open_table(summary.table_id, sit=True, buy_in=default_buy_in(summary.config))

    @on(Button.Pressed, "#join-private-button")
    def join_private(self) -> None:
        """A private table by its id, with its password or invite code."""
        table_id = self.query_one("#private-table", Input).value.strip()
        password = self.query_one("#private-password", Input).value
        invite = self.query_one("#invite-code", Input).value.strip()
        if not table_id or not (password or invite):
            self.show_error("a private table: its id, and its password or invite code")
            return
        access = Access(password=password, invite_code=invite)
        host(self).open_table(table_id, sit=True, access=access)

    def action_lobby_chat(self) -> None:
        self.app.push_screen(LobbyChatScreen())

    @on(Button.Pressed, "#tournaments-button")
    def action_tournaments(self) -> None:
        self.app.push_screen(TournamentsScreen())
