"""The lobby's pure domain (libs/lobby): wallets, accounts, the catalogue, passwords, what a
public table commit means for money, and the audit sum."""

from __future__ import annotations

import pytest
from holdem.lobby.v1 import lobby_pb2

from libs.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PreconditionFailed,
)
from libs.lobby import account, catalogue, wallet, wallet_codec, wallet_decide
from libs.lobby.audit import ChipAudit
from libs.lobby.cashouts import money_of
from libs.lobby.passwords import check_strength, hash_password, verify_password
from libs.platform.validation import RequestInvalid
from libs.platform.validator import validate
from libs.poker.events import RakeTaken
from libs.table.events import PlayerLeft, PlayerSeated, TableClosed


def run(state: wallet.Wallet, events: list[wallet.Event]) -> wallet.Wallet:
    for event in events:
        state = wallet.evolve(state, event)
    return state


def registered(grant: int = 1000) -> wallet.Wallet:
    w = wallet.initial("p1")
    return run(w, wallet_decide.register(w, "alice", "Alice", False, False, grant, 1.0))


def test_a_new_player_gets_the_grant_as_the_first_ledger_entry() -> None:
    w = registered()
    assert (w.balance, w.granted, w.reserved, w.on_tables) == (1000, 1000, 0, 0)
    assert [(e.kind, e.amount, e.balance_after) for e in w.ledger] == [("GRANT", 1000, 1000)]
    assert wallet_decide.register(w, "alice", "Alice", False, False, 1000, 2.0) == []  # a retry
    with pytest.raises(PreconditionFailed):
        wallet_decide.register(w, "bob", "Bob", False, False, 1000, 2.0)


def test_a_buy_in_reserves_then_confirms_once() -> None:
    w = registered()
    events = wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 300, None, False, 2.0)
    w = run(w, events)
    assert (w.balance, w.reserved, w.on_tables) == (700, 300, 0)
    assert wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 300, None, False, 3.0) == []
    w = run(w, wallet_decide.confirm(w, "s1", 2, 300, 7, 4.0))
    assert (w.balance, w.reserved, w.on_tables) == (700, 0, 300)
    assert w.outcomes["s1"].seat == 2 and w.outcomes["s1"].sequence == 7
    assert wallet_decide.confirm(w, "s1", 2, 300, 7, 5.0) == []
    assert wallet_decide.release(w, "s1", "X", "FAILED_PRECONDITION", "", 5.0) == []
    assert wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 300, None, False, 6.0) == []


def test_a_refused_buy_in_is_refunded_and_remembered() -> None:
    w = registered()
    w = run(w, wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 300, None, False, 2.0))
    w = run(w, wallet_decide.release(w, "s1", "SEAT_TAKEN", "FAILED_PRECONDITION", "taken", 3.0))
    assert (w.balance, w.reserved) == (1000, 0)
    assert w.outcomes["s1"].code == "SEAT_TAKEN"
    assert [e.kind for e in w.ledger] == ["GRANT", "BUY_IN", "REFUND"]
    assert [e.balance_after for e in w.ledger] == [1000, 700, 1000]


def test_not_enough_chips_and_unknown_players_are_refused() -> None:
    w = registered(100)
    with pytest.raises(PreconditionFailed) as caught:
        wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 101, None, False, 2.0)
    assert caught.value.code == wallet_decide.NOT_ENOUGH_CHIPS
    with pytest.raises(NotFound):
        wallet_decide.reserve(wallet.initial("ghost"), "s", wallet.BUY_IN, "t", 1, None, False, 1.0)


def test_a_table_commit_is_credited_once() -> None:
    w = registered()
    w = run(w, wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 300, None, False, 2.0))
    w = run(w, wallet_decide.confirm(w, "s1", 0, 300, 5, 3.0))
    w = run(w, wallet_decide.credit(w, "t1", 9, 450, 4.0))
    assert (w.balance, w.on_tables) == (1150, 0)
    assert wallet_decide.credit(w, "t1", 9, 450, 5.0) == []
    assert w.ledger[-1].reference == "t1:9" and w.ledger[-1].kind == "CASH_OUT"


def test_a_late_credit_of_an_earlier_seat_keeps_the_new_one() -> None:
    w = registered()
    w = run(w, wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 100, None, False, 2.0))
    w = run(w, wallet_decide.confirm(w, "s1", 0, 100, 20, 3.0))
    w = run(
        w, wallet_decide.credit(w, "t1", 9, 80, 4.0)
    )  # the cash-out of an earlier seat (commit 9)
    assert w.on_tables == 100


def test_a_cash_out_credited_before_its_buy_in_confirmed_leaves_nothing_on_the_table() -> None:
    """The table can seat a player, play its room limit out and close (commit 27) before the
    buy-in saga confirms the seat (commit 4): the chips are back in the balance, on no table."""
    w = registered()
    w = run(w, wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 100, None, False, 2.0))
    w = run(w, wallet_decide.credit(w, "t1", 27, 130, 3.0))
    w = run(w, wallet_decide.confirm(w, "s1", 0, 100, 4, 4.0))
    assert (w.balance, w.reserved, w.on_tables) == (1030, 0, 0)


def test_states_survive_their_snapshot_encoding() -> None:
    w = registered()
    w = run(w, wallet_decide.reserve(w, "s1", wallet.BUY_IN, "t1", 300, 3, True, 2.0))
    w = run(w, wallet_decide.reserve(w, "s2", wallet.BUY_IN, "t2", 100, None, False, 2.0))
    w = run(w, wallet_decide.confirm(w, "s2", 1, 100, 4, 3.0))
    w = run(w, wallet_decide.credit(w, "t2", 8, 50, 4.0))
    assert wallet_codec.decode_wallet(wallet_codec.encode_wallet(w)) == w
    assert wallet_codec.decode(wallet_codec.encode(wallet_decide.credit(w, "t2", 9, 1, 5.0))) == [
        wallet.CashedOut("t2:9", "t2", 9, 1, 5.0)
    ]
    listing = catalogue.initial("t1")
    listing = catalogue.evolve(listing, catalogue.TableListed("n", "Y29uZmln", "p1", 1.0))
    assert catalogue.decode_listing(catalogue.encode_listing(listing)) == listing


def test_a_username_is_claimed_once() -> None:
    key = account.account_key("Alice")
    assert key == account.account_key(" alice ")
    state = account.initial(key)
    opened = account.open_account(state, "p1", "Alice", "Alice", False, "h", 1.0)
    state = account.evolve(state, opened[0])
    with pytest.raises(AlreadyExists):
        account.open_account(state, "p2", "alice", "a", False, "h", 2.0)


def test_the_catalogue_records_each_table_commit_once_and_only_the_creator_closes() -> None:
    listing = catalogue.evolve(
        catalogue.initial("t1"), catalogue.TableListed("n", "", "owner", 1.0)
    )
    for event in catalogue.record(listing, 3, 1, 0, "", 2.0):
        listing = catalogue.evolve(listing, event)
    assert catalogue.record(listing, 3, 1, 0, "", 2.0) == []
    for event in catalogue.record(listing, 9, -1, 5, "limit", 3.0):
        listing = catalogue.evolve(listing, event)
    assert (listing.seated, listing.rake, listing.status) == (0, 5, catalogue.CLOSED)
    with pytest.raises(PermissionDenied):
        catalogue.may_close(listing, "someone")
    catalogue.may_close(listing, "owner")


@pytest.mark.parametrize(
    "password", ["12345678", " " * 8, "\x00" * 8, "short", "Password", "aaaaaaaaaa", "ab\x07cdefgh"]
)
def test_weak_passwords_are_refused(password: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        check_strength(password)
    assert caught.value.code == "WEAK_PASSWORD"


def test_passwords_hash_with_argon2id_and_their_parameters() -> None:
    check_strength("correct horse battery")
    encoded = hash_password("correct horse battery")
    assert encoded.startswith("$argon2id$") and "m=19456,t=2,p=1" in encoded
    assert verify_password(encoded, "correct horse battery")
    assert not verify_password(encoded, "wrong horse battery")
    assert not verify_password("not a hash", "x")


def test_what_a_table_commit_means_for_money() -> None:
    money = money_of(
        [
            PlayerSeated(0, "a", 100, False),
            PlayerLeft(1, "b", 40),
            RakeTaken(3),
            TableClosed("limit", ((0, "a", 90), (2, "c", 0))),
        ]
    )
    assert money.credits == [("b", 40), ("a", 90), ("c", 0)]
    assert (money.seated_delta, money.rake, money.closed_reason) == (0, 3, "limit")
    assert not money_of([]).relevant


def test_the_audit_sum() -> None:
    audit = ChipAudit(grants=100, wallets=50, reserved=10, on_tables=30, in_flight=5, rake=5)
    assert audit.holds and "holds" in audit.describe()
    broken = ChipAudit(grants=100, wallets=51, reserved=10, on_tables=30, in_flight=5, rake=5)
    assert not broken.holds and "+1" in broken.describe()


@pytest.mark.parametrize("password", ["hunter2-secret\x07", "hunter2-secret" * 30])
def test_a_refused_password_is_never_echoed(password: str) -> None:
    request = lobby_pb2.RegisterPlayerRequest(username="alice", password=password)
    with pytest.raises(RequestInvalid) as caught:
        validate(request)
    assert "hunter2" not in caught.value.message and "hidden" in caught.value.message


def test_a_bust_closes_the_buy_in_once_with_a_cash_out_of_0() -> None:
    w = _registered_with_seat("t1", since=5, amount=200)
    assert w.on_tables == 200
    events = wallet_decide.bust(w, "t1", 40, 1.0)
    assert events == [wallet.CashedOut("t1:40", "t1", 40, 0, 1.0)]
    after = _apply(w, events)
    assert after.on_tables == 0 and after.balance == w.balance and after.reserved == 0
    last = after.ledger[-1]
    assert (last.kind, last.amount, last.table_id) == (wallet.CASH_OUT, 0, "t1")
    assert wallet_decide.bust(after, "t1", 40, 2.0) == []  # the same commit again: nothing
    assert wallet_decide.bust(w, "t1", 3, 1.0) == []  # a commit before this buy-in: not this one
    assert wallet_decide.bust(w, "t2", 40, 1.0) == []  # no buy-in at that table


def test_a_house_ai_is_granted_chips_only_when_short_and_only_once() -> None:
    ai = _apply(
        wallet.initial("ai-hard-1"),
        wallet_decide.register(
            wallet.initial("ai-hard-1"), "ai-hard-1", "Hard AI 1", False, True, 100, 0.0, "hard"
        ),
    )
    assert ai.bot and ai.bot_level == "hard" and ai.balance == 100
    assert wallet_decide.house_grant(ai, 100, 100, 1.0) == []  # covered
    events = wallet_decide.house_grant(ai, 350, 100, 1.0)
    assert events == [wallet.Granted(250, 1.0)]
    topped = _apply(ai, events)
    assert topped.balance == 350 and topped.granted == 350
    assert wallet_decide.house_grant(topped, 350, 100, 2.0) == []  # a retry grants nothing
    person = _apply(
        wallet.initial("p"),
        wallet_decide.register(wallet.initial("p"), "p", "P", False, False, 0, 0.0),
    )
    assert wallet_decide.house_grant(person, 350, 100, 1.0) == []  # only house AIs


def _apply(w: wallet.Wallet, events: list[wallet.Event]) -> wallet.Wallet:
    for event in events:
        w = wallet.evolve(w, event)
    return w


def _registered_with_seat(table_id: str, since: int, amount: int) -> wallet.Wallet:
    w = wallet.initial("p1")
    w = _apply(w, wallet_decide.register(w, "p1", "P1", False, False, 1000, 0.0))
    w = _apply(w, wallet_decide.reserve(w, "s1", wallet.BUY_IN, table_id, amount, None, False, 0.0))
    return _apply(w, wallet_decide.confirm(w, "s1", 1, amount, since, 0.0))


def test_a_player_sat_out_with_no_chips_is_a_bust_and_other_sit_outs_are_not() -> None:
    from libs.table.events import PlayerSatOut

    money = money_of(
        [
            PlayerSatOut(1, "no chips", "p1"),
            PlayerSatOut(2, "asked", "p2"),
            PlayerSatOut(3, "no chips"),  # written before sit-outs named the player
        ]
    )
    assert money.busts == ["p1"] and money.relevant and not money.credits
