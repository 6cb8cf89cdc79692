"""``holdem play`` / ``holdem watch``: a textual terminal client of the gateway (80x24 and up).

Screens: log in (account or guest) -> lobby (pick a table, or create one with AI opponents) ->
the table (your cards, the board, pots and side pots, stacks, button and blinds, whose turn and
their clock, the legal actions with their amounts, the running log, the showdown, your wallet).
It talks only to the gateway, through libs.client; the stream resumes by itself after a dropped
connection, and a refused action shows the server's reason on the status line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from holdem.common.v1 import common_pb2 as pb
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Input, Label, RichLog, Select, Static

from libs.client import GatewayClient, GatewayError
from libs.client.view import bet_sizes, is_my_turn, is_showdown_turn, my_seat
from libs.tui.model import STRUCTURES, VARIANTS, TableModel, stakes

LEVELS = {
    "easy": pb.BOT_DIFFICULTY_EASY,
    "normal": pb.BOT_DIFFICULTY_NORMAL,
    "hard": pb.BOT_DIFFICULTY_HARD,
}
VARIANT_ARGS = {
    "holdem": pb.VARIANT_HOLDEM,
    "omaha": pb.VARIANT_OMAHA,
    "omaha-hi-lo": pb.VARIANT_OMAHA_HI_LO,
}
STRUCTURE_ARGS = {
    "nl": pb.BETTING_STRUCTURE_NO_LIMIT,
    "pl": pb.BETTING_STRUCTURE_POT_LIMIT,
    "fl": pb.BETTING_STRUCTURE_FIXED_LIMIT,
}


@dataclass
class NewTable:
    """What the create-table form (or ``holdem play --create``) asks for."""

    variant: pb.Variant.ValueType = pb.VARIANT_HOLDEM
    structure: pb.BettingStructure.ValueType = pb.BETTING_STRUCTURE_NO_LIMIT
    small_blind: int = 1
    big_blind: int = 2
    seats: int = 6
    bots: Sequence[pb.BotDifficulty.ValueType] = field(default_factory=list)
    name: str = ""
    hand_limit: int = 0

    def config(self) -> pb.TableConfig:
        return pb.TableConfig(
            variant=self.variant,
            betting_structure=self.structure,
            max_seats=self.seats,
            small_blind=self.small_blind,
            big_blind=self.big_blind,
            hand_limit=self.hand_limit,
        )


def parse_levels(text: str) -> list[pb.BotDifficulty.ValueType]:
    """ "normal,easy,hard" -> levels; unknown words raise ValueError."""
    words = [w.strip().lower() for w in text.replace(" ", ",").split(",") if w.strip()]
    unknown = [w for w in words if w not in LEVELS]
    if unknown:
        raise ValueError(f"unknown AI level {unknown[0]!r} (easy, normal, hard)")
    return [LEVELS[w] for w in words]


# Over the seat lines of TableModel.seat_lines (* marks an AI).
SEATS_HEADER = "     # player      stack   bet cards"


def default_buy_in(config: pb.TableConfig) -> int:
    return config.max_buy_in or config.big_blind * 100


class AmountInput(Input):
    """The bet amount: takes digits only, so every letter stays an action key of the table."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isdigit()

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not (event.character or "").isdigit():
            event.prevent_default()  # not the Input's: it bubbles to the screen's bindings


# ---------------------------------------------------------------------------------------------


class LoginScreen(Screen[None]):
    """An account (log in or register) or a guest name."""

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
            yield Label("", id="login-error", classes="error")

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        app = self.app
        assert isinstance(app, PlayApp)
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
    """The open tables, and a form to create one with AI opponents."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("f5", "refresh", "refresh")
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: dict[str, pb.TableSummary] = {}

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="lobby-header")
        yield DataTable(id="tables", cursor_type="row")
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
        yield Label("", id="lobby-error", classes="error")

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        table.add_columns("table", "game", "seats", "players")
        self.action_refresh()

    @work(exclusive=True, group="lobby")
    async def action_refresh(self) -> None:
        app = self.app
        assert isinstance(app, PlayApp)
        header = self.query_one("#lobby-header", Static)
        header.update(f"Tables · {app.client.player.display_name if app.client.player else ''}")
        try:
            tables = await app.client.list_tables()
        except GatewayError as error:
            self.show_error(str(error))
            return
        widget = self.query_one("#tables", DataTable)
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

    def show_error(self, message: str) -> None:
        self.query_one("#lobby-error", Label).update(message)

    def form(self) -> NewTable:
        blinds = self.query_one("#blinds", Input).value.split("/")
        small, big = (int(blinds[0]), int(blinds[1])) if len(blinds) == 2 else (1, 2)
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
        )

    @on(Button.Pressed, "#create-button")
    def create(self) -> None:
        app = self.app
        assert isinstance(app, PlayApp)
        try:
            spec = self.form()
        except ValueError as error:
            self.show_error(str(error))
            return
        app.create_and_sit(spec)

    @on(Button.Pressed, "#join-button")
    @on(DataTable.RowSelected)
    def join(self) -> None:
        app = self.app
        assert isinstance(app, PlayApp)
        widget = self.query_one("#tables", DataTable)
        if widget.row_count == 0:
            self.show_error("no table to join: create one")
            return
        row_key = widget.coordinate_to_cell_key(widget.cursor_coordinate).row_key
        summary = self.summaries.get(row_key.value or "")
        if summary is not None:
            app.open_table(summary.table_id, sit=True, buy_in=default_buy_in(summary.config))


class TableScreen(Screen[None]):
    """One table: play it (seated) or watch it (spectator)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("f", "act('fold')", "fold"),
        Binding("c", "act('check_call')", "check/call"),
        Binding("r", "act('raise')", "bet/raise"),
        Binding("m", "size('min')", "min"),
        Binding("h", "size('half')", "half pot"),
        Binding("p", "size('pot')", "pot"),
        Binding("a", "size('all_in')", "all-in"),
        Binding("s", "show(True)", "show"),
        Binding("k", "show(False)", "muck"),
        Binding("o", "sit_out_in", "sit out/in"),
        Binding("l", "leave", "leave"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, table_id: str, *, buy_in: int | None, clock: Callable[[], float]) -> None:
        super().__init__()
        self.model = TableModel(table_id)
        self.buy_in = buy_in
        self.clock = clock
        self.wallet = ""
        self.logged = 0  # lines of the model's log written to the log widget

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="header")
        yield Static(SEATS_HEADER, markup=False, id="seats-header")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static("", markup=False, id="seats")
                yield Static("", markup=False, id="board")
                yield Static("", markup=False, id="pots")
                yield Static("", markup=False, id="showdown")
                yield Static("", markup=False, id="mine")
                yield Static("", markup=False, id="turn")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Static("", markup=False, id="actions")
        with Horizontal(id="bottom"):
            yield AmountInput(placeholder="amount", id="amount", restrict="[0-9]*")
            yield Static("", markup=False, id="status")

    @property
    def client(self) -> GatewayClient:
        app = self.app
        assert isinstance(app, PlayApp)
        return app.client

    def on_mount(self) -> None:
        self.model.on_hand_end = self.refresh_wallet
        self.query_one("#amount", Input).focus()  # digits type an amount; letters are actions
        self.redraw()
        self.play()
        self.refresh_wallet()
        self.set_interval(1.0, self.redraw)

    def redraw(self) -> None:
        m = self.model
        self.query_one("#header", Static).update(m.header(self.wallet))
        self.query_one("#seats", Static).update("\n".join(m.seat_lines()))
        self.query_one("#board", Static).update(m.board_line())
        self.query_one("#pots", Static).update("\n".join(m.pot_lines()))
        self.query_one("#showdown", Static).update("\n".join(m.showdown[-3:]))
        self.query_one("#mine", Static).update(m.my_cards_line())
        self.query_one("#turn", Static).update(m.turn_line(self.clock()))
        log = self.query_one("#log", RichLog)
        for line in m.log[self.logged :]:
            log.write(line)
        self.logged = len(m.log)
        self.query_one("#actions", Static).update(m.action_line())
        self.query_one("#status", Static).update(m.status)

    def set_status(self, text: str) -> None:
        self.model.status = text
        self.redraw()

    @work(group="table")
    async def play(self) -> None:
        table_id = self.model.table_id

        def resumed(error: GatewayError) -> None:
            self.set_status(f"connection lost ({error.status.name}), resuming...")

        try:
            async for update in self.client.watch(table_id, on_resume=resumed):
                if self.model.status.startswith("connection lost"):
                    self.model.status = "reconnected"
                self.model.apply(update)
                self.redraw()
                if self.buy_in is not None:  # watching first, so the log shows our hand begin
                    self.join(self.buy_in)
                    self.buy_in = None
            self.set_status("the table closed")  # the gateway ends a closed table's stream
        except GatewayError as error:
            self.set_status(f"watch ended: {error.message}")

    @work(group="act")
    async def join(self, buy_in: int) -> None:
        try:
            joined = await self.client.join_table(self.model.table_id, buy_in)
        except GatewayError as error:
            self.set_status(f"join refused: {error.message}")
            return
        self.set_status(f"seated at seat {joined.seat} with {joined.stack}")
        self.refresh_wallet()

    @work(group="wallet", exclusive=True)
    async def refresh_wallet(self) -> None:
        if self.client.token is None:
            return
        try:
            wallet = await self.client.wallet()
        except GatewayError:
            return
        self.wallet = str(wallet.balance)
        self.redraw()

    # -- actions

    def amount(self) -> int | None:
        text = self.query_one("#amount", Input).value
        return int(text) if text else None

    def action_size(self, key: str) -> None:
        sizes = bet_sizes(self.model.view)
        if key in sizes:
            self.query_one("#amount", Input).value = str(sizes[key])

    def action_act(self, what: str) -> None:
        view = self.model.view
        if not is_my_turn(view) or is_showdown_turn(view):
            self.set_status("not your turn")
            return
        legal = view.legal_actions
        amount = 0
        if what == "fold":
            action = pb.ACTION_TYPE_FOLD
        elif what == "check_call":
            action = pb.ACTION_TYPE_CHECK if legal.can_check else pb.ACTION_TYPE_CALL
        else:
            sizes = bet_sizes(view)
            typed = self.amount()
            amount = typed if typed is not None else sizes.get("min", 0)
            facing = any(s.committed for s in view.seats)
            action = pb.ACTION_TYPE_RAISE if facing else pb.ACTION_TYPE_BET
            if sizes and amount == sizes["all_in"]:
                action, amount = pb.ACTION_TYPE_ALL_IN, 0
        self.send(action, amount, view.hand_id)

    @work(group="act")
    async def send(self, action: pb.ActionType.ValueType, amount: int, hand_id: str) -> None:
        try:
            reply = await self.client.act(self.model.table_id, action, amount, hand_id=hand_id)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.query_one("#amount", Input).value = ""
        self.model.status = ""
        self.model.set_view(reply.view)
        self.redraw()

    @work(group="act")
    async def action_show(self, show: bool) -> None:
        view = self.model.view
        try:
            if show:
                shown = await self.client.show(self.model.table_id, hand_id=view.hand_id)
                self.model.set_view(shown.view)
            else:
                mucked = await self.client.muck(self.model.table_id, hand_id=view.hand_id)
                self.model.set_view(mucked.view)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.set_status("")

    @work(group="act")
    async def action_sit_out_in(self) -> None:
        me = my_seat(self.model.view)
        try:
            if me is not None and me.status == pb.SEAT_STATUS_SITTING_OUT:
                await self.client.sit_in(self.model.table_id)
                self.set_status("back in: dealt in from the next hand")
            else:
                await self.client.sit_out(self.model.table_id)
                self.set_status("sitting out")
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")

    @work(group="act")
    async def action_leave(self) -> None:
        try:
            left = await self.client.leave_table(self.model.table_id)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        if left.leaving:
            self.set_status("leaving when this hand ends (you fold at your turn)")
        else:
            self.set_status(f"left the table with {left.cash_out}")
        self.refresh_wallet()


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
    #seats { height: 10; }
    #board, #mine, #turn, #seats-header { height: 1; }
    #seats-header { color: $text-muted; }
    #pots, #showdown { height: auto; max-height: 3; }
    #log { width: 1fr; height: 1fr; border-left: solid $primary; padding-left: 1;
           scrollbar-size-vertical: 1; }
    #actions { height: 2; background: $boost; }
    #bottom { height: 1; }
    #amount { width: 14; border: none; height: 1; padding: 0 1; }
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
            else:
                self.push_screen(LoginScreen())
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
        try:
            table = await self.client.create_table(spec.config(), spec.name, spec.bots)
        except GatewayError as error:
            if isinstance(self.screen, LobbyScreen):
                self.screen.show_error(f"refused: {error.message}")
            else:
                self.exit(message=f"could not create the table: {error}")
            return
        self.open_table(
            table.table_id, sit=True, buy_in=self.buy_in or default_buy_in(table.config)
        )

    def open_table(self, table_id: str, *, sit: bool, buy_in: int | None = None) -> None:
        """The table screen; seated with ``buy_in`` (default: the app's, else 100 big blinds of
        the table, found in the catalogue) unless only watching."""
        chips = (buy_in or self.buy_in) if sit else None
        self.switch_or_push(TableScreen(table_id, buy_in=chips, clock=self.clock))

    async def on_unmount(self) -> None:
        await self.client.close()
