"""The floor: what the tournament director decides after anything happens, one step at a time
(each step's events are applied before the next step is looked for), until nothing is left to
decide. In order of precedence:

1. the clock (a level's end, a break due or over) - so a hand released next has its level;
2. busts ranked into places (at once; after a hand-for-hand round; after a rebuy decision);
3. the end: one player left, prizes awarded, tables closed;
4. hand-for-hand on or off (the next elimination decides a place played hand for hand);
5. a late entrant seated;
6. empty tables closed, a table chosen to break when the field fits in one table fewer;
7. one move (a breaking table's player, else balancing), between two tables between hands;
8. a break started once every table has finished its hand;
9. hands released to the tables that may deal: together in a hand-for-hand round.

A table is touched (moves, breaking) only between hands: after a hand the tournament *holds*
the table (``HandReleased`` is what lets it deal again), so every decision here is made on a
table that is exactly as the books say.
"""

from __future__ import annotations

from . import events as E
from .clock import break_start, clock_step
from .evolve import evolve
from .ranking import awards, rank
from .seating import free_seats, player_to_move, seat_for_newcomer, shuffled, table_id
from .state import (
    Table,
    TournamentState,
    moving_tables,
    players_left,
    rebuy_open,
    size,
    still_in,
    with_chips,
)
from .state import hand_for_hand_places as places_played_hand_for_hand

#: Steps one command may take: far above any real need (a table's worth of moves is a step
#: each, and each waits for its ``CompleteMove``); reaching it is a bug, not a refusal.
MAX_STEPS = 10_000


class Recorder:
    """Events decided so far and the state they lead to (``decide`` returns ``events``)."""

    def __init__(self, state: TournamentState) -> None:
        self.state = state
        self.events: list[E.Event] = []

    def emit(self, *events: E.Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = evolve(self.state, event)


def settle(rec: Recorder, now: float) -> None:
    """Take every step the floor owes at ``now``."""
    for _ in range(MAX_STEPS):
        if not rec.state.running:
            return
        step = next_step(rec.state, now)
        if not step:
            return
        rec.emit(*step)
    raise AssertionError("the tournament floor did not settle")


def next_step(s: TournamentState, now: float) -> list[E.Event]:
    return (
        clock_step(s, now)
        or _place_busts(s, now)
        or _finish(s, now)
        or _hand_for_hand(s, now)
        or _seat_late_entrant(s)
        or _close_or_break(s)
        or _move(s)
        or _start_break(s, now)
        or _release(s)
    )


def _place_busts(s: TournamentState, now: float) -> list[E.Event]:
    """Busts are placed in the order they happened: those ready (no rebuy decision pending, no
    hand-for-hand round to wait for, not moving) and earlier than every bust still waiting,
    together. A bust of the same hand as one still deciding waits for it, so they are ranked
    by their stacks, and taking time over a rebuy never buys a better place."""
    moving = {m.player_id for m in s.moves.values()}
    ready, waiting = [], []
    for entrant in still_in(s):
        bust = entrant.bust
        if bust is None:
            continue
        deciding = bust.rebuy_until is not None and now < bust.rebuy_until and rebuy_open(s)
        in_round = bust.in_round and bool(s.round_tables)
        if deciding or in_round or entrant.player_id in moving:
            waiting.append(bust.order)
        else:
            ready.append(entrant)
    first_waiting = min(waiting, default=None)
    if first_waiting is not None:
        ready = [e for e in ready if e.bust is not None and e.bust.order < first_waiting]
    if not ready:
        return []
    return [E.PlayersPlaced(rank(ready, players_left(s)), now)]


def _finish(s: TournamentState, now: float) -> list[E.Event]:
    left = list(still_in(s))
    if len(left) != 1 or left[0].bust is not None or s.moves:
        return []
    winner = left[0]
    finished = evolve(s, E.PlayersPlaced((E.Placing(winner.player_id, 1),), now))
    events: list[E.Event] = [
        E.PlayersPlaced((E.Placing(winner.player_id, 1),), now),
        E.PrizesAwarded(finished.prize_pool, awards(finished)),
    ]
    events.extend(E.TableClosed(t) for t in s.tables)
    events.append(E.TournamentFinished(winner.player_id, now))
    return events


def _hand_for_hand(s: TournamentState, now: float) -> list[E.Event]:
    left = players_left(s)
    tables_needed = -(-left // s.cfg.seats_per_table)  # at one table, hands are one at a time
    wanted = tables_needed >= 2 and left in places_played_hand_for_hand(s)
    if wanted and not s.hand_for_hand:
        return [E.HandForHandStarted(left, now)]
    if not wanted and s.hand_for_hand and not s.round_tables:
        return [E.HandForHandEnded(left, now)]
    return []


def _by_size(s: TournamentState, tables: list[Table]) -> list[Table]:
    return sorted(tables, key=lambda t: (size(s, t), t.number))


def _seat_late_entrant(s: TournamentState) -> list[E.Event]:
    """A late entrant sits at the smallest table with a free seat (a drawn seat), if the other
    tables keep room for every player of a breaking table; else at a new table."""
    entrant = next((e for e in still_in(s) if not e.table_id and e.bust is None), None)
    if entrant is None:
        return []
    breaking = sum(len(t.seats) for t in s.tables.values() if t.breaking)
    open_tables = [t for t in s.tables.values() if not t.breaking]
    room = sum(len(free_seats(s, t)) for t in open_tables)
    candidates = [t for t in _by_size(s, open_tables) if free_seats(s, t)]
    events: list[E.Event] = []
    if candidates and room > breaking:
        table = candidates[0]
        free = free_seats(s, table)
    else:
        number = s.tables_opened + 1
        table = Table(table_id(s.tournament_id, number), number)
        events.append(E.TableOpened(table.table_id, number))
        free = list(range(s.cfg.seats_per_table))
    seat = shuffled(free, s.seed, f"late:{entrant.entry}")[0]
    stack = s.cfg.starting_stack
    events.append(
        E.PlayerSeated(
            entrant.player_id, table.table_id, seat, stack, entrant.is_bot, entrant.bot_level
        )
    )
    return events


def _close_or_break(s: TournamentState) -> list[E.Event]:
    busy = moving_tables(s)
    for table in s.tables.values():
        if not table.seats and not table.in_hand and table.table_id not in busy:
            return [E.TableClosed(table.table_id)]
    if any(t.breaking for t in s.tables.values()):
        return []  # one table at a time
    needed = -(-players_left(s) // s.cfg.seats_per_table)
    if len(s.tables) <= needed:
        return []
    fewest = min(s.tables.values(), key=lambda t: (size(s, t), -t.number))
    return [E.TableBreaking(fewest.table_id)]


def _idle(s: TournamentState, table: Table) -> bool:
    return not table.in_hand and table.table_id not in moving_tables(s)


def _balance_pair(s: TournamentState) -> tuple[Table, Table] | None:
    """The tables a balancing move would join (the largest, the smallest with a free seat;
    idle ones first, then by number), if they differ by two players in play or more."""
    playing = [t for t in s.tables.values() if not t.breaking]
    takers = [t for t in playing if free_seats(s, t)]
    if len(playing) < 2 or not takers:
        return None
    high = max(size(s, t) for t in playing)
    low = min(size(s, t) for t in takers)
    if high - low < 2:
        return None
    giver = min(
        (t for t in playing if size(s, t) == high), key=lambda t: (not _idle(s, t), t.number)
    )
    taker = min((t for t in takers if size(s, t) == low), key=lambda t: (not _idle(s, t), t.number))
    return giver, taker


def _out_of_balance(s: TournamentState, table: Table) -> bool:
    playing = [size(s, t) for t in s.tables.values() if not t.breaking]
    mine = size(s, table)
    return bool(playing) and (mine >= min(playing) + 2 or mine <= max(playing) - 2)


def _order_move(s: TournamentState, giver: Table, taker: Table, reason: str) -> list[E.Event]:
    seat = player_to_move(s, giver)
    if seat is None:
        return []
    number = s.moves_ordered + 1
    return [
        E.MoveOrdered(
            move_id=f"{s.tournament_id}-m{number}",
            player_id=giver.seats[seat],
            from_table=giver.table_id,
            from_seat=seat,
            to_table=taker.table_id,
            to_seat=seat_for_newcomer(s, taker, f"move:{number}"),
            reason=reason,
        )
    ]


def _move(s: TournamentState) -> list[E.Event]:
    """One move at a time: the tournament learns where the last one landed before the next."""
    if s.moves:
        return []
    for table in s.tables.values():
        if table.breaking and with_chips(s, table):
            if table.in_hand:
                return []
            takers = [t for t in _by_size(s, list(s.tables.values())) if not t.breaking]
            takers = [t for t in takers if free_seats(s, t)]
            if not takers or not _idle(s, takers[0]):
                return []  # the smallest table takes the player once its hand is over
            return _order_move(s, table, takers[0], "break")
    pair = _balance_pair(s)
    if pair is None or not all(_idle(s, t) for t in pair):
        return []
    return _order_move(s, *pair, "balance")


def _start_break(s: TournamentState, now: float) -> list[E.Event]:
    if not s.break_due or any(t.in_hand for t in s.tables.values()):
        return []
    return [break_start(s, now)]


def _may_deal(s: TournamentState, table: Table) -> bool:
    return (
        _idle(s, table)
        and not table.breaking
        and len(with_chips(s, table)) >= 2
        and not _out_of_balance(s, table)
    )


def _release(s: TournamentState) -> list[E.Event]:
    if s.break_due or s.on_break:
        return []
    ready = [t for t in s.tables.values() if _may_deal(s, t)]
    if s.hand_for_hand:
        settled = (
            not s.round_tables
            and not s.moves
            and all(not t.in_hand for t in s.tables.values())
            and not any(t.breaking and t.seats for t in s.tables.values())
            and _balance_pair(s) is None
        )
        if not settled:
            return []
    return [E.HandReleased(t.table_id, t.hand + 1, s.level) for t in ready]
