"""Replaying a run of a table's stored commits, settling the hands that are over.

A hand's own state (the engine's ``HandState``, its public actions) lives until the next
``HandStarted`` replaces it. A replay that meets a later ``HandStarted`` needs of every hand
before it only what its events do to the table: a player's action ends their run of time-outs
and the clock, a show or muck ends the showdown clock, the hand's end sets the stacks
(``state.settle``). Those fields are read from the stored data; the events are not built and
the hand is not played through the engine: most of a long table's events (a table's full
replay, after Redis lost its snapshot). Events at an older schema version, and commits whose
events the caller keeps (a client's command: the idempotency window answers a retry with
them), are built as always and settled from the objects.

``Replay(state, types)`` over the record types of every commit of the run, then
``commit(...)`` for each commit in order. The result equals applying every event
(tests/tableservice/test_settling.py checks it over random tables, from every starting point).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from libs.poker.events import ActionTaken, HandEnded, HandMucked, HandShown, HandVoided

from .codec import SCHEMA_VERSIONS, decode_data
from .events import Event
from .state import SETTLED, TableState, apply, settle, settles_with

_HAND_STARTED = "HandStarted"
#: What settling needs of each settled type: (its player?, its stacks?)
_NEEDS = {kind: settles_with(kind) for kind in SETTLED}


class Replay:
    """Folds one run of commits into ``state`` (in place); ``types[i]``: the record types of
    commit ``i`` of the run, in order."""

    def __init__(self, state: TableState, types: Sequence[Sequence[str]]) -> None:
        self.state = state
        self._settling = False
        # the last HandStarted of the run: every hand started before it is over by then
        self._last: tuple[int, int] = (-1, -1)
        for i in range(len(types) - 1, -1, -1):
            kinds = types[i]
            if _HAND_STARTED in kinds:
                self._last = (i, len(kinds) - 1 - list(reversed(kinds)).index(_HAND_STARTED))
                break

    def commit(
        self,
        index: int,
        types: Sequence[str],
        versions: Sequence[int],
        datas: Sequence[Any],
        keep: bool,
    ) -> list[Event]:
        """Apply commit ``index`` of the run (its records' types, versions and parsed JSON
        data); its events when ``keep``, else [] (none are built that need not be)."""
        state, events = self.state, []
        for j, (kind, version, data) in enumerate(zip(types, versions, datas, strict=True)):
            if kind == _HAND_STARTED:
                self._settling = (index, j) < self._last
            if self._settling and kind in _NEEDS:
                current = version == SCHEMA_VERSIONS[kind]
                if not keep and current and _settle_data(state, kind, data):
                    continue
                event = decode_data(kind, version, data)
                _settle_event(state, event)
            else:
                event = decode_data(kind, version, data)
                apply(state, event)
            if keep:
                events.append(event)
        return events


def _settle_data(state: TableState, kind: str, data: Any) -> bool:
    """Settle from the stored data (False: they are not what the type stores; the caller
    builds the event, which says what is wrong)."""
    player_needed, stacks_needed = _NEEDS[kind]
    if not (player_needed or stacks_needed):
        return True
    if type(data) is not dict:
        return False
    if player_needed:
        player = data.get("player")
        if type(player) is not int or not 0 <= player < len(state.hand_seats):
            return False
        settle(state, kind, player=player)
        return True
    stacks = data.get("stacks")
    if (
        type(stacks) is not list
        or len(stacks) != len(state.hand_seats)
        or any(type(stack) is not int for stack in stacks)
    ):
        return False
    settle(state, kind, stacks=stacks)
    return True


def _settle_event(state: TableState, event: Event) -> None:
    kind = type(event).__name__
    if isinstance(event, (ActionTaken, HandShown, HandMucked)):
        settle(state, kind, player=event.player)
    elif isinstance(event, (HandEnded, HandVoided)):
        settle(state, kind, stacks=event.stacks)
