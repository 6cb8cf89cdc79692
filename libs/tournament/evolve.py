"""``evolve``: the tournament's state after one event. It never fails and never decides: every
check was made by ``decide`` before the event existed, so replaying a stream rebuilds exactly
the state its commands saw."""

from __future__ import annotations

from dataclasses import replace

from . import events as E
from .state import Bust, Entrant, Move, Status, Table, TournamentState


def _entrant(s: TournamentState, player_id: str, **changes: object) -> dict[str, Entrant]:
    entrants = dict(s.entrants)
    entrants[player_id] = replace(entrants[player_id], **changes)  # type: ignore[arg-type]
    return entrants


def _table(s: TournamentState, table_id: str, **changes: object) -> dict[str, Table]:
    tables = dict(s.tables)
    tables[table_id] = replace(tables[table_id], **changes)  # type: ignore[arg-type]
    return tables


def _seats(
    table: Table, leave: int | None = None, sit: tuple[int, str] | None = None
) -> dict[int, str]:
    seats = dict(table.seats)
    if leave is not None:
        seats.pop(leave, None)
    if sit is not None:
        seats[sit[0]] = sit[1]
    return seats


def evolve(s: TournamentState, event: E.Event) -> TournamentState:
    match event:
        case E.TournamentCreated():
            return replace(
                s,
                tournament_id=event.tournament_id,
                config=event.config,
                status=Status.REGISTERING,
                created_by=event.created_by,
                created_at=event.at,
            )
        case E.PlayerRegistered():
            entrant = Entrant(
                event.player_id, event.entry, event.key, event.is_bot, event.bot_level, event.paid
            )
            entrants = dict(s.entrants)
            if s.status is Status.RUNNING:
                # A late entrant finishes above everyone out already: each drops a place.
                for pid, e in s.entrants.items():
                    if e.place:
                        entrants[pid] = replace(e, place=e.place + 1)
            entrants[event.player_id] = entrant
            return replace(
                s,
                entrants=entrants,
                entries=max(s.entries, event.entry),
                keys={**s.keys, event.key: event.player_id},
                prize_pool=s.prize_pool + event.paid - s.cfg.fee,
            )
        case E.PlayerUnregistered():
            entrants = dict(s.entrants)
            gone = entrants.pop(event.player_id)
            return replace(
                s,
                entrants=entrants,
                keys={**s.keys, event.key: event.player_id},
                prize_pool=s.prize_pool - (gone.paid - s.cfg.fee),
                payments=s.payments
                if event.refund is None
                else {**s.payments, event.refund.key: event.refund},
            )
        case E.TournamentStarted():
            return replace(s, status=Status.RUNNING, seed=event.seed, started_at=event.at)
        case E.TournamentCancelled():
            payments = dict(s.payments)
            payments.update((p.key, p) for p in event.refunds)
            return replace(s, status=Status.CANCELLED, finished_at=event.at, payments=payments)
        case E.PrizesAwarded():
            entrants = dict(s.entrants)
            for prize in event.prizes:
                entrants[prize.player_id] = replace(entrants[prize.player_id], prize=prize.amount)
            payments = dict(s.payments)
            payments.update((p.key, p) for p in event.prizes)
            return replace(s, entrants=entrants, payments=payments)
        case E.TournamentFinished():
            return replace(s, status=Status.FINISHED, winner=event.winner, finished_at=event.at)
        case E.PaymentSettled():
            payments = dict(s.payments)
            payments.pop(event.key, None)
            return replace(s, payments=payments, settled=s.settled | {event.key})
        case E.TableOpened():
            return replace(
                s,
                tables={**s.tables, event.table_id: Table(event.table_id, event.number)},
                tables_opened=max(s.tables_opened, event.number),
                most_tables=max(s.most_tables, len(s.tables) + 1),
            )
        case E.PlayerSeated():
            seats = _seats(s.tables[event.table_id], sit=(event.seat, event.player_id))
            return replace(
                s,
                tables=_table(s, event.table_id, seats=seats),
                entrants=_entrant(
                    s, event.player_id, table_id=event.table_id, seat=event.seat, stack=event.stack
                ),
                chips_issued=s.chips_issued + event.stack,
            )
        case E.MoveOrdered():
            move = Move(
                event.move_id,
                event.player_id,
                event.from_table,
                event.from_seat,
                event.to_table,
                event.to_seat,
            )
            return replace(
                s, moves={**s.moves, event.move_id: move}, moves_ordered=s.moves_ordered + 1
            )
        case E.PlayerMoved():
            moves = dict(s.moves)
            move = moves.pop(event.move_id)
            tables = dict(s.tables)
            source, target = tables[move.from_table], tables[move.to_table]
            tables[source.table_id] = replace(source, seats=_seats(source, leave=move.from_seat))
            tables[target.table_id] = replace(
                target, seats=_seats(target, sit=(move.to_seat, move.player_id))
            )
            return replace(
                s,
                moves=moves,
                tables=tables,
                entrants=_entrant(s, move.player_id, table_id=move.to_table, seat=move.to_seat),
            )
        case E.TableBreaking():
            return replace(s, tables=_table(s, event.table_id, breaking=True))
        case E.TableClosed():
            tables = dict(s.tables)
            shut = tables.pop(event.table_id, None)
            last_hand = 0 if shut is None else shut.hand
            return replace(s, tables=tables, closed={**s.closed, event.table_id: last_hand})
        case E.HandReleased():
            table = replace(s.tables[event.table_id], hand=event.hand, in_hand=True)
            state = replace(
                s,
                tables={**s.tables, event.table_id: table},
                hands_released=s.hands_released + 1,
            )
            if not s.hand_for_hand:
                return state
            if not s.round_tables:  # the first table of a new round
                state = replace(
                    state,
                    round_order=s.reports + 1,
                    hand_for_hand_rounds=s.hand_for_hand_rounds + 1,
                )
            return replace(state, round_tables=state.round_tables | {event.table_id})
        case E.HandRecorded():
            entrants = dict(s.entrants)
            for result in event.results:
                held = entrants[result.player_id]
                entrants[result.player_id] = replace(
                    held, stack=held.stack + result.end - result.start
                )
            table = s.tables[event.table_id]
            table = replace(
                table,
                in_hand=False,
                button=event.button,
                hands_this_level=table.hands_this_level + 1,
            )
            return replace(
                s,
                entrants=entrants,
                tables={**s.tables, table.table_id: table},
                reports=s.reports + 1,
                round_tables=s.round_tables - {event.table_id},
            )
        case E.PlayerBusted():
            bust = Bust(
                event.table_id, event.start_stack, event.order, event.rebuy_until, event.in_round
            )
            return replace(s, entrants=_entrant(s, event.player_id, bust=bust))
        case E.PlayersPlaced():
            entrants, tables = dict(s.entrants), dict(s.tables)
            for placing in event.placings:
                held = entrants[placing.player_id]
                was_at = tables.get(held.table_id)
                if was_at is not None:
                    tables[was_at.table_id] = replace(was_at, seats=_seats(was_at, leave=held.seat))
                entrants[placing.player_id] = replace(
                    held, place=placing.place, tied=placing.tied, bust=None, table_id="", seat=-1
                )
            return replace(s, entrants=entrants, tables=tables)
        case E.RebuyBought():
            held = s.entrants[event.player_id]
            return replace(
                s,
                entrants=_entrant(
                    s,
                    event.player_id,
                    stack=held.stack + event.chips,
                    rebuys=held.rebuys + 1,
                    paid=held.paid + event.cost,
                    bust=None,
                ),
                keys={**s.keys, event.key: event.player_id},
                rebuys=s.rebuys + 1,
                prize_pool=s.prize_pool + event.cost,
                chips_issued=s.chips_issued + event.chips,
            )
        case E.RebuyDeclined():
            pending = s.entrants[event.player_id].bust
            if pending is None:
                return s
            return replace(
                s, entrants=_entrant(s, event.player_id, bust=replace(pending, rebuy_until=None))
            )
        case E.AddOnBought():
            held = s.entrants[event.player_id]
            return replace(
                s,
                entrants=_entrant(
                    s,
                    event.player_id,
                    stack=held.stack + event.chips,
                    add_ons=held.add_ons + 1,
                    paid=held.paid + event.cost,
                    bust=None,  # an add-on in a rebuy decision brings the player back too
                ),
                keys={**s.keys, event.key: event.player_id},
                add_ons=s.add_ons + 1,
                prize_pool=s.prize_pool + event.cost,
                chips_issued=s.chips_issued + event.chips,
            )
        case E.LevelStarted():
            tables = {t: replace(table, hands_this_level=0) for t, table in s.tables.items()}
            return replace(
                s,
                level=event.level,
                level_started_at=event.at,
                break_due=False,
                on_break=False,
                tables=tables,
            )
        case E.BreakDue():
            return replace(s, break_due=True)
        case E.BreakStarted():
            return replace(s, break_due=False, on_break=True, break_ends_at=event.ends_at)
        case E.BreakEnded():
            return replace(s, on_break=False)
        case E.HandForHandStarted():
            # the hands in play when it begins are its first round (counted like a released one)
            in_hand = frozenset(t for t, table in s.tables.items() if table.in_hand)
            return replace(
                s,
                hand_for_hand=True,
                round_tables=in_hand,
                round_order=s.reports + 1,
                hand_for_hand_rounds=s.hand_for_hand_rounds + bool(in_hand),
            )
        case E.HandForHandEnded():
            return replace(s, hand_for_hand=False)
    return s


def fold(s: TournamentState, events: list[E.Event]) -> TournamentState:
    for event in events:
        s = evolve(s, event)
    return s
