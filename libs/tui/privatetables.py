"""Private tables in the terminal client (docs/client.md, docs/private-tables.md): how a table
screen enters one (``Access``: the password or invite code to join with; for its creator the
invite code to pass on and whether they approve each seat), the line the creator reads, and the
creator's seat requests: asked of the gateway every few seconds (there is no push of them), the
first one approved with [F7] or refused with [F8].

``OwnerKeys`` is a mixin of the table screen, which supplies the client, the model and the
status."""

from __future__ import annotations

from dataclasses import dataclass

from textual import work
from textual.binding import Binding

from libs.client import GatewayClient, GatewayError
from libs.tui.model import TableModel

BINDINGS = [
    Binding("f7", "decide_seat(True)", "approve seat"),
    Binding("f8", "decide_seat(False)", "refuse seat"),
]
REQUESTS_POLL_SECONDS = 2.0


@dataclass(frozen=True)
class Access:
    """How the table screen's player enters the table."""

    password: str = ""  # to join a private table with
    invite_code: str = ""  # or this
    created_invite: str = ""  # the creator's: the invite code to pass on
    has_password: bool = False  # the creator set a password
    approve_seats: bool = False  # the creator approves each seat

    @property
    def owner(self) -> bool:
        return bool(self.created_invite)


def invite_line(table_id: str, access: Access) -> str:
    """What the creator of a private table passes on ("" for anyone else)."""
    if not access.owner:
        return ""
    password = " or the password" if access.has_password else ""
    return f"Private: table {table_id} invite {access.created_invite}{password}"


def requests_line(waiting: list[str]) -> str:
    """The creator's seat requests ("" when nobody asks)."""
    if not waiting:
        return ""
    names = ", ".join(player[:8] for player in waiting[:3])
    more = f" +{len(waiting) - 3}" if len(waiting) > 3 else ""
    return f"Seat asked: {names}{more} [F7] ok [F8] no"


class OwnerKeys:
    """The creator's seat requests and their keys."""

    model: TableModel
    access: Access
    seat_requests: list[str]

    @property
    def client(self) -> GatewayClient:
        raise NotImplementedError

    def set_status(self, text: str) -> None:
        raise NotImplementedError

    @work(group="seat-requests", exclusive=True)
    async def poll_seat_requests(self) -> None:
        if not self.access.approve_seats:
            return
        try:
            waiting = await self.client.seat_requests(self.model.table_id)
        except GatewayError:
            return  # asked again at the next tick
        if waiting != self.seat_requests:
            self.seat_requests = waiting
            self.set_status(self.model.status)

    @work(group="act")
    async def action_decide_seat(self, approved: bool) -> None:
        if not self.seat_requests:
            self.set_status("no seat request")
            return
        player = self.seat_requests[0]
        try:
            self.seat_requests = await self.client.decide_seat(
                self.model.table_id, player, approved
            )
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.set_status(f"{'approved' if approved else 'refused'} {player[:8]}'s seat")
