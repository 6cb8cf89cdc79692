"""The views of each table's current state, kept once built: a view is a pure function of the
table, its state, its sequence and the viewer (``views.player_view``), and a committed state is
never changed (each command makes a new one), so a view asked again of the same state (a client
polling between hands, a player's view after a spectator's) is the one already built. A table's
views are dropped as soon as a view of a newer state is asked for; at most ``MAX_TABLES`` tables
keep views (the least recently viewed is dropped first), so an idle table costs nothing here.

Callers get the kept message itself: they copy it into their response (a protobuf constructor
copies a message field) and never change it."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.table import TableState
from services.table.views import player_view

#: Tables whose views are kept.
MAX_TABLES = 1024


class _Views:
    __slots__ = ("sequence", "state", "views")

    def __init__(self, state: TableState, sequence: int) -> None:
        self.state = state
        self.sequence = sequence
        self.views: dict[str, pb.PlayerView] = {}  # viewer ("" for a spectator) -> view


class ViewCache:
    def __init__(self, max_tables: int = MAX_TABLES) -> None:
        self.max_tables = max_tables
        self.tables: dict[str, _Views] = {}

    def view(
        self, table_id: str, state: TableState, sequence: int, viewer: str | None
    ) -> pb.PlayerView:
        """``viewer``'s view of ``table_id`` in ``state`` at ``sequence`` (built once)."""
        kept = self.tables.pop(table_id, None)  # put back last: the most recently viewed
        if kept is None or kept.state is not state or kept.sequence != sequence:
            kept = _Views(state, sequence)
            while len(self.tables) >= self.max_tables:
                del self.tables[next(iter(self.tables))]
        self.tables[table_id] = kept
        key = viewer or ""
        view = kept.views.get(key)
        if view is None:
            view = kept.views[key] = player_view(table_id, state, sequence, viewer)
        return view

    def forget(self, table_id: str) -> None:
        self.tables.pop(table_id, None)
