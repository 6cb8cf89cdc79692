"""The table's stable error codes. The table raises the engine's error classes
(``libs.poker.errors``): ``IllegalAction`` for a command the table's state does not allow now,
``InvalidCommand`` for a malformed one; the engine's own codes come from there too."""

from __future__ import annotations

TABLE_NOT_FOUND = "TABLE_NOT_FOUND"  # never opened: no such table
TABLE_CLOSED = "TABLE_CLOSED"
ALREADY_OPEN = "ALREADY_OPEN"
SEAT_TAKEN = "SEAT_TAKEN"  # the seat asked for, or every seat when none was named
NO_SUCH_SEAT = "NO_SUCH_SEAT"
ALREADY_SEATED = "ALREADY_SEATED"
NOT_SEATED = "NOT_SEATED"
BUY_IN_OUT_OF_RANGE = "BUY_IN_OUT_OF_RANGE"
NOT_IN_HAND = "NOT_IN_HAND"
HAND_IN_PROGRESS = "HAND_IN_PROGRESS"
NO_HAND = "NO_HAND"
NOT_ENOUGH_PLAYERS = "NOT_ENOUGH_PLAYERS"
ALREADY_SITTING_OUT = "ALREADY_SITTING_OUT"
NOT_SITTING_OUT = "NOT_SITTING_OUT"
UNKNOWN_ACTION = "UNKNOWN_ACTION"
NOT_A_TOURNAMENT_TABLE = "NOT_A_TOURNAMENT_TABLE"
# a tournament's table refuses what only a cash table does: wallet chips in or out, seat changes
TOURNAMENT_TABLE = "TOURNAMENT_TABLE"
RUN_IT_TIMES_OUT_OF_RANGE = "RUN_IT_TIMES_OUT_OF_RANGE"
RABBIT_HUNT_OFF = "RABBIT_HUNT_OFF"  # the table does not offer the rabbit hunt
RABBIT_HUNT_RIVER_REACHED = "RABBIT_HUNT_RIVER_REACHED"  # every card of the board was dealt
SEED_NOT_REVEALED = "SEED_NOT_REVEALED"  # the last hand's deck is not open yet: try again
RABBIT_HUNT_WINDOW = "RABBIT_HUNT_WINDOW"  # the next hand waits a moment for a rabbit hunt
NOT_RELEASED = "NOT_RELEASED"  # a tournament's table waits for its next hand to be released
STRADDLE_NOT_ALLOWED = "STRADDLE_NOT_ALLOWED"  # the table does not allow the straddle
BOMB_POT_OFF = "BOMB_POT_OFF"  # the table does not deal bomb pots by vote
BOMB_POT_NO_VOTE = "BOMB_POT_NO_VOTE"  # refusing a bomb pot nobody proposed
BOMB_POT_NOT_ASKED = "BOMB_POT_NOT_ASKED"  # the caller is not one of the vote's players
BOMB_POT_VOTE_OPEN = "BOMB_POT_VOTE_OPEN"  # the next hand waits for the bomb-pot vote
NO_SEAT_OPTION = "NO_SEAT_OPTION"  # a seat-options call that sets nothing
NOT_AT_TOURNAMENT = "NOT_AT_TOURNAMENT"  # a cash-table setting asked for at a tournament's table
NO_BLIND_DUE = "NO_BLIND_DUE"  # a blind answer when no blind is asked of the player
BLIND_PENDING = "BLIND_PENDING"  # the next hand waits for a player to post a blind or sit out
