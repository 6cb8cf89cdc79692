"""The tournament's stable error codes and the one helper that quotes what a caller sent.

Every refusal is a ``libs.errors`` kind carrying one of these codes: ``InvalidArgument`` for a
malformed request (a structure nobody could play, a hand result that creates chips),
``PreconditionFailed`` for a well-formed one the tournament's state refuses now (registration
closed, a rebuy outside its period), ``NotFound`` for an id the tournament does not know,
``AlreadyExists`` for a second registration of the same player. A refused command changes
nothing: ``decide`` raises before any event exists.
"""

from __future__ import annotations

# Settings and structures (InvalidArgument).
INVALID_STRUCTURE = "INVALID_STRUCTURE"  # a blind structure nobody could play
INVALID_PAYOUTS = "INVALID_PAYOUTS"  # a payout table that does not pay 100 % in order
INVALID_TOURNAMENT_CONFIG = "INVALID_TOURNAMENT_CONFIG"
UNKNOWN_PRESET = "UNKNOWN_PRESET"
INVALID_HAND_RESULT = "INVALID_HAND_RESULT"  # a player twice, a negative stack, ...
CHIPS_NOT_CONSERVED = "CHIPS_NOT_CONSERVED"  # a hand's stacks do not add up to its start
INVALID_COMMAND = "INVALID_COMMAND"  # an empty key or id, a negative time, ...

# Lifecycle (PreconditionFailed).
TOURNAMENT_NOT_FOUND = "TOURNAMENT_NOT_FOUND"  # NotFound: never created
ALREADY_CREATED = "ALREADY_CREATED"  # AlreadyExists: the id is taken by another tournament
REGISTRATION_CLOSED = "REGISTRATION_CLOSED"
TOURNAMENT_FULL = "TOURNAMENT_FULL"
ALREADY_REGISTERED = "ALREADY_REGISTERED"  # AlreadyExists
NOT_REGISTERED = "NOT_REGISTERED"  # NotFound: no such entrant
UNREGISTRATION_CLOSED = "UNREGISTRATION_CLOSED"  # after the start nobody takes their buy-in back
NOT_STARTED = "NOT_STARTED"
ALREADY_STARTED = "ALREADY_STARTED"
NOT_TIME_YET = "NOT_TIME_YET"  # a scheduled start asked for before its time
NOT_FULL = "NOT_FULL"  # a sit & go starts when its seats fill, not before
TOURNAMENT_OVER = "TOURNAMENT_OVER"  # finished or cancelled

# Play (PreconditionFailed unless said otherwise).
TABLE_NOT_FOUND = "TABLE_NOT_FOUND"  # NotFound
HAND_NOT_RELEASED = "HAND_NOT_RELEASED"  # a result for a hand the tournament did not deal
NOT_AT_TABLE = "NOT_AT_TABLE"  # InvalidArgument: a result names a player seated elsewhere
MOVE_NOT_FOUND = "MOVE_NOT_FOUND"  # NotFound
PAYMENT_NOT_FOUND = "PAYMENT_NOT_FOUND"  # NotFound
PLAYER_ELIMINATED = "PLAYER_ELIMINATED"
REBUY_CLOSED = "REBUY_CLOSED"  # no rebuys here, or outside the period
REBUY_NOT_ALLOWED = "REBUY_NOT_ALLOWED"  # the stack is above the threshold, or none left
NO_REBUY_PENDING = "NO_REBUY_PENDING"  # declining a rebuy nobody offered
ADD_ON_CLOSED = "ADD_ON_CLOSED"
ADD_ON_TAKEN = "ADD_ON_TAKEN"
