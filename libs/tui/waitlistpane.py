"""Taking a seat in the terminal client (docs/client.md, docs/private-tables.md): the join (with
the private table's password or invite code when there is one), the waiting list of a full
table, the creator's approval, and a seat change.

- A join at a full table puts the player in line (WAITLISTED): their place is shown as the
  gateway pushes it (WatchWaitlist), and the seat offered to them with its clock; [F3] takes it,
  [F4] leaves the list ([F3] then joins it again, at its end).
- A join awaiting the creator's approval (AWAITING_APPROVAL) is asked again every few seconds
  until the creator answers; [F3] asks at once.
- [F2] moves to the seat whose number is typed in the amount field (between your hands).

``SeatKeys`` is a mixin of the table screen, which supplies the client, the model and the
status."""

from __future__ import annotations

import asyncio

from holdem.gateway.v1 import gateway_pb2
from textual import work
from textual.binding import Binding
from textual.widgets import Input

from libs.client import GatewayClient, GatewayError
from libs.tui.model import TableModel
from libs.tui.privatetables import Access

BINDINGS = [
    Binding("f2", "change_seat", "change seat"),
    Binding("f3", "take_seat", "take the seat"),
    Binding("f4", "leave_waitlist", "leave the list"),
]
APPROVAL_POLL_SECONDS = 3.0


def waitlist_line(update: gateway_pb2.WaitlistUpdate | None, now: float) -> str:
    """The waiting player's line: their place, or the seat offered with its clock ("" when not
    waiting)."""
    if update is None or not update.position:
        return ""
    if update.HasField("offered_until"):
        until = update.offered_until.seconds + update.offered_until.nanos / 1e9
        left = max(0, int(until - now + 0.999))
        return f"A seat is yours for {left}s: [F3] take it  [F4] leave the list"
    return f"Waiting list: {update.position} of {update.waiting}  [F4] leave the list"


class SeatKeys:
    """The join, the waiting list and the seat change; their keys."""

    model: TableModel
    access: Access
    seat_buy_in: int | None  # the buy-in of the seat still wanted (waiting, or awaiting approval)
    waitlist: gateway_pb2.WaitlistUpdate | None

    @property
    def client(self) -> GatewayClient:
        raise NotImplementedError

    def set_status(self, text: str) -> None:
        raise NotImplementedError

    def refresh_wallet(self) -> object:
        raise NotImplementedError

    def amount_input(self) -> Input:
        raise NotImplementedError

    @work(group="act")
    async def join(self, buy_in: int) -> None:
        table_id, access = self.model.table_id, self.access
        self.seat_buy_in = buy_in
        try:
            if access.password or access.invite_code:
                joined = await self.client.join_private_table(
                    table_id, buy_in, password=access.password, invite_code=access.invite_code
                )
            else:
                joined = await self.client.join_table(table_id, buy_in)
        except GatewayError as error:
            if error.code == "WAITLISTED":
                self.set_status(f"the table is full: {error.message}")
                if self.waitlist is None:
                    self.waitlist = gateway_pb2.WaitlistUpdate()
                    self.follow_waitlist()
            elif error.code == "AWAITING_APPROVAL":
                self.set_status("waiting for the creator to approve your seat ([F3] ask again)")
                self.ask_again(buy_in)
            else:
                self.set_status(f"join refused: {error.message}")
            return
        self.seat_buy_in = None
        self.waitlist = None
        self.set_status(f"seated at seat {joined.seat} with {joined.stack}")
        self.refresh_wallet()

    @work(group="approval", exclusive=True)
    async def ask_again(self, buy_in: int) -> None:
        """The join again after a while: the creator may have approved the seat since."""
        await asyncio.sleep(APPROVAL_POLL_SECONDS)
        self.join(buy_in)

    @work(group="waitlist", exclusive=True)
    async def follow_waitlist(self) -> None:
        """The place in line as the gateway pushes it, until the player no longer waits."""
        try:
            async for update in self.client.watch_waitlist(self.model.table_id):
                self.waitlist = update
                self.set_status(self.model.status)
        except GatewayError as error:
            self.set_status(f"waiting list: {error.message}")
        self.waitlist = None
        self.set_status(self.model.status)

    def action_take_seat(self) -> None:
        if self.seat_buy_in is None:
            self.set_status("no seat wanted here")
            return
        self.join(self.seat_buy_in)

    @work(group="act")
    async def action_leave_waitlist(self) -> None:
        try:
            await self.client.leave_waitlist(self.model.table_id)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.waitlist = None  # the buy-in is kept: [F3] joins the line again, at its end
        self.set_status("left the waiting list ([F3] joins it again)")

    @work(group="act")
    async def action_change_seat(self) -> None:
        typed = self.amount_input().value
        if not typed:
            self.set_status("type the seat number, then [F2]")
            return
        try:
            await self.client.change_seat(self.model.table_id, int(typed))
        except GatewayError as error:
            self.set_status(f"seat change refused: {error.message}")
            return
        self.amount_input().value = ""
        self.set_status(f"moving to seat {typed}")
