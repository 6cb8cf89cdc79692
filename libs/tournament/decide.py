"""``decide``: a command and the state -> the events it causes, or a typed refusal (and then
nothing changed). This module holds the dispatch and the tournament's life before and around
play: creation, registration and unregistration (steps of wallet sagas, so a repeated key
decides nothing), the start with its seating draw, cancellation with its refunds. What the
director reports during play is decided in libs/tournament/play.py; what follows any command
(levels, places, moves, releases) in libs/tournament/floor.py.
"""

from __future__ import annotations

from libs.errors import AlreadyExists, InvalidArgument, NotFound, PreconditionFailed, echo

from . import commands as C
from . import errors as TE
from . import events as E
from .config import TournamentKind, validate_config
from .floor import Recorder, settle
from .guards import check_id, check_time, require_created, require_not_over, seen_key
from .play import add_on, complete_move, decline_rebuy, rebuy, report_hand, settle_payment
from .ranking import refund_key, refunds
from .seating import initial_draw, table_id
from .state import Status, TournamentState, full, registration_open

MAX_REASON = 200
BOT_LEVELS = ("easy", "normal", "hard")


def decide(s: TournamentState, command: C.Command) -> list[E.Event]:
    """The events ``command`` causes in state ``s``; raises a ``libs.errors`` kind instead."""
    check_time(command.now)
    match command:
        case C.CreateTournament():
            return create(s, command)
        case C.Register():
            return register(s, command)
        case C.Unregister():
            return unregister(s, command)
        case C.Start():
            return start(s, command)
        case C.Cancel():
            return cancel(s, command)
        case C.Tick():
            return tick(s, command)
        case C.ReportHand():
            return report_hand(s, command)
        case C.CompleteMove():
            return complete_move(s, command)
        case C.Rebuy():
            return rebuy(s, command)
        case C.DeclineRebuy():
            return decline_rebuy(s, command)
        case C.AddOn():
            return add_on(s, command)
        case C.SettlePayment():
            return settle_payment(s, command)
    raise InvalidArgument(TE.INVALID_COMMAND, f"not a tournament command: {type(command).__name__}")


def create(s: TournamentState, c: C.CreateTournament) -> list[E.Event]:
    check_id("tournament_id", c.tournament_id)
    check_id("created_by", c.created_by)
    if s.tournament_id and c.tournament_id != s.tournament_id:
        raise InvalidArgument(TE.INVALID_COMMAND, "the command names another tournament")
    if s.status is not Status.NEW:
        if s.created_by == c.created_by and s.config == c.config:
            return []  # a retry
        raise AlreadyExists(TE.ALREADY_CREATED, f"{echo(c.tournament_id)} exists already")
    validate_config(c.config)
    return [E.TournamentCreated(c.tournament_id, c.config, c.created_by, c.now)]


def register(s: TournamentState, c: C.Register) -> list[E.Event]:
    check_id("player_id", c.player_id)
    check_id("key", c.key)
    if c.is_bot != bool(c.bot_level) or (c.bot_level and c.bot_level not in BOT_LEVELS):
        raise InvalidArgument(
            TE.INVALID_COMMAND, f"a bot names its level ({', '.join(BOT_LEVELS)}); a person none"
        )
    require_created(s)
    if seen_key(s, c.key, c.player_id):
        return []
    require_not_over(s)
    if c.player_id in s.entrants:
        raise AlreadyExists(TE.ALREADY_REGISTERED, f"{echo(c.player_id)} is registered")
    if not registration_open(s):
        raise PreconditionFailed(TE.REGISTRATION_CLOSED, "registration is closed")
    if full(s):
        raise PreconditionFailed(TE.TOURNAMENT_FULL, f"all {s.cfg.max_entrants} entries are taken")
    rec = Recorder(s)
    rec.emit(
        E.PlayerRegistered(
            c.player_id,
            c.key,
            s.entries + 1,
            s.cfg.buy_in + s.cfg.fee,
            c.is_bot,
            c.bot_level,
            c.now,
        )
    )
    settle(rec, c.now)  # a late entrant is seated at once
    return rec.events


def unregister(s: TournamentState, c: C.Unregister) -> list[E.Event]:
    check_id("player_id", c.player_id)
    check_id("key", c.key)
    require_created(s)
    if seen_key(s, c.key, c.player_id):
        return []
    require_not_over(s)
    if s.status is not Status.REGISTERING:
        raise PreconditionFailed(
            TE.UNREGISTRATION_CLOSED, "the tournament has started: entries stay in"
        )
    entrant = s.entrants.get(c.player_id)
    if entrant is None:
        raise NotFound(TE.NOT_REGISTERED, f"{echo(c.player_id)} is not registered")
    refund = None
    if entrant.paid > 0:
        refund = E.Payment(
            refund_key(s.tournament_id, entrant.key),
            c.player_id,
            entrant.paid,
            E.PaymentReason.REFUND,
        )
    return [E.PlayerUnregistered(c.player_id, c.key, refund, c.now)]


def start(s: TournamentState, c: C.Start) -> list[E.Event]:
    check_id("seed", c.seed)
    require_created(s)
    require_not_over(s)
    if s.status is Status.RUNNING:
        raise PreconditionFailed(TE.ALREADY_STARTED, "the tournament has started")
    cfg = s.cfg
    if cfg.kind is TournamentKind.SIT_AND_GO and len(s.entrants) < cfg.max_entrants:
        raise PreconditionFailed(
            TE.NOT_FULL,
            f"a sit & go starts when its {cfg.max_entrants} seats fill "
            f"({len(s.entrants)} registered)",
        )
    if cfg.kind is TournamentKind.SCHEDULED:
        if c.now < cfg.start_at:
            raise PreconditionFailed(TE.NOT_TIME_YET, f"the start is at {cfg.start_at:.0f}")
        if len(s.entrants) < cfg.min_entrants:
            return [
                E.TournamentCancelled(
                    f"{len(s.entrants)} registered, fewer than the {cfg.min_entrants} needed",
                    refunds(s),
                    c.now,
                )
            ]
    rec = Recorder(s)
    rec.emit(E.TournamentStarted(c.seed, c.now), E.LevelStarted(1, c.now))
    draw = initial_draw(list(s.entrants), cfg.seats_per_table, c.seed)
    for number in sorted({number for number, _, _ in draw}):
        rec.emit(E.TableOpened(table_id(s.tournament_id, number), number))
    for number, seat, player_id in draw:
        entrant = s.entrants[player_id]
        rec.emit(
            E.PlayerSeated(
                player_id,
                table_id(s.tournament_id, number),
                seat,
                cfg.starting_stack,
                entrant.is_bot,
                entrant.bot_level,
            )
        )
    settle(rec, c.now)
    return rec.events


def cancel(s: TournamentState, c: C.Cancel) -> list[E.Event]:
    if not 1 <= len(c.reason) <= MAX_REASON:
        raise InvalidArgument(TE.INVALID_COMMAND, f"reason must be 1..{MAX_REASON} characters")
    require_created(s)
    if s.status is Status.CANCELLED:
        return []  # a retry
    require_not_over(s)
    events: list[E.Event] = [E.TableClosed(t) for t in s.tables]
    events.append(E.TournamentCancelled(c.reason, refunds(s), c.now))
    return events


def tick(s: TournamentState, c: C.Tick) -> list[E.Event]:
    require_created(s)
    rec = Recorder(s)
    settle(rec, c.now)
    return rec.events
