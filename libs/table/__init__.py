"""The table aggregate (pure): seating, button, blinds, the clock and room limits around
libs.poker's hands. No I/O: the table service loads it, decides, appends and publishes.

The hand itself is libs.poker's: the table maps seats to hand positions (position 0 is the first
seat left of the button, the button is last) and passes commands through.

- ``config``: a table's settings and their one validator (``TableConfig``)
- ``commands`` / ``events``: what may be asked of a table, and what happened
- ``state``: ``TableState`` and ``evolve`` (applying an event never fails)
- ``planning``: who is dealt into the next hand, the button and the blinds
- ``decide``: ``decide`` and ``step_table``, each command sent to its handler: ``seating`` (the
  seats), ``hand_commands`` (the hand and the clock), both over ``hand_flow`` (running the hand)
- ``extras``: run it twice (answers, the clock) and the rabbit hunt
- ``seat_options``: sit out next big blind, wait for the big blind, auto-post blinds (the blind
  question) and the player's connection (disconnect protection); ``seat_state`` applies them
- ``automation``: what the table needs next that no player decides (``next_due``); ``timing``:
  when time alone makes something due
- ``settling``: replaying a run of stored commits, settling the hands that are over
- ``errors``: the table's stable error codes
- ``codec``, ``converters``: events and snapshots to and from JSON-able data
"""

from .commands import PlayerAction
from .config import BotDifficulty, TableConfig
from .decide import decide, step_table
from .planning import HandPlan, can_start_hand, plan_hand
from .state import Seat, TableState, apply, evolve, replay

__all__ = [
    "BotDifficulty",
    "HandPlan",
    "PlayerAction",
    "Seat",
    "TableConfig",
    "TableState",
    "apply",
    "can_start_hand",
    "decide",
    "evolve",
    "plan_hand",
    "replay",
    "step_table",
]
