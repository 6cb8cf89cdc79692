"""Where players sit: the random draw at the start, a late entrant's seat, which player a table
gives up when it must (the one who would be big blind next) and the seat a moved player takes
(the worst position: the free seat the big blind reaches first).

Random choices come from the tournament's seed (``TournamentStarted``) through SHA-256, never
from a process's random state, so anyone replaying the stream draws the same seats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

from .state import Table, TournamentState, with_chips

T = TypeVar("T")


def table_id(tournament_id: str, number: int) -> str:
    return f"{tournament_id}-t{number}"


def _draw_number(seed: str, salt: str, index: int) -> int:
    digest = hashlib.sha256(f"{seed}\x00{salt}\x00{index}".encode()).digest()
    return int.from_bytes(digest, "big")


def shuffled(items: Sequence[T], seed: str, salt: str) -> list[T]:
    """``items`` in the order a Fisher-Yates shuffle driven by ``seed`` and ``salt`` gives (a
    256-bit number per step: the modulo's bias is below 2**-200)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = _draw_number(seed, salt, i) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def initial_draw(
    players: Sequence[str], seats_per_table: int, seed: str
) -> list[tuple[int, int, str]]:
    """The start's draw: ``(table number, seat, player)`` for every player. As few tables as
    hold the field, dealt round the tables in the drawn order (sizes differ by at most one),
    each table's seats drawn too (a table not full has its empty seats anywhere)."""
    order = shuffled(players, seed, "draw")
    tables = -(-len(order) // seats_per_table)
    draw: list[tuple[int, int, str]] = []
    for number in range(1, tables + 1):
        mine = order[number - 1 :: tables]
        seats = shuffled(range(seats_per_table), seed, f"seats:{number}")
        draw.extend((number, seat, player) for seat, player in zip(seats, mine, strict=False))
    return draw


def _after(seat: int, pool: Sequence[int], size: int) -> int:
    for k in range(1, size + 1):
        if (seat + k) % size in pool:
            return (seat + k) % size
    raise ValueError("empty pool")


def next_big_blind(seats: Sequence[int], button: int, size: int) -> int | None:
    """The seat that posts the big blind in the next hand of a table whose last button was
    ``button`` (-1: none yet) and whose players with chips sit at ``seats``; None with fewer
    than two. The table's rule (libs.table.planning.plan_hand) with everybody dealt in, as at a
    tournament table: the button moves to the next player, the blinds follow it; heads-up the
    button posts the small blind."""
    if len(seats) < 2:
        return None
    new_button = min(seats) if button < 0 else _after(button, seats, size)
    small = _after(new_button, seats, size)
    big = _after(small, seats, size)
    if big == new_button:  # two players: the button is the small blind
        big = small
    return big


def free_seats(s: TournamentState, table: Table) -> list[int]:
    """Seats nobody holds, none promised to a player on the way (a move in flight)."""
    promised = {m.to_seat for m in s.moves.values() if m.to_table == table.table_id}
    return [
        seat
        for seat in range(s.cfg.seats_per_table)
        if seat not in table.seats and seat not in promised
    ]


def player_to_move(s: TournamentState, table: Table) -> int | None:
    """The seat whose player leaves ``table``: the one who would be big blind next (they have
    paid every blind of this table's orbit and miss none by moving); with one player with
    chips, that one. None when nobody there has chips: a player waiting on a rebuy decision
    moves only once they have chips again (or are out)."""
    chips = with_chips(s, table)
    if not chips:
        return None
    seat = next_big_blind(chips, table.button, s.cfg.seats_per_table)
    return chips[0] if seat is None else seat


def seat_for_newcomer(s: TournamentState, table: Table, salt: str) -> int:
    """The seat a player moved to ``table`` takes: the first free seat clockwise after its next
    big blind (the big blind reaches it first: the worst position, so a move never saves
    anyone a blind); at a table that has not dealt yet, a seat drawn from the seed."""
    free = free_seats(s, table)
    big = next_big_blind(with_chips(s, table), table.button, s.cfg.seats_per_table)
    if table.button < 0 or big is None:
        return shuffled(free, s.seed, salt)[0]
    return _after(big, free, s.cfg.seats_per_table)
