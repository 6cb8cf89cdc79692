"""A wallet's state and per-event cost do not grow with its history (a house AI plays for ever),
and exactly-once holds all the same: credit marks per table, saga outcomes by age and count, the
latest ledger entries (older ones folded from the events), and snapshots of older lobbies."""

from __future__ import annotations

import copy
import json

from libs.lobby import wallet, wallet_codec, wallet_decide
from libs.lobby.wallet import Credit, Wallet

BUY_IN = 200


def run(state: Wallet, events: list[wallet.Event], log: list[wallet.Event] | None = None) -> Wallet:
    for event in events:
        state = wallet.evolve(state, event)
        if log is not None:
            log.append(event)
    return state


def bot() -> Wallet:
    w = wallet.initial("ai-easy-1")
    return run(
        w, wallet_decide.register(w, "ai-easy-1", "Easy AI 1", False, True, 1000, 0.0, "easy")
    )


def cycle(w: Wallet, i: int, log: list[wallet.Event] | None = None) -> Wallet:
    """One table's life for the house AI: refilled, bought in, then busted (a cash-out of 0,
    then its PlayerLeft of 0) or cashed out; a new table each time, one minute apart."""
    now, table = 60.0 * i, f"table-{i}"
    w = run(w, wallet_decide.house_grant(w, BUY_IN, 1000, now), log)
    saga = f"saga-{i}"
    w = run(w, wallet_decide.reserve(w, saga, wallet.BUY_IN, table, BUY_IN, None, False, now), log)
    w = run(w, wallet_decide.confirm(w, saga, 1, BUY_IN, 3, now + 1), log)
    if i % 2:
        w = run(w, wallet_decide.bust(w, table, 10, now + 30), log)
        w = run(w, wallet_decide.credit(w, table, 11, 0, now + 31), log)
    else:
        w = run(w, wallet_decide.credit(w, table, 12, 150, now + 30), log)
    return w


def sizes(w: Wallet) -> tuple[int, int, int, int, int]:
    return (
        len(w.ledger),
        len(w.outcomes),
        len(w.credits),
        len(w.seatings),
        len(w.reservations),
    )


def test_a_house_ai_wallet_stays_bounded_through_20000_tables() -> None:
    w = bot()
    snapshot_bytes = {}
    for i in range(1, 20_001):
        w = cycle(w, i)
        if i in (2_000, 20_000):
            snapshot_bytes[i] = len(wallet_codec.encode_wallet(w))
            assert sizes(w) == (
                wallet.LEDGER_WINDOW,
                int(wallet.OUTCOME_WINDOW_SECONDS // 60) + 1,  # the last hour's, ends included
                wallet.MAX_LEFT_TABLES,
                0,
                0,
            )
    # the chips: every grant is in the balance (nothing is left on a table or reserved)
    lost = sum(BUY_IN for i in range(1, 20_001) if i % 2) + sum(
        BUY_IN - 150 for i in range(1, 20_001) if i % 2 == 0
    )
    assert w.balance == w.granted - lost
    assert w.entries > 50_000 and w.ledger[-1].index == w.entries
    # the snapshot does not grow with the history (ids are a digit longer, nothing more)
    assert snapshot_bytes[20_000] < snapshot_bytes[2_000] * 1.05
    assert wallet_codec.decode_wallet(wallet_codec.encode_wallet(w)) == w


def test_evolve_copies_only_what_the_event_changes_and_never_its_input() -> None:
    w = bot()
    for i in range(1, 400):
        w = cycle(w, i)
    w = run(w, wallet_decide.house_grant(w, BUY_IN, 1000, 1e5))
    w = run(w, wallet_decide.reserve(w, "open", wallet.BUY_IN, "t-open", BUY_IN, None, False, 1e5))
    before = copy.deepcopy(w)
    granted = wallet.evolve(w, wallet.Granted(10, 1e5))
    for unchanged in ("reservations", "outcomes", "seatings", "credits"):  # shared, not copied
        assert getattr(granted, unchanged) is getattr(w, unchanged)
    credited = wallet.evolve(w, wallet.CashedOut("t9:1", "t9", 1, 5, 1e5))
    assert credited.outcomes is w.outcomes and credited.reservations is w.reservations
    confirmed = wallet.evolve(w, wallet.Confirmed("open", 2, BUY_IN, 4, 1e5))
    assert confirmed.credits is w.credits
    released = wallet.evolve(w, wallet.Released("open", "X", "FAILED_PRECONDITION", "", 1e5))
    assert released.credits is w.credits and released.seatings is w.seatings
    assert w == before  # the state evolved from is not changed


def test_a_credit_redelivered_after_thousands_of_others_is_ignored() -> None:
    w = bot()
    w = run(w, wallet_decide.reserve(w, "home", wallet.BUY_IN, "home", BUY_IN, None, False, 1.0))
    w = run(w, wallet_decide.confirm(w, "home", 0, BUY_IN, 4, 2.0))
    w = run(
        w, wallet_decide.credit(w, "home", 6, 0, 3.0)
    )  # e.g. a PlayerLeft of 0 of an earlier seat
    assert w.on_tables == 0  # (commit 6 is after the seat at 4: the seat is closed)
    w = run(w, wallet_decide.reserve(w, "back", wallet.BUY_IN, "home", BUY_IN, None, False, 4.0))
    w = run(w, wallet_decide.confirm(w, "back", 0, BUY_IN, 8, 5.0))  # seated again: an active table
    for i in range(1, 5_001):  # thousands of credits at other tables meanwhile
        w = cycle(w, i)
    assert wallet_decide.credit(w, "home", 6, 0, 1e6) == []  # the same commit again: nothing
    assert wallet_decide.credit(w, "home", 5, 10, 1e6) == []  # nor an earlier one
    assert w.on_tables == BUY_IN  # still seated there
    w = run(w, wallet_decide.credit(w, "home", 20, 260, 1e6))  # its real cash-out: once
    assert (w.on_tables, wallet_decide.credit(w, "home", 20, 260, 1e6)) == (0, [])
    # a table left, then up to MAX_LEFT_TABLES others left after it: its commits still refused
    for i in range(5_001, 5_001 + wallet.MAX_LEFT_TABLES - 1):
        w = cycle(w, i)
    assert w.was_credited("home", 20) and wallet_decide.credit(w, "home", 20, 260, 2e6) == []
    assert wallet_decide.bust(w, "home", 20, 2e6) == []
    # a long-lived table: the first of thousands of its own commits comes again
    w = run(w, wallet_decide.reserve(w, "long", wallet.BUY_IN, "long", BUY_IN, None, False, 3e6))
    w = run(w, wallet_decide.confirm(w, "long", 0, BUY_IN, 2, 3e6))
    for sequence in range(10, 3_010):
        w = run(w, wallet_decide.credit(w, "long", sequence, 1, 3e6))
    assert (
        wallet_decide.credit(w, "long", 10, 1, 3e6) == []
        and wallet_decide.credit(w, "long", 3_009, 1, 3e6) == []
    )
    assert wallet_decide.credit(w, "long", 3_010, 1, 3e6) != []


def test_marks_of_tables_with_a_seat_or_an_open_buy_in_are_never_forgotten() -> None:
    w = bot()
    w = run(w, wallet_decide.reserve(w, "a", wallet.BUY_IN, "seated", BUY_IN, None, False, 1.0))
    w = run(w, wallet_decide.confirm(w, "a", 0, BUY_IN, 4, 2.0))
    w = run(w, wallet_decide.bust(w, "seated", 9, 3.0))  # busted, still at the table ...
    w = run(w, wallet_decide.reserve(w, "b", wallet.TOP_UP, "seated", BUY_IN, None, False, 4.0))
    # ... with a top-up open (not confirmed yet) while the AI plays elsewhere for a long time
    for i in range(1, 2 * wallet.MAX_LEFT_TABLES):
        w = cycle(w, i)
    assert w.credits["seated"] == Credit(9, 0, 3.0)
    assert wallet_decide.bust(w, "seated", 9, 9e9) == []
    # the table closed (commit 30) before the top-up confirmed (commit 12): nothing on it
    w = run(w, wallet_decide.credit(w, "seated", 30, 0, 9e9))
    w = run(w, wallet_decide.confirm(w, "b", 0, BUY_IN, 12, 9e9))
    assert w.on_tables == 0


def refused(w: Wallet, saga: str, now: float) -> Wallet:
    """A buy-in the table refused (reserved, then released)."""
    w = run(w, wallet_decide.reserve(w, saga, wallet.BUY_IN, "t", BUY_IN, None, False, now))
    return run(w, wallet_decide.release(w, saga, "SEAT_TAKEN", "FAILED_PRECONDITION", "", now))


def test_a_saga_step_retried_within_the_window_decides_nothing() -> None:
    w = bot()
    w = run(w, wallet_decide.reserve(w, "mine", wallet.BUY_IN, "t", BUY_IN, None, False, 0.0))
    w = run(w, wallet_decide.confirm(w, "mine", 3, BUY_IN, 5, 1.0))
    for i in range(1, wallet.MAX_OUTCOMES):  # other sagas end meanwhile, within the window
        w = refused(w, f"other-{i}", float(i))
    assert "mine" in w.outcomes and w.outcomes["mine"].seat == 3
    late = wallet.OUTCOME_WINDOW_SECONDS - 1
    assert wallet_decide.reserve(w, "mine", wallet.BUY_IN, "t", BUY_IN, None, False, late) == []
    assert wallet_decide.confirm(w, "mine", 3, BUY_IN, 5, late) == []
    assert wallet_decide.release(w, "mine", "X", "ABORTED", "", late) == []
    # past the count: the oldest outcome goes first, however recent
    w = refused(w, "one-more", late)
    assert len(w.outcomes) == wallet.MAX_OUTCOMES and "mine" not in w.outcomes
    assert next(iter(w.outcomes)) == "other-1"


def test_an_open_saga_outlives_any_number_of_finished_ones() -> None:
    w = bot()
    w = run(w, wallet_decide.reserve(w, "slow", wallet.BUY_IN, "t-slow", BUY_IN, None, False, 0.0))
    for i in range(1, 3 * wallet.MAX_OUTCOMES):  # hours of other sagas
        w = cycle(w, i)
    assert wallet_decide.reserve(w, "slow", wallet.BUY_IN, "t-slow", BUY_IN, None, False, 1e6) == []
    w = run(w, wallet_decide.confirm(w, "slow", 1, BUY_IN, 4, 1e6))
    assert w.outcomes["slow"].seat == 1 and w.on_tables == BUY_IN


def test_finished_sagas_are_kept_for_the_window_then_forgotten() -> None:
    w = bot()
    w = run(w, wallet_decide.reserve(w, "old", wallet.BUY_IN, "t", BUY_IN, None, False, 0.0))
    w = run(w, wallet_decide.release(w, "old", "SEAT_TAKEN", "FAILED_PRECONDITION", "", 1.0))
    w = run(w, wallet_decide.reserve(w, "new", wallet.BUY_IN, "t", BUY_IN, None, False, 2.0))
    w = run(w, wallet_decide.release(w, "new", "SEAT_TAKEN", "FAILED_PRECONDITION", "", 3.0))
    assert list(w.outcomes) == ["old", "new"]
    after = 1.0 + wallet.OUTCOME_WINDOW_SECONDS + 1
    w = run(w, wallet_decide.reserve(w, "later", wallet.BUY_IN, "t", BUY_IN, None, False, after))
    w = run(w, wallet_decide.release(w, "later", "SEAT_TAKEN", "FAILED_PRECONDITION", "", after))
    assert list(w.outcomes) == ["new", "later"]


def test_older_ledger_pages_fold_from_the_events() -> None:
    w, log = bot(), []
    log.extend(
        wallet_decide.register(
            wallet.initial("ai-easy-1"), "ai-easy-1", "E", False, True, 1000, 0.0
        )
    )
    for i in range(1, 400):
        w = cycle(w, i, log)
    assert w.ledger[0].index > 1  # the state has only the latest entries
    everything = wallet.ledger_of(w.player_id, log, after=0, limit=10**9)
    assert [e.index for e in everything] == list(range(1, w.entries + 1))
    assert everything[-wallet.LEDGER_WINDOW :] == w.ledger
    balance = 0
    for entry in everything:  # every balance change is an entry, with the balance after it
        balance += entry.amount
        assert entry.balance_after == balance
    page = wallet.ledger_of(w.player_id, log, after=37, limit=100)
    assert page == everything[37:137]


OLD_SNAPSHOT = (
    # written by the lobby before the bounds (the list ``credited``, outcomes without ``at``)
    '{"player_id":"p1","username":"alice","display_name":"Alice","guest":false,"bot":false,'
    '"bot_level":"","created_at":1.0,"granted":1000,"balance":800,"reservations":{"s5":'
    '{"kind":"buy_in","table_id":"t4","amount":50,"seat":null,"wait_for_big_blind":false,'
    '"at":12.0}},"outcomes":{"s1":{"kind":"buy_in","table_id":"t1","amount":300,"seat":0,'
    '"stack":300,"sequence":5,"code":"","status":"","message":""},"s2":{"kind":"buy_in",'
    '"table_id":"t2","amount":200,"seat":1,"stack":200,"sequence":3,"code":"","status":"",'
    '"message":""},"s3":{"kind":"top_up","table_id":"t2","amount":100,"seat":1,"stack":100,'
    '"sequence":8,"code":"","status":"","message":""},"s4":{"kind":"buy_in","table_id":"t3",'
    '"amount":100,"seat":0,"stack":0,"sequence":0,"code":"SEAT_TAKEN","status":'
    '"FAILED_PRECONDITION","message":"taken"}},"seatings":{"t2":{"since":8,"amount":100}},'
    '"credited":["t1:9","t2:7"],"ledger":[{"index":1,"kind":"GRANT","amount":1000,'
    '"balance_after":1000,"table_id":"","reference":"grant","at":1.0},{"index":2,"kind":'
    '"BUY_IN","amount":-300,"balance_after":700,"table_id":"t1","reference":"s1","at":2.0},'
    '{"index":3,"kind":"CASH_OUT","amount":450,"balance_after":1150,"table_id":"t1",'
    '"reference":"t1:9","at":4.0},{"index":4,"kind":"BUY_IN","amount":-200,"balance_after":'
    '950,"table_id":"t2","reference":"s2","at":5.0},{"index":5,"kind":"CASH_OUT","amount":0,'
    '"balance_after":950,"table_id":"t2","reference":"t2:7","at":7.0},{"index":6,"kind":'
    '"TOP_UP","amount":-100,"balance_after":850,"table_id":"t2","reference":"s3","at":8.0},'
    '{"index":7,"kind":"BUY_IN","amount":-100,"balance_after":750,"table_id":"t3","reference":'
    '"s4","at":10.0},{"index":8,"kind":"REFUND","amount":100,"balance_after":850,"table_id":'
    '"t3","reference":"s4","at":11.0},{"index":9,"kind":"BUY_IN","amount":-50,"balance_after":'
    '800,"table_id":"t4","reference":"s5","at":12.0}],"entries":9}'
)


def test_a_snapshot_of_the_lobby_before_the_bounds_still_loads() -> None:
    w = wallet_codec.decode_wallet(OLD_SNAPSHOT.encode())
    assert (w.balance, w.reserved, w.on_tables, w.entries) == (800, 50, 100, 9)
    assert w.credits == {"t1": Credit(9, 450, 4.0), "t2": Credit(7, 0, 7.0)}
    assert (
        wallet_decide.credit(w, "t1", 9, 450, 20.0) == []
        and wallet_decide.bust(w, "t2", 7, 20.0) == []
    )
    assert wallet_decide.credit(w, "t1", 10, 1, 20.0) != []
    assert {s: o.at for s, o in w.outcomes.items()} == dict.fromkeys(["s1", "s2", "s3", "s4"], 12.0)
    assert wallet_decide.reserve(w, "s4", wallet.BUY_IN, "t3", 100, None, False, 20.0) == []
    assert wallet_decide.confirm(w, "s5", 2, 50, 13, 20.0) != []
    assert wallet_codec.decode_wallet(wallet_codec.encode_wallet(w)) == w


def test_a_long_old_snapshot_is_cut_to_the_bounds_keeping_what_counts() -> None:
    fields = json.loads(OLD_SNAPSHOT)
    refs = [f"x{i}:{i}" for i in range(3 * wallet.MAX_LEFT_TABLES)]
    fields["credited"] = ["t2:7", *refs, "t1:9"]  # t2: still seated, credited first
    fields["outcomes"] |= {f"o{i}": fields["outcomes"]["s1"] | {} for i in range(1000)}
    fields["ledger"] = fields["ledger"] * 100
    w = wallet_codec.decode_wallet(json.dumps(fields).encode())
    assert len(w.ledger) == wallet.LEDGER_WINDOW and len(w.outcomes) == wallet.MAX_OUTCOMES
    assert len(w.credits) == wallet.MAX_LEFT_TABLES + 1  # the left tables, and t2
    assert w.was_credited("t2", 7) and w.was_credited("t1", 9)  # the seated one, the newest
    assert w.was_credited(refs[-1].split(":")[0], 3 * wallet.MAX_LEFT_TABLES - 1)
    assert not w.was_credited("x0", 0)  # the oldest left table: forgotten
