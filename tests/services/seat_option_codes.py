"""The intended statuses of the codes the blind settings raise at the table (sit out next big
blind, wait for the big blind, auto-post blinds: libs/table/seat_options.py and
libs/table/planning.py), for tests/services/test_error_codes.py."""

from __future__ import annotations

import grpc

S = grpc.StatusCode

SEAT_OPTION_CODES: dict[str, grpc.StatusCode] = {
    "NO_SEAT_OPTION": S.INVALID_ARGUMENT,  # a call that sets nothing
    "NOT_AT_TOURNAMENT": S.FAILED_PRECONDITION,  # sitting out of blinds at a tournament
    "NO_BLIND_DUE": S.FAILED_PRECONDITION,  # a blind answer when nothing is asked
    "BLIND_PENDING": S.FAILED_PRECONDITION,  # a hand started by hand while a blind is asked
}
