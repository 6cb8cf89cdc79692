"""``holdem play``'s tournament screens (docs/client.md, "Tournaments"): the tournament lobby (every
tournament, one row each: register, unregister, open one) and a tournament (its clock - level,
blinds and ante, what changes next -, players left, average and largest stack, the prize pool and
the payouts, every entrant's standing, and the caller's seat, followed through WatchTournament:
a move says from which table to which, and "table" opens the caller's table as it is now). The
lines are libs/client/tournament_text.py's, as ``holdem tournaments`` prints them."""

from __future__ import annotations

import uuid
from typing import ClassVar

from holdem.gateway.v1 import gateway_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Button, DataTable, Label, Static

from libs.client import GatewayError
from libs.client.tournament_text import clock_line, field_line, seat_line
from libs.tui.host import host


def lobby_row(t: tpb.TournamentSummary) -> tuple[str, str, str, str, str]:
    """A tournament in the lobby: name, status, entrants, buy-in, level."""
    level = f"level {t.clock.level}" if t.HasField("clock") else "-"
    entrants = f"{t.entrants}/{t.max_entrants}"
    return (t.name or t.tournament_id, t.status, entrants, str(t.buy_in), level)


def payouts_line(t: tpb.TournamentSummary) -> str:
    prizes = ", ".join(f"{place}: {prize}" for place, prize in enumerate(t.prizes, 1))
    return f"pool {t.prize_pool}  payouts {prizes or '-'}"


class TournamentsScreen(Screen[None]):
    """Every tournament; register for the one selected, unregister, or open it (Enter)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("f5", "refresh", "refresh"),
        Binding("escape", "back", "back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("Tournaments", id="tournaments-header")
        yield DataTable(id="tournaments", cursor_type="row")
        with Horizontal(classes="buttons"):
            yield Button("Register", id="register-tournament", variant="primary")
            yield Button("Unregister", id="unregister-tournament")
            yield Button("Open", id="open-tournament", variant="success")
            yield Button("Tables", id="back-to-tables")
        yield Label("", id="tournaments-status", classes="error")

    def on_mount(self) -> None:
        self.query_one("#tournaments", DataTable).add_columns(
            "tournament", "status", "entrants", "buy-in", "level"
        )
        self.action_refresh()

    @work(exclusive=True, group="tournaments")
    async def action_refresh(self) -> None:
        try:
            tournaments = await host(self).client.tournaments()
        except GatewayError as error:
            self.say(str(error))
            return
        widget = self.query_one("#tournaments", DataTable)
        widget.clear()
        self.ids = [t.tournament_id for t in tournaments]
        for t in tournaments:
            widget.add_row(*lobby_row(t), key=t.tournament_id)

    def action_back(self) -> None:
        self.app.pop_screen()

    def say(self, message: str) -> None:
        self.query_one("#tournaments-status", Label).update(message)

    def selected(self) -> str:
        widget = self.query_one("#tournaments", DataTable)
        if widget.row_count == 0:
            return ""
        return widget.coordinate_to_cell_key(widget.cursor_coordinate).row_key.value or ""

    @on(Button.Pressed, "#register-tournament")
    @on(Button.Pressed, "#unregister-tournament")
    def register(self, event: Button.Pressed) -> None:
        tid = self.selected()
        if tid:
            self.enter(tid, event.button.id == "register-tournament")

    @work(exclusive=True, group="register")
    async def enter(self, tid: str, register: bool) -> None:
        client = host(self).client
        try:
            if register:
                await client.register_tournament(tid, key=uuid.uuid4().hex)
                self.say(f"registered for {tid}")
            else:
                refund = (await client.unregister_tournament(tid, key=uuid.uuid4().hex)).refund
                self.say(f"unregistered from {tid}: {refund} chips back")
        except GatewayError as error:
            self.say(f"refused: {error.message}")
        self.action_refresh()

    @on(Button.Pressed, "#open-tournament")
    @on(DataTable.RowSelected)
    def open(self) -> None:
        tid = self.selected()
        if tid:
            self.app.push_screen(TournamentScreen(tid))

    @on(Button.Pressed, "#back-to-tables")
    def tables(self) -> None:
        self.action_back()


class TournamentScreen(Screen[None]):
    """One tournament as it runs: clock, field, payouts, standings, the caller's seat."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("t", "table", "my table"),
        Binding("escape", "back", "back"),
    ]

    def __init__(self, tournament_id: str) -> None:
        super().__init__()
        self.tournament_id = tournament_id
        self.update: gateway_pb2.TournamentUpdate | None = None
        self.table_id = ""

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="tournament-clock")
        yield Static("", markup=False, id="tournament-field")
        yield Static("", markup=False, id="tournament-payouts")
        yield Static("", markup=False, id="tournament-me")
        yield DataTable(id="standings", cursor_type="none")
        with Horizontal(classes="buttons"):
            yield Button("My table", id="my-table", variant="success")
            yield Button("Back", id="tournament-back")

    def on_mount(self) -> None:
        self.query_one("#standings", DataTable).add_columns("player", "stack", "where / place")
        self.follow()

    @work(exclusive=True, group="tournament")
    async def follow(self) -> None:
        client = host(self).client
        try:
            async for update in client.watch_tournament(self.tournament_id):
                self.show(update)
                self.refresh_standings()
        except NoMatches:  # the screen was closed (or the app quit) while it waited
            return
        except GatewayError as error:
            self.query_one("#tournament-me", Static).update(f"stream ended: {error.message}")

    def show(self, update: gateway_pb2.TournamentUpdate) -> None:
        self.update = update
        t = update.tournament
        name = t.name or t.tournament_id
        self.query_one("#tournament-clock", Static).update(f"{name} [{t.status}]  {clock_line(t)}")
        self.query_one("#tournament-field", Static).update(field_line(t).split("  pool")[0])
        self.query_one("#tournament-payouts", Static).update(payouts_line(t))
        self.query_one("#tournament-me", Static).update(seat_line(update.me))
        self.table_id = update.me.table_id

    @work(exclusive=True, group="standings")
    async def refresh_standings(self) -> None:
        try:
            tournament = await host(self).client.tournament(self.tournament_id)
        except GatewayError:
            return
        try:
            widget = self.query_one("#standings", DataTable)
        except NoMatches:  # the screen was closed (or the app quit) while the call ran
            return
        widget.clear()
        for s in tournament.standings:
            where = f"table {s.table_id} seat {s.seat + 1}" if s.table_id else ""
            place = f"place {s.place}" + (f" prize {s.prize}" if s.prize else "") if s.place else ""
            name = s.player_id + (" (AI)" if s.is_bot else "")
            widget.add_row(name, str(s.stack), where or place)

    @on(Button.Pressed, "#my-table")
    def action_table(self) -> None:
        if self.table_id:
            host(self).open_table(self.table_id, sit=False)

    @on(Button.Pressed, "#tournament-back")
    def action_back(self) -> None:
        self.app.pop_screen()
