"""A seat change at the table aggregate: between the player's hands, to a free seat, their
stack moving with them; once hands are dealt they wait for the big blind at the new seat, and
a change during their hand, to a taken seat or to no seat is refused with nothing changed."""

from __future__ import annotations

import pytest

from libs.poker.errors import IllegalAction, InvalidCommand
from libs.table import commands as tc
from libs.table import errors as TE
from libs.table.codec import decode, encode
from libs.table.events import SeatChanged
from tests.table.table_steps import after_a_hand, seated, when


def test_before_any_hand_a_player_moves_and_plays_at_once() -> None:
    state = seated(2)
    after, events = when(state, tc.ChangeSeat("p1", 4))
    assert events == [SeatChanged(1, 4, "p1", waits_for_big_blind=False)]
    assert [decode(encode(e)) for e in events] == events
    assert 1 not in after.seats and after.seats[4].player_id == "p1"
    assert after.seats[4].stack == 100 and not after.seats[4].waiting_for_big_blind


def test_once_hands_are_dealt_the_mover_waits_for_the_big_blind() -> None:
    state = after_a_hand(seated(3))
    after, events = when(state, tc.ChangeSeat("p2", 5))
    assert events == [SeatChanged(2, 5, "p2", waits_for_big_blind=True)]
    assert after.seats[5].waiting_for_big_blind


@pytest.mark.parametrize(
    ("seat", "error", "code"),
    [
        (1, IllegalAction, TE.SEAT_TAKEN),
        (0, IllegalAction, TE.SEAT_TAKEN),
        (6, InvalidCommand, TE.NO_SUCH_SEAT),
    ],
)
def test_a_taken_same_or_missing_seat_is_refused(
    seat: int, error: type[Exception], code: str
) -> None:
    state = seated(2)
    with pytest.raises(error) as caught:
        when(state, tc.ChangeSeat("p0", seat))
    assert getattr(caught.value, "code", None) == code


def test_no_change_during_the_players_hand_nor_for_a_stranger() -> None:
    state = seated(2)
    state, _ = when(state, tc.StartHand("h1", "c", 1.0))
    with pytest.raises(IllegalAction) as caught:
        when(state, tc.ChangeSeat("p0", 3))
    assert caught.value.code == TE.HAND_IN_PROGRESS
    with pytest.raises(IllegalAction):
        when(state, tc.ChangeSeat("nobody", 3))
