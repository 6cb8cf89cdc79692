"""Waiting lists, pure (libs/lobby/waitlist.py): a full table's line, the free seat offered in
turn with a clock, refusals while another holds it, leaving the line."""

from __future__ import annotations

import pytest

from libs.errors import NotFound, PreconditionFailed
from libs.lobby import catalogue, waitlist
from libs.lobby.catalogue import Activity, Listing

CLOCK = 10.0


def table(seated: int) -> Listing:
    state = catalogue.initial("t1")
    events: list[catalogue.Event] = [
        catalogue.TableListed("T", "cfg", "host", 0.0),
        Activity(1, seated, 0, "", 0.0),
    ]
    return apply(state, events)


def apply(state: Listing, events: list[catalogue.Event]) -> Listing:
    for event in events:
        state = catalogue.evolve(state, event)
    assert catalogue.decode(catalogue.encode(events)) == events
    return state


def test_a_full_table_puts_players_in_line_once() -> None:
    state = table(seated=2)
    for who in ("ann", "bob", "ann"):
        state = apply(state, waitlist.before_join(state, who, 2, 1.0, CLOCK))
    assert state.waiting == ["ann", "bob"] and waitlist.full(state, 2)
    refusal = waitlist.waited(state, "bob")
    assert refusal.code == waitlist.WAITLISTED and "number 2 of 2" in refusal.message
    assert waitlist.place(state, "bob", 2.0, CLOCK) == waitlist.Place(2, 2, 0.0)


def test_a_freed_seat_is_offered_in_turn_then_to_anyone() -> None:
    state = table(seated=2)
    for who in ("ann", "bob"):
        state = apply(state, waitlist.before_join(state, who, 2, 1.0, CLOCK))
    state = apply(state, [Activity(2, -1, 0, "", 100.0)])  # a seat came free at 100
    assert state.offer_started == 100.0
    assert waitlist.holder(state, 105.0, CLOCK) == ("ann", 110.0)
    assert waitlist.place(state, "ann", 105.0, CLOCK).offered_until == 110.0
    with pytest.raises(PreconditionFailed) as caught:
        waitlist.before_join(state, "bob", 2, 105.0, CLOCK)
    assert caught.value.code == waitlist.SEAT_OFFERED_TO_ANOTHER
    with pytest.raises(PreconditionFailed):
        waitlist.before_join(state, "stranger", 2, 105.0, CLOCK)
    assert waitlist.before_join(state, "ann", 2, 105.0, CLOCK) == []
    assert waitlist.holder(state, 115.0, CLOCK) == ("bob", 120.0)  # ann's turn passed
    with pytest.raises(PreconditionFailed):
        waitlist.before_join(state, "ann", 2, 115.0, CLOCK)
    assert waitlist.holder(state, 120.0, CLOCK) is None  # every turn passed: anyone's
    assert waitlist.before_join(state, "stranger", 2, 120.0, CLOCK) == []


def test_taking_the_seat_or_giving_up_leaves_the_line() -> None:
    state = table(seated=2)
    for who in ("ann", "bob", "cat"):
        state = apply(state, waitlist.before_join(state, who, 2, 1.0, CLOCK))
    state = apply(state, [Activity(2, -1, 0, "", 100.0)])
    state = apply(state, waitlist.leave(state, "ann", 103.0))  # gave up: the clock restarts
    assert state.waiting == ["bob", "cat"] and waitlist.holder(state, 104.0, CLOCK) == (
        "bob",
        113.0,
    )
    state = apply(state, waitlist.after_join(state, "bob", 105.0))
    assert state.waiting == ["cat"] and waitlist.holder(state, 105.0, CLOCK) is None
    assert waitlist.after_join(state, "dan", 106.0) == []
    with pytest.raises(NotFound) as caught:
        waitlist.leave(state, "dan", 106.0)
    assert caught.value.code == waitlist.NOT_WAITING
    assert catalogue.decode_listing(catalogue.encode_listing(state)) == state


def test_no_offer_while_the_table_was_not_full() -> None:
    state = table(seated=1)
    assert waitlist.before_join(state, "ann", 2, 1.0, CLOCK) == []  # a seat is free: sit
    state = apply(state, [Activity(2, -1, 0, "", 5.0)])
    assert state.offer_started == 0.0 and waitlist.holder(state, 6.0, CLOCK) is None
