"""Table use cases (to come): load a table (Redis snapshot + JetStream tail), run the engine's
``decide`` on a command, append the resulting commit with the expected sequence, ``evolve`` the
cached state, publish the public projection, ask the ai service when a bot is to act.

Not implemented in this release: every TableService method answers UNIMPLEMENTED.
"""

from __future__ import annotations

from libs.platform.errors import ErrorKind, ErrorMapper

#: Why the methods answer UNIMPLEMENTED, for the status message.
NOT_YET = "it arrives with the table aggregate and the event store (a later issue)"

#: The rules engine's errors (libs.poker.errors), mapped by class name so this service does not
#: depend on the engine's module layout for status codes. Engine errors also carry ``kind``
#: ("failed_precondition" / "invalid_argument"), which the mapper honours; this table is the
#: fallback, and ENGINE_ERROR_CODES refines single stable codes when a better status exists.
ENGINE_ERROR_TYPES: dict[str, ErrorKind] = {
    "IllegalAction": ErrorKind.PRECONDITION,  # not allowed now: out of turn, after the cap, ...
    "InvalidCommand": ErrorKind.INVALID_ARGUMENT,  # malformed: bad cards, unknown player, ...
    "PokerError": ErrorKind.PRECONDITION,
}
ENGINE_ERROR_CODES: dict[str, ErrorKind] = {}


def error_mapper() -> ErrorMapper:
    mapper = ErrorMapper()
    mapper.register_types(ENGINE_ERROR_TYPES)
    mapper.register_codes(ENGINE_ERROR_CODES)
    return mapper
