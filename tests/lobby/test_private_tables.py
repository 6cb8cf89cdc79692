"""Private tables in the catalogue, pure (libs/lobby/privacy.py): who may enter, requests the
creator approves, and the events replayed."""

from __future__ import annotations

import pytest

from libs.errors import NotFound, PermissionDenied
from libs.lobby import catalogue, privacy
from libs.lobby.catalogue import Listing


def listing(approve: bool = False, password: bool = True) -> Listing:
    state = catalogue.initial("t1")
    settings = privacy.private_listing("hash" if password else "", "invite-code", approve)
    for event in catalogue.list_table(state, "Home game", "cfg", "host", 1.0, settings):
        state = catalogue.evolve(state, event)
    return state


def apply(state: Listing, events: list[catalogue.Event]) -> Listing:
    for event in events:
        state = catalogue.evolve(state, event)
    # and the events survive their encoding, as the stream keeps them
    assert catalogue.decode(catalogue.encode(events)) == events
    return state


def test_a_private_table_is_entered_with_its_password_or_invite_only() -> None:
    table = listing()
    assert table.private and table.name == "Home game" and table.created_by == "host"
    privacy.may_enter(table, "host", False, "")  # the creator always
    privacy.may_enter(table, "guest", True, "")
    privacy.may_enter(table, "guest", False, "invite-code")
    for matched, invite in ((False, ""), (False, "invite-cod"), (False, "INVITE-CODE")):
        with pytest.raises(PermissionDenied) as caught:
            privacy.may_enter(table, "guest", matched, invite)
        assert caught.value.code == privacy.WRONG_TABLE_PASSWORD
    no_password = listing(password=False)
    with pytest.raises(PermissionDenied):  # a matched flag with no password set means nothing
        privacy.may_enter(no_password, "guest", True, "")
    public = catalogue.evolve(
        catalogue.initial("t2"), catalogue.TableListed("Open", "cfg", "host", 1.0)
    )
    privacy.may_enter(public, "anyone", False, "")
    assert not privacy.must_wait(public, "anyone")


def test_the_creator_approves_who_sits() -> None:
    table = listing(approve=True)
    assert privacy.must_wait(table, "ann") and not privacy.must_wait(table, "host")
    table = apply(table, privacy.request_seat(table, "ann", 2.0))
    table = apply(table, privacy.request_seat(table, "bob", 3.0))
    assert privacy.request_seat(table, "ann", 4.0) == []  # asked once
    assert privacy.seat_requests(table, "host") == ["ann", "bob"]
    with pytest.raises(PermissionDenied):
        privacy.seat_requests(table, "ann")
    with pytest.raises(PermissionDenied):
        privacy.decide_seat(table, "ann", "bob", True, 5.0)
    table = apply(table, privacy.decide_seat(table, "host", "ann", True, 5.0))
    assert not privacy.must_wait(table, "ann") and table.requests == ["bob"]
    table = apply(table, privacy.decide_seat(table, "host", "bob", False, 6.0))
    assert privacy.must_wait(table, "bob") and table.requests == []
    with pytest.raises(NotFound):  # refusing one who did not ask
        privacy.decide_seat(table, "host", "carl", False, 7.0)
    assert privacy.decide_seat(table, "host", "ann", True, 7.0) == []  # already approved
    table = apply(table, privacy.decide_seat(table, "host", "dave", True, 8.0))  # invited
    assert not privacy.must_wait(table, "dave")
    restored = catalogue.decode_listing(catalogue.encode_listing(table))
    assert restored == table
