"""The intended statuses of the codes run it twice, the rabbit hunt, the straddle setting and
bomb pots raise at the table (libs/table/extras.py, bombpots.py, libs/poker/runs.py), for
tests/services/test_error_codes.py."""

from __future__ import annotations

import grpc

S = grpc.StatusCode

#: The modules that raise them, beside the table's own.
EXTRAS_SOURCES = ["libs/poker/runs.py"]

EXTRAS_CODES: dict[str, grpc.StatusCode] = {
    "RUN_IT_TIMES_OUT_OF_RANGE": S.INVALID_ARGUMENT,
    "BAD_RUN_COUNT": S.INVALID_ARGUMENT,
    "RUN_IT_NOT_OFFERED": S.FAILED_PRECONDITION,
    "NOT_ASKED": S.FAILED_PRECONDITION,
    "RABBIT_HUNT_OFF": S.FAILED_PRECONDITION,
    "RABBIT_HUNT_RIVER_REACHED": S.FAILED_PRECONDITION,
    "SEED_NOT_REVEALED": S.FAILED_PRECONDITION,
    "RABBIT_HUNT_WINDOW": S.FAILED_PRECONDITION,
    # the straddle setting and bomb pots (libs/table/bombpots.py, planning.py)
    "STRADDLE_NOT_ALLOWED": S.FAILED_PRECONDITION,
    "BOMB_POT_OFF": S.FAILED_PRECONDITION,
    "BOMB_POT_NO_VOTE": S.FAILED_PRECONDITION,
    "BOMB_POT_NOT_ASKED": S.FAILED_PRECONDITION,
    "BOMB_POT_VOTE_OPEN": S.FAILED_PRECONDITION,
}
