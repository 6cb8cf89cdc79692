"""Tournaments, pure (no I/O): sit & go and scheduled multi-table, as an aggregate with
``decide(state, command) -> events`` and ``evolve(state, event) -> state``, the director's
decisions about tables (seating, balancing, breaking, hand-for-hand, breaks) made inside
``decide`` as events, and the money as payments a wallet saga makes once each. docs/
tournaments.md tells the design.

- :mod:`.config`, :mod:`.structure`, :mod:`.payouts`: settings, blind structures and presets,
  payout tables; each with its validator.
- :mod:`.commands`, :mod:`.events`: what is asked, what happened.
- :mod:`.state`, :mod:`.evolve`: the state and how each event changes it.
- :mod:`.decide`, :mod:`.play`, :mod:`.guards`: deciding each command.
- :mod:`.floor`, :mod:`.clock`, :mod:`.seating`, :mod:`.ranking`: what follows any command
  (levels and breaks, places, seats and moves, releases), the draw, places and prizes.
- :mod:`.directives`: what the process manager does for each event (table commands, wallet
  credits), :mod:`.standings`: what a tournament shows (clock, field, standings), and
  :mod:`.codec`: events and state as JSON.
"""

from .decide import decide
from .evolve import evolve, fold
from .state import TournamentState, initial

__all__ = ["TournamentState", "decide", "evolve", "fold", "initial"]
