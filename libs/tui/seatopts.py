"""The terminal client's sitting-out and blind settings (docs/client.md): the lines they add to
the table screen (pure, from the view and the events) and the keys' actions (``SeatOptionKeys``,
a mixin of the table screen): [j] sit out next big blind, [u] auto-post blinds, [d] wait for the
big blind (each toggles), and when asked to post a blind, [y] post it or [z] sit out."""

from __future__ import annotations

from collections.abc import Callable

from holdem.common.v1 import common_pb2 as pb
from textual import work
from textual.binding import Binding

from libs.client import GatewayClient, GatewayError
from libs.client.view import my_seat
from libs.table import events as te

BINDINGS = [
    Binding("y", "answer_blind(True)", "post blind"),
    Binding("z", "answer_blind(False)", "sit out"),
    Binding("j", "seat_option('sit_out_next_big_blind')", "sit out next BB"),
    Binding("u", "seat_option('auto_post_blinds')", "auto-post"),
    Binding("d", "seat_option('wait_for_big_blind')", "wait for BB"),
]
SAID = {
    "sit_out_next_big_blind": ("sitting out at your next big blind", "playing your big blind"),
    "auto_post_blinds": ("blinds posted unasked", "asked before each blind"),
    "wait_for_big_blind": ("waiting for the big blind when owing it", "posting an entry bet"),
}


def asked_me(view: pb.PlayerView) -> bool:
    """The next hand waits for the viewer to post a blind or sit out."""
    return (
        view.HasField("blind_question")
        and view.HasField("viewer_seat")
        and view.blind_question.seat == view.viewer_seat
    )


def blind_keys(view: pb.PlayerView) -> str:
    """The action line while the viewer is asked to post a blind ("" otherwise)."""
    if not asked_me(view):
        return ""
    q = view.blind_question
    dead = f" + {q.dead_amount} dead" if q.dead_amount else ""
    return f"Post your blind of {q.amount}{dead}? [y] post  [z] sit out"


def blind_wait_line(view: pb.PlayerView, now: float, name: Callable[[int], str]) -> str:
    """Between hands: who the next hand waits for, with their clock ("" when nobody)."""
    if not view.HasField("blind_question"):
        return ""
    q = view.blind_question
    left = max(0, int(q.deadline.seconds + q.deadline.nanos / 1e9 - now + 0.999))
    if asked_me(view):
        return f"Your blind: post it or sit out ({left}s)"
    return f"Waiting for {name(q.seat)} to post a blind ({left}s)"


def my_settings(view: pb.PlayerView) -> str:
    """The viewer's blind settings that differ from the defaults, as a suffix ("" otherwise)."""
    me = my_seat(view)
    if me is None:
        return ""
    notes = []
    if me.sit_out_next_big_blind:
        notes.append("out at next BB")
    if not me.auto_post_blinds:
        notes.append("blinds asked")
    if not me.wait_for_big_blind:
        notes.append("posts entry")
    return "".join(f" · {note}" for note in notes)


def event_line(event: object, who: Callable[[int, str], str]) -> str:
    """The log line of a sitting-out, blind or seat-change event ("" for others)."""
    if isinstance(event, te.BlindAsked):
        return who(event.seat, "is asked to post a blind")
    if isinstance(event, te.BlindAgreed):
        return who(event.seat, "will post the blind")
    if isinstance(event, te.ConnectionMarked):
        return who(event.seat, "is back" if event.connected else "is disconnected")
    if isinstance(event, te.SeatChanged):  # [F2] (waitlistpane.py)
        waits = " (waits for the big blind)" if event.waits_for_big_blind else ""
        return who(event.from_seat, f"moves to seat {event.to_seat}{waits}")
    return ""


class SeatOptionKeys:
    """The keys' actions; the table screen supplies the client, the model and the status."""

    @property
    def client(self) -> GatewayClient:
        raise NotImplementedError

    def set_status(self, text: str) -> None:
        raise NotImplementedError

    def table_view(self) -> pb.PlayerView:
        raise NotImplementedError

    @work(group="act")
    async def action_answer_blind(self, post: bool) -> None:
        view = self.table_view()
        try:
            await self.client.answer_blind(view.table_id, post)
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        self.set_status("posting the blind" if post else "sitting out")

    @work(group="act")
    async def action_seat_option(self, name: str) -> None:
        view = self.table_view()
        me = my_seat(view)
        if me is None:
            self.set_status("take a seat first")
            return
        value = not getattr(me, name)
        try:
            await self.client.set_seat_options(view.table_id, **{name: value})
        except GatewayError as error:
            self.set_status(f"refused: {error.message}")
            return
        on, off = SAID[name]
        self.set_status(on if value else off)
