"""The blind clock: when a level is over (by minutes, or by hands at the busiest table), what
follows it (the next level, or a break every table must reach first), when a break ends, and
the next moment the director must send a ``Tick``.

A level by time ends at its scheduled moment whenever the tick comes (the next level starts
then, so a late tick shortens nobody's level); the first level starts at the start, a level
after a break when the break ends. Past the structure's last level nothing changes any more.
"""

from __future__ import annotations

from . import events as E
from .state import Status, TournamentState, still_in


def level_ends_at(s: TournamentState) -> float | None:
    """When the level in force ends by time (None: by hands, in a break, or the last level)."""
    structure = s.cfg.structure
    if (
        not s.running
        or not structure.by_time
        or s.break_due
        or s.on_break
        or s.level >= len(structure.levels)
    ):
        return None
    return s.level_started_at + structure.level(s.level).length * 60.0


def _level_over(s: TournamentState, now: float) -> float | None:
    """When the level in force ended, if it has (by hands: now)."""
    structure = s.cfg.structure
    if structure.by_time:
        ends = level_ends_at(s)
        return ends if ends is not None and now >= ends else None
    if not s.running or s.break_due or s.on_break or s.level >= len(structure.levels):
        return None
    busiest = max((t.hands_this_level for t in s.tables.values()), default=0)
    return now if busiest >= structure.level(s.level).length else None


def clock_step(s: TournamentState, now: float) -> list[E.Event]:
    """The clock's next events at ``now`` (empty: nothing due)."""
    if s.on_break:
        if now < s.break_ends_at:
            return []
        return [E.BreakEnded(s.break_ends_at), E.LevelStarted(s.level + 1, s.break_ends_at)]
    ended = _level_over(s, now)
    if ended is None:
        return []
    if s.cfg.structure.level(s.level).break_minutes > 0:
        return [E.BreakDue(s.level, ended)]
    return [E.LevelStarted(s.level + 1, ended)]


def break_start(s: TournamentState, now: float) -> E.BreakStarted:
    minutes = s.cfg.structure.level(s.level).break_minutes
    return E.BreakStarted(now, now + minutes * 60.0)


def next_deadline(s: TournamentState) -> float | None:
    """The next moment a ``Tick`` may change something: a scheduled start, a level's end, a
    break's end, a rebuy decision running out. None: nothing is timed now."""
    if s.status is Status.REGISTERING:
        return s.cfg.start_at or None
    if not s.running:
        return None
    moments = [e.bust.rebuy_until for e in still_in(s) if e.bust and e.bust.rebuy_until]
    ends = level_ends_at(s)
    if ends is not None:
        moments.append(ends)
    if s.on_break:
        moments.append(s.break_ends_at)
    return min(moments, default=None)
