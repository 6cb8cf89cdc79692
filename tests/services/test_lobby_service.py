"""The lobby as a real process with a real table service, NATS and Redis: accounts, wallets, the
buy-in saga and the cash-out consumer, play through the table, a lobby SIGKILLed and restarted,
and the chip audit after each step (issue 13)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.cli.main import main
from libs.lobby import wallet
from tests.services.lobby_stack import GRANT, LobbyStack, eventually, lobby_stack

pytestmark = pytest.mark.integration


@pytest.fixture
def stack(tmp_path: Path, redis_url: str) -> Iterator[LobbyStack]:
    with lobby_stack(tmp_path, redis_url) as running:
        yield running


def _code(exc: grpc.RpcError) -> str:
    metadata: Any = exc.trailing_metadata()
    return str(dict(metadata or ()).get("x-error-code", ""))


def _cashed_out(stack: LobbyStack, player_id: str) -> bool:
    return stack.wallet(player_id).on_tables == 0


def _refused(call: object, status: grpc.StatusCode) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.code() == status, caught.value.details()
    return caught.value


def test_register_buy_in_play_leave_and_every_chip_is_accounted_for(stack: LobbyStack) -> None:
    alice, bob = stack.register(bot=True), stack.register(bot=True)
    assert stack.wallet(alice.player_id).balance == GRANT
    table = stack.create_table(alice.player_id)

    joined = stack.join(alice.player_id, table, 300, key="alice-buy-in")
    assert joined.stack == 300 and joined.sequence > 0
    again = stack.join(alice.player_id, table, 300, key="alice-buy-in")  # a retry: applied once
    assert (again.seat, again.stack, again.sequence) == (joined.seat, joined.stack, joined.sequence)
    wallet = stack.wallet(alice.player_id)
    assert (wallet.balance, wallet.on_tables, wallet.reserved) == (GRANT - 300, 300, 0)
    stack.join(bob.player_id, table, 200)

    # The table plays the two bots; the audit holds at any moment, mid-hand too.
    for _ in range(5):
        audit = stack.audit()
        assert audit.holds, audit
    # (a bot that busts leaves its seat, and then no hand can start)
    eventually(
        lambda: stack.hands_started(table) >= 5 or _seated(stack, table) < 2, what="five hands"
    )
    assert stack.audit().holds

    # Leaving mid-hand folds at the player's turn; the chips come back when the hand ends.
    for player in (alice, bob):
        try:
            stack.leave(player.player_id, table)
        except grpc.RpcError as exc:  # busted: it left already
            assert exc.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND)
    for player in (alice, bob):
        eventually(functools.partial(_cashed_out, stack, player.player_id), what="cash-out")
    total = stack.wallet(alice.player_id).balance + stack.wallet(bob.player_id).balance
    assert total == 2 * GRANT
    audit = stack.audit()
    assert audit.holds and audit.in_flight == 0 and audit.on_tables == 0, audit
    assert audit.grants == 2 * GRANT and audit.wallets == 2 * GRANT

    entries = stack.ledger(alice.player_id)
    assert [e.kind for e in entries] == [
        lobby_pb2.LEDGER_ENTRY_KIND_GRANT,
        lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN,
        lobby_pb2.LEDGER_ENTRY_KIND_CASH_OUT,
    ]
    assert [e.amount for e in entries[:2]] == [GRANT, -300]
    assert entries[-1].balance_after == stack.wallet(alice.player_id).balance


def test_refused_buy_ins_are_compensated_and_nothing_is_lost(stack: LobbyStack) -> None:
    alice, bob = stack.register(), stack.register()
    table = stack.create_table(alice.player_id, max_seats=2)
    joined = stack.join(alice.player_id, table, 100)
    error = _refused(
        lambda: stack.join(alice.player_id, table, GRANT * 2), grpc.StatusCode.FAILED_PRECONDITION
    )
    assert _code(error) == "NOT_ENOUGH_CHIPS"
    error = _refused(
        lambda: stack.join(bob.player_id, table, 10**6), grpc.StatusCode.FAILED_PRECONDITION
    )
    assert _code(error) == "NOT_ENOUGH_CHIPS"
    # Out of the table's range: refused by the lobby before anything is written.
    error = _refused(lambda: stack.join(bob.player_id, table, 1), grpc.StatusCode.INVALID_ARGUMENT)
    assert _code(error) == "BUY_IN_OUT_OF_RANGE"
    assert [e.kind for e in stack.ledger(bob.player_id)] == [lobby_pb2.LEDGER_ENTRY_KIND_GRANT]
    # Refused by the table (the seat asked for is taken): reserved, then refunded.
    taken = lobby_pb2.JoinTableRequest(
        player_id=bob.player_id, table_id=table, seat=joined.seat, buy_in=100
    )
    error = _refused(
        lambda: stack.lobby_call("JoinTable", taken), grpc.StatusCode.FAILED_PRECONDITION
    )
    assert _code(error) == "SEAT_TAKEN"
    assert stack.wallet(bob.player_id).balance == GRANT
    kinds = [e.kind for e in stack.ledger(bob.player_id)]
    assert kinds[-2:] == [lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN, lobby_pb2.LEDGER_ENTRY_KIND_REFUND]
    _refused(
        lambda: stack.join(alice.player_id, table, 100), grpc.StatusCode.FAILED_PRECONDITION
    )  # already seated
    _refused(lambda: stack.join(bob.player_id, "nosuchtable", 100), grpc.StatusCode.NOT_FOUND)
    assert stack.audit().holds


def test_accounts_tokens_and_login_limits(stack: LobbyStack) -> None:
    name = "carol_lobby"
    for weak in ("12345678", " " * 8, "\x00" * 8, "short", "password"):
        _refused(
            lambda w=weak: stack.lobby_call(
                "RegisterPlayer", lobby_pb2.RegisterPlayerRequest(username=name, password=w)
            ),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
    player = stack.register(name)
    _refused(lambda: stack.register(name.upper()), grpc.StatusCode.ALREADY_EXISTS)

    def login(user: str, password: str) -> lobby_pb2.LoginResponse:
        return stack.lobby_call(  # type: ignore[no-any-return]
            "Login", lobby_pb2.LoginRequest(username=user, password=password)
        )

    session = login(name, f"pw-{name}-long")
    assert session.player.player_id == player.player_id
    who = stack.lobby_call("Authenticate", lobby_pb2.AuthenticateRequest(token=session.token))
    assert who.player.player_id == player.player_id
    unknown = _refused(
        lambda: login("nobody_here", "whatever-pass"), grpc.StatusCode.UNAUTHENTICATED
    )
    wrong = _refused(lambda: login(name, "wrong-password"), grpc.StatusCode.UNAUTHENTICATED)
    assert unknown.details() == wrong.details()

    stack.lobby_call("Logout", lobby_pb2.LogoutRequest(token=session.token))
    _refused(
        lambda: stack.lobby_call(
            "Authenticate", lobby_pb2.AuthenticateRequest(token=session.token)
        ),
        grpc.StatusCode.UNAUTHENTICATED,
    )

    guest = stack.lobby_call("GuestLogin", lobby_pb2.GuestLoginRequest(display_name="Guest Gil"))
    assert guest.player.display_name == "Guest Gil" and guest.token
    assert stack.wallet(guest.player.player_id).balance == GRANT

    # Wrong passwords: after the per-username limit, even the right one waits.
    for _ in range(4):
        _refused(lambda: login(name, "wrong-password"), grpc.StatusCode.UNAUTHENTICATED)
    limited = _refused(lambda: login(name, f"pw-{name}-long"), grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert "retry in" in (limited.details() or "")


def test_a_lobby_killed_comes_back_with_everything(stack: LobbyStack) -> None:
    alice, bob = stack.register(bot=True), stack.register(bot=True)
    table = stack.create_table(alice.player_id)
    stack.join(alice.player_id, table, 400)
    stack.join(bob.player_id, table, 400)
    # two hands played, or one that ended with a bot busted (heads-up, the table then waits)
    eventually(
        lambda: (
            (hands := stack.hands_started(table)) >= 2
            or (hands >= 1 and stack.seated_with_chips(table) < 2)
        ),
        timeout=60,
        what="two hands or a bust",
    )
    before = stack.audit()
    assert stack.lobby is not None
    stack.lobby.kill()
    stack.start_lobby()

    def alice_settled() -> lobby_pb2.Wallet | None:
        # the bots play on meanwhile: a bot that busts has its buy-in closed (a CASH_OUT of 0,
        # the balance unchanged) and leaves its seat; the two reads may straddle that
        wallet = stack.wallet(alice.player_id)
        ledger = stack.ledger(alice.player_id)
        busted = [e for e in ledger if e.reference.startswith(f"{table}:")]
        return wallet if wallet.on_tables == (0 if busted else 400) else None

    wallet = eventually(alice_settled, timeout=60, what="alice's wallet after the restart")
    assert wallet.balance == GRANT - 400
    listed = stack.lobby_call("ListTables", lobby_pb2.ListTablesRequest())
    assert [t.table_id for t in listed.tables] == [table]
    assert listed.tables[0].seated_players in (1, 2)
    after = stack.audit()
    assert after.holds and after.grants == before.grants
    session = stack.lobby_call(
        "Login",
        lobby_pb2.LoginRequest(username=alice.username, password=f"pw-{alice.username}-long"),
    )
    assert session.player.player_id == alice.player_id


def test_closing_a_table_cashes_everyone_out(stack: LobbyStack) -> None:
    alice, bob = stack.register(), stack.register()
    table = stack.create_table(alice.player_id, min_players_to_start=3)  # no hand starts
    stack.join(alice.player_id, table, 500)
    stack.join(bob.player_id, table, 500)
    close = lobby_pb2.CloseTableRequest(table_id=table, requested_by_player_id=bob.player_id)
    _refused(lambda: stack.lobby_call("CloseTable", close), grpc.StatusCode.PERMISSION_DENIED)
    close.requested_by_player_id = alice.player_id
    stack.lobby_call("CloseTable", close)
    for player in (alice, bob):
        eventually(functools.partial(_cashed_out, stack, player.player_id), what="cash-out")
    assert stack.wallet(alice.player_id).balance == GRANT
    assert stack.wallet(bob.player_id).balance == GRANT
    got = stack.lobby_call("GetTable", lobby_pb2.GetTableRequest(table_id=table))
    assert got.table.status == common_pb2.TABLE_STATUS_CLOSED
    assert stack.audit().holds


def test_a_table_closed_by_its_hand_limit_cashes_everyone_out(stack: LobbyStack) -> None:
    bots = [stack.register(bot=True) for _ in range(3)]
    # fixed limit, 4 hands, 1,000 each: at most 48 chips a hand (4 bets a street), so no bot
    # goes broke and leaves fewer than the 3 a hand needs (the table would wait for good)
    table = stack.create_table(
        bots[0].player_id,
        hand_limit=4,
        min_players_to_start=3,
        betting_structure=common_pb2.BETTING_STRUCTURE_FIXED_LIMIT,
    )
    for bot in bots:
        stack.join(bot.player_id, table, 1000)
    for bot in bots:
        eventually(functools.partial(_cashed_out, stack, bot.player_id), what="cash-out")
    assert sum(stack.wallet(b.player_id).balance for b in bots) == 3 * GRANT
    audit = stack.audit()
    assert audit.holds and audit.on_tables == 0 and audit.in_flight == 0, audit


def test_holdem_audit_chips_prints_the_invariant(
    stack: LobbyStack, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = stack.register()
    table = stack.create_table(alice.player_id, min_players_to_start=3)
    stack.join(alice.player_id, table, 100)
    address = f"127.0.0.1:{stack.lobby_port}"
    assert main(["audit", "chips", "--lobby", address, "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["holds"] is True and body["grants"] == str(GRANT)  # int64 as a JSON string
    assert body["on_tables"] == "100" and body["wallets"] == str(GRANT - 100)
    assert main(["audit", "chips", "--lobby", address]) == 0
    assert "invariant  holds" in capsys.readouterr().out


def test_a_top_up_adds_chips_between_hands_once(stack: LobbyStack) -> None:
    alice = stack.register()
    table = stack.create_table(alice.player_id, min_players_to_start=3)  # no hand starts
    stack.join(alice.player_id, table, 100)
    request = lobby_pb2.TopUpRequest(
        player_id=alice.player_id, table_id=table, amount=50, idempotency_key="more"
    )
    topped = stack.lobby_call("TopUp", request)
    assert topped.stack == 150
    assert stack.lobby_call("TopUp", request).sequence == topped.sequence  # a retry
    wallet = stack.wallet(alice.player_id)
    assert (wallet.balance, wallet.on_tables) == (GRANT - 150, 150)
    request.amount, request.idempotency_key = 1000, "too-much"  # above the maximum buy-in
    error = _refused(lambda: stack.lobby_call("TopUp", request), grpc.StatusCode.INVALID_ARGUMENT)
    assert _code(error) == "BUY_IN_OUT_OF_RANGE"
    assert stack.wallet(alice.player_id).balance == GRANT - 150
    kinds = [e.kind for e in stack.ledger(alice.player_id)]
    assert kinds[-3:] == [
        lobby_pb2.LEDGER_ENTRY_KIND_TOP_UP,
        lobby_pb2.LEDGER_ENTRY_KIND_TOP_UP,
        lobby_pb2.LEDGER_ENTRY_KIND_REFUND,
    ]
    assert stack.audit().holds
    left = stack.leave(alice.player_id, table)
    assert left.cash_out == 150
    assert stack.wallet(alice.player_id).balance == GRANT


def _seated(stack: LobbyStack, table: str) -> int:
    found = stack.lobby_call("GetTable", lobby_pb2.GetTableRequest(table_id=table))
    return int(found.table.seated_players)


def _whole_ledger(stack: LobbyStack, player_id: str) -> list[lobby_pb2.LedgerEntry]:
    entries: list[lobby_pb2.LedgerEntry] = []
    token = ""
    while True:
        page = stack.lobby_call(
            "ListLedger",
            lobby_pb2.ListLedgerRequest(player_id=player_id, page_size=100, page_token=token),
        )
        entries.extend(page.entries)
        token = page.next_page_token
        if not token:
            return entries


def test_list_ledger_pages_the_history_the_wallet_no_longer_keeps(stack: LobbyStack) -> None:
    """The wallet keeps its last ``LEDGER_WINDOW`` entries; older pages come from the player's
    stream, before and after a restart (which loads the snapshot); a retried buy-in within the
    outcome window answers its first outcome and writes nothing."""
    alice, bob = stack.register(), stack.register()
    table = stack.create_table(bob.player_id)
    taken = stack.join(alice.player_id, table, 40).seat

    def join_taken_seat(key: str) -> grpc.RpcError:
        """A buy-in only the table can refuse (the seat is taken): reserved, then refunded."""
        request = lobby_pb2.JoinTableRequest(
            player_id=bob.player_id, table_id=table, seat=taken, buy_in=40, idempotency_key=key
        )
        error = _refused(
            lambda: stack.lobby_call("JoinTable", request), grpc.StatusCode.FAILED_PRECONDITION
        )
        assert _code(error) == "SEAT_TAKEN"
        return error

    refusals = wallet.LEDGER_WINDOW // 2 + 20  # BUY_IN + REFUND each: past the window
    for i in range(refusals):
        join_taken_seat(f"k{i}")
    expected = [(1, lobby_pb2.LEDGER_ENTRY_KIND_GRANT, GRANT, GRANT)]
    for i in range(refusals):
        expected.append((2 * i + 2, lobby_pb2.LEDGER_ENTRY_KIND_BUY_IN, -40, GRANT - 40))
        expected.append((2 * i + 3, lobby_pb2.LEDGER_ENTRY_KIND_REFUND, 40, GRANT))

    def seen() -> list[tuple[int, int, int, int]]:
        return [
            (e.index, e.kind, e.amount, e.balance_after)
            for e in _whole_ledger(stack, bob.player_id)
        ]

    assert seen() == expected
    assert stack.lobby is not None
    stack.lobby.kill()
    stack.start_lobby()
    assert seen() == expected
    join_taken_seat("k0")
    assert seen() == expected  # the retry wrote nothing
    assert stack.audit().holds


def test_tables_are_listed_a_page_at_a_time_oldest_or_newest_first(stack: LobbyStack) -> None:
    """A lobby holding more tables than a page shows a table just opened on the first page when
    asked newest first (the web lobby's view), and pages through the rest either way."""
    owner = stack.register()
    made = [stack.create_table(owner.player_id, min_players_to_start=3) for _ in range(3)]

    def pages(newest_first: bool) -> list[list[str]]:
        found: list[list[str]] = []
        token = ""
        while True:
            request = lobby_pb2.ListTablesRequest(
                page_size=2, page_token=token, newest_first=newest_first
            )
            listed = stack.lobby_call("ListTables", request)
            found.append([t.table_id for t in listed.tables])
            token = listed.next_page_token
            if not token:
                return found

    assert pages(newest_first=False) == [made[:2], made[2:]]
    assert pages(newest_first=True) == [made[:0:-1], made[:1]]

    # a table opened between two reads of the newest first shifts no row onto the next page
    first = stack.lobby_call(
        "ListTables", lobby_pb2.ListTablesRequest(page_size=2, newest_first=True)
    )
    newer = stack.create_table(owner.player_id, min_players_to_start=3)
    request = lobby_pb2.ListTablesRequest(
        page_size=2, page_token=first.next_page_token, newest_first=True
    )
    second = stack.lobby_call("ListTables", request)
    assert [t.table_id for t in first.tables] == made[:0:-1]
    assert [t.table_id for t in second.tables] == made[:1]
    assert pages(newest_first=True)[0] == [newer, made[2]]
    for bad in ("7", "nan/x", "1.5/", "/t", "x" * 300):
        with pytest.raises(grpc.RpcError) as refused:
            stack.lobby_call("ListTables", lobby_pb2.ListTablesRequest(page_token=bad))
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT, bad
