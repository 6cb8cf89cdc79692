"""Deciding what the director reports during play (a table's hand ended, a move landed, a
payment was made) and what players buy (rebuys, the add-on) or decline.

A hand's result is checked before anything is recorded: it must be the hand the tournament
released at that table, name only players seated there, and create no chip (the stacks at its
end add up to those at its start). The books move each player's stack by the hand's change,
so chips bought during the hand (a rebuy the table adds after it) are never lost or counted
twice. A report of a hand already recorded decides nothing: the director may repeat itself.
"""

from __future__ import annotations

from libs.errors import InvalidArgument, NotFound, PreconditionFailed, echo

from . import commands as C
from . import errors as TE
from . import events as E
from .floor import Recorder, settle
from .guards import check_id, require_created, require_not_over, seen_key
from .state import Entrant, Status, TournamentState, add_on_open, rebuy_open


def _require_running(s: TournamentState) -> None:
    require_created(s)
    require_not_over(s)
    if s.status is not Status.RUNNING:
        raise PreconditionFailed(TE.NOT_STARTED, "the tournament has not started")


def _entrant(s: TournamentState, player_id: str) -> Entrant:
    entrant = s.entrants.get(player_id)
    if entrant is None:
        raise NotFound(TE.NOT_REGISTERED, f"{echo(player_id)} is not registered")
    if entrant.place:
        raise PreconditionFailed(
            TE.PLAYER_ELIMINATED, f"{echo(player_id)} finished in place {entrant.place}"
        )
    return entrant


def _settled(s: TournamentState, event: E.Event, now: float) -> list[E.Event]:
    """``event``, then whatever the floor does after it (the epilogue of every play command)."""
    rec = Recorder(s)
    rec.emit(event)
    settle(rec, now)
    return rec.events


def _bad_result(problem: str) -> InvalidArgument:
    return InvalidArgument(TE.INVALID_HAND_RESULT, problem)


def report_hand(s: TournamentState, c: C.ReportHand) -> list[E.Event]:
    check_id("table_id", c.table_id)
    require_created(s)
    if c.hand <= s.closed.get(c.table_id, -1):
        return []  # a repeated report of a table closed since
    _require_running(s)
    table = s.tables.get(c.table_id)
    if table is None:
        raise NotFound(TE.TABLE_NOT_FOUND, f"no table {echo(c.table_id)} in this tournament")
    if not (table.in_hand and c.hand == table.hand):
        if 1 <= c.hand <= table.hand:
            return []  # recorded already
        raise PreconditionFailed(
            TE.HAND_NOT_RELEASED, f"hand {c.hand} was not released at {echo(c.table_id)}"
        )
    players = [r.player_id for r in c.results]
    if len(players) < 2 or len(set(players)) != len(players):
        raise _bad_result("a hand has two or more players, each once")
    for result in c.results:
        entrant = s.entrants.get(result.player_id)
        if entrant is None or entrant.place or entrant.table_id != c.table_id:
            raise InvalidArgument(
                TE.NOT_AT_TABLE, f"{echo(result.player_id)} is not seated at this table"
            )
        if result.start < 1 or result.end < 0:
            raise _bad_result("a dealt player starts with chips and ends with 0 or more")
    before, after = sum(r.start for r in c.results), sum(r.end for r in c.results)
    if before != after:
        raise InvalidArgument(
            TE.CHIPS_NOT_CONSERVED, f"the hand began with {before} chips and ended with {after}"
        )
    if not 0 <= c.button < s.cfg.seats_per_table:
        raise _bad_result(f"the button must be a seat 0..{s.cfg.seats_per_table - 1}")
    in_round = c.table_id in s.round_tables
    rec = Recorder(s)
    rec.emit(E.HandRecorded(c.table_id, c.hand, c.results, c.button, c.now))
    order = s.round_order if in_round else rec.state.reports
    rule = s.cfg.rebuy
    for result in c.results:
        entrant = rec.state.entrants[result.player_id]
        if entrant.stack > 0:  # chips left, or bought during the hand (the table adds them now)
            continue
        until = None
        if (
            rule is not None
            and rebuy_open(rec.state)
            and (rule.max_rebuys == 0 or entrant.rebuys < rule.max_rebuys)
        ):
            until = c.now + rule.decision_seconds
        rec.emit(E.PlayerBusted(result.player_id, c.table_id, result.start, order, until, in_round))
    settle(rec, c.now)
    return rec.events


def complete_move(s: TournamentState, c: C.CompleteMove) -> list[E.Event]:
    check_id("move_id", c.move_id)
    require_created(s)
    if c.move_id not in s.moves:
        prefix = f"{s.tournament_id}-m"
        number = c.move_id[len(prefix) :] if c.move_id.startswith(prefix) else ""
        if number.isdigit() and 1 <= int(number) <= s.moves_ordered:
            return []  # landed already (or the tournament was cancelled meanwhile)
        raise NotFound(TE.MOVE_NOT_FOUND, f"no move {echo(c.move_id)}")
    if s.over:
        return []
    return _settled(s, E.PlayerMoved(c.move_id, c.now), c.now)


def rebuy(s: TournamentState, c: C.Rebuy) -> list[E.Event]:
    check_id("player_id", c.player_id)
    check_id("key", c.key)
    require_created(s)
    if seen_key(s, c.key, c.player_id):
        return []
    rule = s.cfg.rebuy
    if rule is None:
        raise PreconditionFailed(TE.REBUY_CLOSED, "this tournament has no rebuys (a freezeout)")
    _require_running(s)
    entrant = _entrant(s, c.player_id)
    if not rebuy_open(s):
        raise PreconditionFailed(
            TE.REBUY_CLOSED, f"rebuys are sold through level {rule.last_level} only"
        )
    if rule.max_rebuys and entrant.rebuys >= rule.max_rebuys:
        raise PreconditionFailed(
            TE.REBUY_NOT_ALLOWED, f"every one of the {rule.max_rebuys} rebuys is taken"
        )
    if entrant.stack > s.cfg.rebuy_threshold:
        raise PreconditionFailed(
            TE.REBUY_NOT_ALLOWED,
            f"a rebuy is for a stack of {s.cfg.rebuy_threshold} or less ({entrant.stack} now)",
        )
    return _settled(s, E.RebuyBought(c.player_id, c.key, rule.chips, rule.cost, c.now), c.now)


def decline_rebuy(s: TournamentState, c: C.DeclineRebuy) -> list[E.Event]:
    check_id("player_id", c.player_id)
    _require_running(s)
    entrant = _entrant(s, c.player_id)
    if entrant.bust is None or entrant.bust.rebuy_until is None:
        raise PreconditionFailed(TE.NO_REBUY_PENDING, "no rebuy is waiting for this player")
    return _settled(s, E.RebuyDeclined(c.player_id, c.now), c.now)


def add_on(s: TournamentState, c: C.AddOn) -> list[E.Event]:
    check_id("player_id", c.player_id)
    check_id("key", c.key)
    require_created(s)
    if seen_key(s, c.key, c.player_id):
        return []
    rule = s.cfg.add_on
    if rule is None:
        raise PreconditionFailed(TE.ADD_ON_CLOSED, "this tournament has no add-on")
    _require_running(s)
    entrant = _entrant(s, c.player_id)
    if not add_on_open(s):
        raise PreconditionFailed(
            TE.ADD_ON_CLOSED, f"the add-on is sold in the break after level {rule.after_level}"
        )
    if entrant.add_ons:
        raise PreconditionFailed(TE.ADD_ON_TAKEN, "one add-on each")
    return _settled(s, E.AddOnBought(c.player_id, c.key, rule.chips, rule.cost, c.now), c.now)


def settle_payment(s: TournamentState, c: C.SettlePayment) -> list[E.Event]:
    check_id("key", c.key)
    require_created(s)
    if c.key in s.settled:
        return []
    if c.key not in s.payments:
        raise NotFound(TE.PAYMENT_NOT_FOUND, f"no payment {echo(c.key)} is owed")
    return [E.PaymentSettled(c.key, c.now)]
