"""The table screen: one table played (seated) or watched (a spectator): seats, board, pots, the
clock, the actions with their amounts, the running log and the showdown, redrawn from the
gateway's stream; the amount field takes digits only, so letters stay action keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from holdem.common.v1 import common_pb2 as pb
from holdem.gateway.v1 import gateway_pb2
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, RichLog, Static

from libs.client import GatewayClient, GatewayError
from libs.client.stats import stats_lines
from libs.client.view import bet_sizes, cards_text, is_my_turn, is_showdown_turn, my_seat
from libs.tui import chatpane, privatetables, waitlistpane
from libs.tui.bomb import bomb_line
from libs.tui.chatpane import ChatInput, ChatKeys
from libs.tui.host import host
from libs.tui.model import TableModel
from libs.tui.newtable import default_buy_in
from libs.tui.privatetables import Access, OwnerKeys, invite_line, requests_line
from libs.tui.seatopts import BINDINGS as SEAT_OPTION_BINDINGS
from libs.tui.seatopts import SeatOptionKeys
from libs.tui.waitlistpane import SeatKeys, waitlist_line

# Over the seat lines of TableModel.seat_lines (* marks an AI).
SEATS_HEADER = "     # player      stack   bet cards"


class AmountInput(Input):
    """The bet amount: takes digits only, so every letter stays an action key of the table."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isdigit()

    async def _on_key(self, event: events.Key) -> None:
        if event.is_printable and not (event.character or "").isdigit():
            event.prevent_default()  # not the Input's: it bubbles to the screen's bindings


class TableScreen(SeatOptionKeys, ChatKeys, SeatKeys, OwnerKeys, Screen[None]):
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
        Binding("n", "run_it(1)", "run once"),
        Binding("w", "run_it(2)", "run twice"),
        Binding("e", "run_it(3)", "run 3 times"),
        Binding("g", "run_it_setting", "run-it setting"),
        Binding("b", "rabbit_hunt", "rabbit hunt"),
        Binding("t", "straddle", "straddle on/off"),
        Binding("v", "bomb_pot(True)", "bomb pot: propose/agree"),
        Binding("x", "bomb_pot(False)", "bomb pot: refuse"),
        *SEAT_OPTION_BINDINGS,
        *chatpane.BINDINGS,
        *waitlistpane.BINDINGS,
        *privatetables.BINDINGS,
        Binding("o", "sit_out_in", "sit out/in"),
        Binding("i", "seat_stats", "stats"),
        Binding("l", "leave", "leave"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(
        self,
        table_id: str,
        *,
        buy_in: int | None,
        clock: Callable[[], float],
        access: Access | None = None,
    ) -> None:
        super().__init__()
        self.model = TableModel(table_id)
        self.buy_in = buy_in
        self.access = access or Access()
        self.chat_names: dict[str, str] = {}
        self.seat_buy_in: int | None = None
        self.waitlist: gateway_pb2.WaitlistUpdate | None = None
        self.seat_requests: list[str] = []
        self.clock = clock
        self.wallet = ""
        self.logged = 0  # lines of the model's log written to the log widget
        self.stats_seat = -1  # the seat whose statistics "i" showed last

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
                yield Static("", markup=False, id="social")
            yield RichLog(id="log", wrap=True, markup=False, auto_scroll=True, min_width=20)
        yield Static("", markup=False, id="actions")
        with Horizontal(id="bottom"):
            yield AmountInput(placeholder="amount", id="amount", restrict="[0-9]*")
            yield ChatInput(placeholder="chat (Enter sends, Esc back)", id="chat", max_length=500)
            yield Static("", markup=False, id="status")

    @property
    def client(self) -> GatewayClient:
        app = host(self)
        return app.client

    def table_view(self) -> pb.PlayerView:
        return self.model.view

    def chat_input(self) -> ChatInput:
        return self.query_one("#chat", ChatInput)

    def amount_input(self) -> Input:
        return self.query_one("#amount", Input)

    def on_mount(self) -> None:
        self.model.on_hand_end = self.refresh_wallet
        self.query_one("#amount", Input).focus()  # digits type an amount; letters are actions
        self.redraw()
        self.play()
        self.refresh_wallet()
        self.set_interval(1.0, self.redraw)
        self.chat_input().display = False
        self.follow_chat()
        if self.access.approve_seats:
            self.poll_seat_requests()
            self.set_interval(privatetables.REQUESTS_POLL_SECONDS, self.poll_seat_requests)

    def redraw(self) -> None:
        """Draw the model. Workers (the stream, the wallet, seat requests) call this when their
        call comes back, which can be after the screen closed: then there is nothing to draw on."""
        try:
            self._draw()
        except NoMatches:
            return

    def _draw(self) -> None:
        m = self.model
        self.query_one("#header", Static).update(m.header(self.wallet))
        self.query_one("#seats", Static).update("\n".join(m.seat_lines()))
        self.query_one("#board", Static).update(m.board_line())
        self.query_one("#pots", Static).update("\n".join(m.pot_lines()))
        self.query_one("#showdown", Static).update("\n".join(m.showdown[-3:]))
        self.query_one("#mine", Static).update(m.my_cards_line())
        bomb = bomb_line(m.view, self.clock())
        self.query_one("#turn", Static).update(m.turn_line(self.clock()) + f"\n{bomb}" * bool(bomb))
        social = (
            invite_line(m.table_id, self.access),
            requests_line(self.seat_requests),
            waitlist_line(self.waitlist, self.clock()),
        )
        self.query_one("#social", Static).update("\n".join(line for line in social if line))
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

        opened = False
        try:
            async for update in self.client.watch(table_id, on_resume=resumed):
                opened = True
                if self.model.status.startswith("connection lost"):
                    self.model.status = "reconnected"
                self.model.apply(update)
                self.redraw()
                if self.buy_in is not None:  # watching first, so the log shows our hand begin
                    self.join(self.buy_in or default_buy_in(self.model.view.config))
                    self.buy_in = None
            self.set_status("the table closed")  # the gateway ends a closed table's stream
        except GatewayError as error:
            if not opened:  # nothing to show: no such table, or not one this player may see
                host(self).table_unavailable(table_id, error.message)
                return
            self.set_status(f"watch ended: {error.message}")

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
        box = self.query_one("#amount", Input)
        typed, status = box.value, self.model.status
        try:
            reply = await self.client.act(self.model.table_id, action, amount, hand_id=hand_id)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        # the amount sent, and the status of before, are cleared; not what was typed or said
        # while the action was on its way (the next amount, a seat number, a seat change)
        if box.value == typed:
            box.value = ""
        if self.model.status == status:
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
    async def action_run_it(self, times: int) -> None:
        view = self.model.view
        try:
            answered = await self.client.answer_run_it(
                self.model.table_id, times, hand_id=view.hand_id
            )
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.model.set_view(answered.view)
        self.set_status("run once" if times == 1 else f"agreed to run it up to {times} times")

    @work(group="act")
    async def action_run_it_setting(self) -> None:
        """Cycle the standing answer: ask me, once, twice, three times."""
        me = my_seat(self.model.view)
        times = ((me.run_it_times if me is not None else 0) + 1) % 4
        try:
            await self.client.set_run_it_times(self.model.table_id, times)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        said = {0: "ask me", 1: "always once", 2: "agree to twice", 3: "agree to three times"}
        self.set_status(f"run it: {said[times]}")

    @work(group="act")
    async def action_rabbit_hunt(self) -> None:
        try:
            rabbit = await self.client.rabbit_hunt(self.model.table_id)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.set_status(f"rabbit: {cards_text(list(rabbit.cards))}")

    @work(group="act")
    async def action_straddle(self) -> None:
        """Toggle the seat's straddle setting."""
        me = my_seat(self.model.view)
        straddle = not (me is not None and me.straddle)
        try:
            await self.client.set_straddle(self.model.table_id, straddle)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.set_status("straddling when left of the big blind" if straddle else "no straddle")

    @work(group="act")
    async def action_bomb_pot(self, agree: bool) -> None:
        """Propose a bomb pot (no vote open), or agree to (refuse) the open vote."""
        try:
            await self.client.vote_bomb_pot(self.model.table_id, agree)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.set_status("bomb pot: agreed" if agree else "bomb pot: refused")

    @work(group="act")
    async def action_seat_stats(self) -> None:
        """The next occupied seat's statistics (from our own hands) and our note about them,
        into the log: each press moves on to the next seat."""
        m = self.model
        seats = sorted(seat for seat, player in m.players.items() if player)
        if not seats:
            return
        self.stats_seat = next((s for s in seats if s > self.stats_seat), seats[0])
        player = m.players[self.stats_seat]
        try:
            answer = await self.client.player_stats(player)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        m.log.extend(stats_lines(m.names.get(self.stats_seat, player[:8]), answer))
        self.redraw()

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
