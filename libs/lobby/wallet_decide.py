"""What a player's wallet allows (libs/lobby/wallet.py holds its events and state): registering
the player with the starting grant, a house AI's refill, reserving chips for a buy-in or top-up
saga and confirming or releasing them, crediting a table's cash-out commit once, closing a
busted seat. Each returns the events to append, or nothing for a step already taken (a retry),
or refuses."""

from __future__ import annotations

from libs.errors import InvalidArgument, NotFound, PreconditionFailed, echo
from libs.lobby.wallet import (
    PLAYER_NOT_FOUND,
    CashedOut,
    Confirmed,
    Event,
    Granted,
    Registered,
    Released,
    Reserved,
    TournamentCredited,
    TournamentPaid,
    Wallet,
)

NOT_ENOUGH_CHIPS = "NOT_ENOUGH_CHIPS"
ALREADY_REGISTERED = "ALREADY_REGISTERED"


def _require(w: Wallet) -> None:
    if not w.registered:
        raise NotFound(PLAYER_NOT_FOUND, f"no player {echo(w.player_id)}")


def register(
    w: Wallet,
    username: str,
    display_name: str,
    guest: bool,
    bot: bool,
    grant: int,
    now: float,
    level: str = "",
) -> list[Event]:
    if w.registered:
        if w.username == username:
            return []  # a retry of the same registration
        raise PreconditionFailed(ALREADY_REGISTERED, "this player id is taken")
    events: list[Event] = [Registered(username, display_name, guest, bot, now, level)]
    if grant > 0:
        events.append(Granted(grant, now))
    return events


def house_grant(w: Wallet, needed: int, grant: int, now: float) -> list[Event]:
    """A house AI about to buy in ``needed`` chips: a grant when its balance is short (at least
    ``grant``); nothing for anyone else or when the balance covers it (so a retry grants once)."""
    _require(w)
    if not w.bot_level or w.balance >= needed:
        return []
    return [Granted(max(grant, needed - w.balance), now)]


def reserve(
    w: Wallet,
    saga: str,
    kind: str,
    table_id: str,
    amount: int,
    seat: int | None,
    wait_for_big_blind: bool,
    now: float,
) -> list[Event]:
    """Hold ``amount`` for saga ``saga``; nothing if the saga already reserved or finished."""
    _require(w)
    if saga in w.reservations or saga in w.outcomes:
        return []
    if amount > w.balance:
        raise PreconditionFailed(
            NOT_ENOUGH_CHIPS, f"the wallet holds {w.balance} chips, {amount} were asked"
        )
    return [Reserved(saga, kind, table_id, amount, seat, wait_for_big_blind, now)]


def confirm(w: Wallet, saga: str, seat: int, stack: int, sequence: int, now: float) -> list[Event]:
    if saga not in w.reservations:
        return []
    return [Confirmed(saga, seat, stack, sequence, now)]


def release(w: Wallet, saga: str, code: str, status: str, message: str, now: float) -> list[Event]:
    if saga not in w.reservations:
        return []
    return [Released(saga, code, status, message[:200], now)]


def credit(w: Wallet, table_id: str, sequence: int, amount: int, now: float) -> list[Event]:
    """Chips back from table commit ``sequence``; nothing if that commit was credited."""
    if not w.registered or w.was_credited(table_id, sequence):
        return []
    return [CashedOut(f"{table_id}:{sequence}", table_id, sequence, amount, now)]


def bust(w: Wallet, table_id: str, sequence: int, now: float) -> list[Event]:
    """The player lost every chip at ``table_id`` (commit ``sequence`` sat them out): their
    buy-in there is closed with a cash-out of 0 (ledger CASH_OUT 0, nothing on that table any
    more). Nothing when no buy-in there is open (already closed, or a retry)."""
    seating = w.seatings.get(table_id)
    if seating is None or seating.since >= sequence or w.was_credited(table_id, sequence):
        return []
    return [CashedOut(f"{table_id}:{sequence}", table_id, sequence, 0, now)]


INVALID_AMOUNT = "INVALID_AMOUNT"


def pay_tournament(w: Wallet, key: str, tournament_id: str, amount: int, now: float) -> list[Event]:
    """A tournament's buy-in (or rebuy, add-on) from the balance, once by ``key``."""
    _require(w)
    if key in w.tournament_keys:
        return []  # a retry of the saga's step
    if amount <= 0:
        raise InvalidArgument(
            INVALID_AMOUNT, f"a tournament payment must be positive, not {amount}"
        )
    if amount > w.balance:
        raise PreconditionFailed(
            NOT_ENOUGH_CHIPS, f"the buy-in is {amount} chips and the wallet holds {w.balance}"
        )
    return [TournamentPaid(key, tournament_id, amount, now)]


def credit_tournament(
    w: Wallet, key: str, tournament_id: str, amount: int, reason: str, now: float
) -> list[Event]:
    """A tournament's prize or refund, once by ``key``."""
    _require(w)
    if key in w.tournament_keys:
        return []
    if amount < 0:
        raise InvalidArgument(INVALID_AMOUNT, f"a tournament credit cannot be negative ({amount})")
    return [TournamentCredited(key, tournament_id, amount, reason, now)]
