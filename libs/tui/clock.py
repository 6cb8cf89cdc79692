"""The acting seat's clock as the terminal client's turn line says it (pure, from the view): the
seconds left, and the time bank still to come (" 25s (+60s bank)"), or, once the clock ran out
and the bank runs, that the seconds left are the bank's (" 34s (time bank)"). The showdown's
clock spends no bank."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.client.view import is_showdown_turn

__all__ = ["clock_text"]


def clock_text(view: pb.PlayerView, now: float) -> str:
    """What follows "Your turn" (or "Ann to act"); empty when the turn has no deadline."""
    if not view.HasField("action_deadline"):
        return ""
    deadline = view.action_deadline.seconds + view.action_deadline.nanos / 1e9
    seconds = max(0, int(deadline - now + 0.999))
    if view.time_bank_running:  # the deadline is the bank's end: nothing more to add
        return f" {seconds}s (time bank)"
    bank = next((s.time_bank_seconds for s in view.seats if s.seat == view.acting_seat), 0)
    if is_showdown_turn(view):
        bank = 0
    return f" {seconds}s" + (f" (+{bank}s bank)" if bank else "")
