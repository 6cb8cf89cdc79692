"""A tournament as text, for every client in a terminal (``holdem tournaments`` and ``holdem
play``'s tournament screens): one line per tournament, the clock (level, blinds and ante, what
changes next), the field and the prizes, the caller's seat (and a move), the standings."""

from __future__ import annotations

from holdem.gateway.v1 import gateway_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb


def summary_line(t: tpb.TournamentSummary) -> str:
    level = f"level {t.clock.level}" if t.HasField("clock") else "not started"
    return (
        f"{t.tournament_id}  {t.name!r}  {t.status}  {t.entrants}/{t.max_entrants} entrants  "
        f"buy-in {t.buy_in}  pool {t.prize_pool}  {level}"
    )


def clock_line(t: tpb.TournamentSummary) -> str:
    """Level, blinds and ante, and what changes next."""
    if not t.HasField("clock"):
        return f"{t.status}: {t.entrants}/{t.max_entrants} registered"
    c = t.clock
    text = f"level {c.level}  blinds {c.small_blind}/{c.big_blind}"
    text += f" ante {c.ante}" if c.ante else ""
    if c.on_break:
        text += "  ON BREAK"
    if c.hand_for_hand:
        text += "  hand for hand"
    if c.next_change and c.seconds_left >= 0:
        text += f"  {c.next_change} in {int(c.seconds_left)} s"
    return text


def field_line(t: tpb.TournamentSummary) -> str:
    prizes = ", ".join(f"{place}: {prize}" for place, prize in enumerate(t.prizes, 1))
    return (
        f"{t.players_left} of {t.entrants} left  average {t.average_stack}  largest "
        f"{t.largest_stack}  pool {t.prize_pool}  prizes {prizes or '-'}"
    )


def seat_line(me: gateway_pb2.TournamentSeat) -> str:
    if not me.registered:
        return "you: not registered"
    if me.place:
        return f"you: finished {me.place}" + (f", prize {me.prize}" if me.prize else "")
    if not me.table_id:
        return f"you: registered, stack {me.stack}"
    moved = f"  MOVED from {me.moved_from_table_id}" if me.moved_from_table_id else ""
    return f"you: table {me.table_id} seat {me.seat + 1} stack {me.stack}{moved}"


def update_line(update: gateway_pb2.TournamentUpdate) -> str:
    t = update.tournament
    return f"[{t.status}] {clock_line(t)} | {field_line(t)} | {seat_line(update.me)}"


def show_lines(tournament: tpb.Tournament) -> list[str]:
    t = tournament.summary
    lines = [summary_line(t), clock_line(t), field_line(t), "standings:"]
    lines.extend(f"  {standing_line(s)}" for s in tournament.standings)
    return lines


def standing_line(s: tpb.Standing) -> str:
    """One entrant: stack and seat while in play, place and prize once out."""
    where = f"table {s.table_id} seat {s.seat + 1}" if s.table_id else ""
    place = f"place {s.place}" + (f" prize {s.prize}" if s.prize else "") if s.place else ""
    return f"{s.player_id}{' (AI)' if s.is_bot else ''}  {s.stack}  {where}{place}"
