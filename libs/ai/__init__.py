"""AI opponents: pure, typed decision making from one seat's view (no I/O).

- ``view``: what a seated player sees (``SeatView``) and the one builder from an engine hand.
- ``decision``: the answer, and the one place that makes it legal.
- ``easy``, ``normal``, ``hard``, ``baselines``: the levels; ``policy.decide`` picks one.
- ``preflop``, ``strength``, ``model``, ``ranges``, ``range_equity``: hand strength, a model of
  a reasonable opponent, ranges narrowed by the action, equity against them.
- ``arena``, ``stats``, ``ladder``: matches between players with duplicate seating, their
  intervals, and the ladder of docs/ai.md.

The ai service's protobuf messages <-> these types: ``libs.aiproto`` (infrastructure; nothing
here imports protobuf).
"""

from .decision import Decision, clock_action, is_legal, legal
from .policy import DEFAULT_BUDGET, Level, decide, warm_up
from .view import Move, Options, PublicAction, SeatView, public_action, public_actions, seat_view

__all__ = [
    "DEFAULT_BUDGET",
    "Decision",
    "Level",
    "Move",
    "Options",
    "PublicAction",
    "SeatView",
    "clock_action",
    "decide",
    "is_legal",
    "legal",
    "public_action",
    "public_actions",
    "seat_view",
    "warm_up",
]
