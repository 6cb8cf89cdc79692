"""The error codes each service may answer with, and the status each is meant to get: the
table tests/services/test_error_codes.py checks the code against (a new code needs its line here,
with the status a caller should see)."""

from __future__ import annotations

import grpc

from tests.services.extras_codes import EXTRAS_CODES, EXTRAS_SOURCES
from tests.services.seat_option_codes import SEAT_OPTION_CODES

S = grpc.StatusCode
INVALID, PRECONDITION, NOT_FOUND = S.INVALID_ARGUMENT, S.FAILED_PRECONDITION, S.NOT_FOUND
UNIMPLEMENTED = {"NOT_IMPLEMENTED": S.UNIMPLEMENTED}

#: The modules each service runs that build coded errors, and the status each code is meant to
#: get. ``libs/poker/engine.py``: the hand's rules, whose errors reach the table's callers.
SERVICES: dict[str, tuple[list[str], dict[str, grpc.StatusCode]]] = {
    "table": (
        [
            "services/table",
            "libs/table",
            "libs/tableproto",
            "libs/eventstore",
            "libs/poker/engine.py",
            *EXTRAS_SOURCES,
        ],
        {
            # the request
            "INVALID_REQUEST": INVALID,
            "INVALID_TABLE_ID": INVALID,
            "INVALID_IDEMPOTENCY_KEY": INVALID,
            "INVALID_TABLE_CONFIG": INVALID,
            "UNKNOWN_ACTION": INVALID,
            "UNKNOWN_COMMAND": INVALID,
            "UNKNOWN_PLAYER": INVALID,
            "NO_SUCH_SEAT": INVALID,
            "BUY_IN_OUT_OF_RANGE": INVALID,
            "BAD_CARDS": INVALID,
            "DUPLICATE_CARD": INVALID,
            "WRONG_CARDS_SHOWN": INVALID,
            # the table
            "TABLE_NOT_FOUND": NOT_FOUND,
            "ALREADY_OPEN": PRECONDITION,
            "TABLE_CLOSED": PRECONDITION,
            "SEAT_TAKEN": PRECONDITION,
            "ALREADY_SEATED": PRECONDITION,
            "NOT_SEATED": PRECONDITION,
            "ALREADY_SITTING_OUT": PRECONDITION,
            "NOT_SITTING_OUT": PRECONDITION,
            "NOT_ENOUGH_PLAYERS": PRECONDITION,
            "HAND_IN_PROGRESS": PRECONDITION,
            "NO_HAND": PRECONDITION,
            "NOT_IN_HAND": PRECONDITION,
            "NOT_A_TOURNAMENT_TABLE": PRECONDITION,
            "TOURNAMENT_TABLE": PRECONDITION,
            "NOT_RELEASED": PRECONDITION,
            # the hand (libs.poker)
            "WRONG_HAND": PRECONDITION,
            "HAND_OVER": PRECONDITION,
            "WRONG_PHASE": PRECONDITION,
            "NOT_YOUR_TURN": PRECONDITION,
            "ALREADY_DEALT": PRECONDITION,
            "CANNOT_FOLD": PRECONDITION,
            "CANNOT_CHECK": PRECONDITION,
            "NOTHING_TO_CALL": PRECONDITION,
            "CANNOT_RAISE": PRECONDITION,
            "CAP_REACHED": PRECONDITION,
            "ACTION_NOT_REOPENED": PRECONDITION,
            "BELOW_MINIMUM": PRECONDITION,
            "ABOVE_MAXIMUM": PRECONDITION,
            "ABOVE_STACK": PRECONDITION,
            "CANNOT_MUCK": PRECONDITION,
            # serving the table
            "NOT_OWNER": S.UNAVAILABLE,
            "CONCURRENCY_CONFLICT": S.ABORTED,
            "STORE_UNAVAILABLE": S.UNAVAILABLE,
            **EXTRAS_CODES,
            **SEAT_OPTION_CODES,
        },
    ),
    "tournament": (
        ["services/tournament", "libs/tournament", "libs/eventstore/aggregates.py"],
        {
            # the settings and the commands
            "INVALID_TOURNAMENT_CONFIG": INVALID,
            "INVALID_STRUCTURE": INVALID,
            "INVALID_PAYOUTS": INVALID,
            "UNKNOWN_PRESET": INVALID,
            "INVALID_COMMAND": INVALID,
            "INVALID_HAND_RESULT": INVALID,
            "CHIPS_NOT_CONSERVED": INVALID,
            "NOT_AT_TABLE": INVALID,
            # what does not exist, or exists already
            "TOURNAMENT_NOT_FOUND": NOT_FOUND,
            "NOT_REGISTERED": NOT_FOUND,
            "TABLE_NOT_FOUND": NOT_FOUND,
            "MOVE_NOT_FOUND": NOT_FOUND,
            "PAYMENT_NOT_FOUND": NOT_FOUND,
            "ALREADY_CREATED": S.ALREADY_EXISTS,
            "ALREADY_REGISTERED": S.ALREADY_EXISTS,
            # refused by the tournament now
            "REGISTRATION_CLOSED": PRECONDITION,
            "TOURNAMENT_FULL": PRECONDITION,
            "UNREGISTRATION_CLOSED": PRECONDITION,
            "NOT_STARTED": PRECONDITION,
            "ALREADY_STARTED": PRECONDITION,
            "NOT_TIME_YET": PRECONDITION,
            "NOT_FULL": PRECONDITION,
            "TOURNAMENT_OVER": PRECONDITION,
            "HAND_NOT_RELEASED": PRECONDITION,
            "PLAYER_ELIMINATED": PRECONDITION,
            "REBUY_CLOSED": PRECONDITION,
            "REBUY_NOT_ALLOWED": PRECONDITION,
            "NO_REBUY_PENDING": PRECONDITION,
            "ADD_ON_CLOSED": PRECONDITION,
            "ADD_ON_TAKEN": PRECONDITION,
            # serving it
            "LOBBY_UNAVAILABLE": S.UNAVAILABLE,
            "CONCURRENCY_CONFLICT": S.ABORTED,
        },
    ),
    "lobby": (
        [
            "services/lobby",
            "libs/lobby",
            "libs/eventstore/aggregates.py",
            "libs/tableproto/config.py",
            "libs/table/config.py",
        ],
        {
            "INVALID_USERNAME": INVALID,
            "WEAK_PASSWORD": INVALID,
            "INVALID_DISPLAY_NAME": INVALID,
            "INVALID_TABLE_NAME": INVALID,
            "INVALID_BOTS": INVALID,
            "INVALID_TABLE_CONFIG": INVALID,
            "INVALID_PAGE_TOKEN": INVALID,
            "USERNAME_TAKEN": S.ALREADY_EXISTS,
            "INVALID_CREDENTIALS": S.UNAUTHENTICATED,
            "INVALID_TOKEN": S.UNAUTHENTICATED,
            "PLAYER_NOT_FOUND": NOT_FOUND,
            "TABLE_NOT_FOUND": NOT_FOUND,
            # wallets and seating (sagas); the table's codes when the lobby can tell first
            "NO_SUCH_SEAT": INVALID,
            "BUY_IN_OUT_OF_RANGE": INVALID,
            "NOT_ENOUGH_CHIPS": PRECONDITION,
            "ALREADY_REGISTERED": PRECONDITION,
            # tournament money (PayTournament, CreditTournament)
            "INVALID_AMOUNT": INVALID,
            "INVALID_REASON": INVALID,
            "TABLE_CLOSED": PRECONDITION,
            "TOO_MANY_OPEN_TABLES": PRECONDITION,
            "NOT_TABLE_OWNER": S.PERMISSION_DENIED,
            "BUY_IN_IN_PROGRESS": S.ABORTED,
            "BUY_IN_PENDING": S.UNAVAILABLE,
            "TABLE_UNAVAILABLE": S.UNAVAILABLE,
            "CONCURRENCY_CONFLICT": S.ABORTED,
            "AUDIT_UNAVAILABLE": S.UNAVAILABLE,
            # limits per client address and username (retry hint in the trailers)
            "TOO_MANY_LOGIN_FAILURES": S.RESOURCE_EXHAUSTED,
            "TOO_MANY_HASHES": S.RESOURCE_EXHAUSTED,
            "TOO_MANY_GUESTS": S.RESOURCE_EXHAUSTED,
            "TOO_MANY_ACCOUNTS": S.RESOURCE_EXHAUSTED,
            # private tables and waiting lists (docs/private-tables.md)
            "WRONG_TABLE_PASSWORD": S.PERMISSION_DENIED,
            "AWAITING_APPROVAL": PRECONDITION,
            "NO_SEAT_REQUEST": NOT_FOUND,
            "WAITLISTED": PRECONDITION,
            "SEAT_OFFERED_TO_ANOTHER": PRECONDITION,
            "NOT_WAITING": NOT_FOUND,
            "WAITLIST_FULL": S.RESOURCE_EXHAUSTED,
            # players' notes (libs/lobby/notes.py)
            "NOTE_EMPTY": INVALID,
            "NOTE_TOO_LONG": INVALID,
            "NOTE_BAD_CHARACTERS": INVALID,
            "NOTE_ABOUT_SELF": INVALID,
            "TOO_MANY_NOTES": PRECONDITION,
        },
    ),
    "dealer": (
        ["services/dealer"],
        {
            "INVALID_DECK_ID": INVALID,
            "INVALID_CARD_INDEX": INVALID,
            "DUPLICATE_CARD_INDEX": INVALID,
            "HAND_HAS_DECK": S.ALREADY_EXISTS,
            "POSITION_DEALT": PRECONDITION,
            "DECK_CLOSED": PRECONDITION,
            "DECK_NOT_FOUND": NOT_FOUND,
            "DEPENDENCY_DOWN": S.UNAVAILABLE,  # the seed store (Redis) does not answer
        },
    ),
    "evaluator": (
        ["services/evaluator"],
        {
            "INVALID_VARIANT": INVALID,
            "BAD_CARDS": INVALID,
            "DUPLICATE_CARD": INVALID,
            "INVALID_CONTENDERS": INVALID,
            "INVALID_ODD_CHIP_ORDER": INVALID,
            "INVALID_POT": INVALID,
            "INVALID_EQUITY_REQUEST": INVALID,
            "BATCH_TOO_LARGE": INVALID,
        },
    ),
    "gateway": (
        ["services/gateway", "libs/chat"],
        {
            "MISSING_TOKEN": S.UNAUTHENTICATED,
            "NO_TOURNAMENT_SERVICE": S.UNAVAILABLE,  # a gateway run without one
            "MALFORMED_TOKEN": S.UNAUTHENTICATED,
            "INVALID_TOKEN": S.UNAUTHENTICATED,
            "TOKEN_EXPIRED": S.UNAUTHENTICATED,
            "TOKEN_REVOKED": S.UNAUTHENTICATED,
            "NOT_YOUR_SEAT": S.PERMISSION_DENIED,
            "TABLE_NOT_FOUND": NOT_FOUND,
            "INVALID_PAGE_TOKEN": INVALID,
            # a WatchTable stream that fell behind: resume with from_sequence
            "FELL_BEHIND": S.ABORTED,
            # limits per player or peer (retry hint in the trailers, but for streams)
            "RATE_LIMITED": S.RESOURCE_EXHAUSTED,
            "TOO_MANY_WATCHES": S.RESOURCE_EXHAUSTED,
            "TOO_MANY_WATCHED_TOURNAMENTS": S.RESOURCE_EXHAUSTED,
            "TOO_MANY_CALLS": S.RESOURCE_EXHAUSTED,
            # chat (docs/chat.md)
            "CHAT_EMPTY": INVALID,
            "CHAT_TOO_LONG": INVALID,
            "CHAT_LINK": INVALID,
            "CHAT_BAD_CHARACTERS": INVALID,
            "CHAT_MUTE_SELF": INVALID,
            "CHAT_BAD_DURATION": INVALID,
            "CHAT_TOO_FAST": S.RESOURCE_EXHAUSTED,
            "CHAT_REPEATED": S.RESOURCE_EXHAUSTED,
            "CHAT_TOO_MANY_MUTES": S.RESOURCE_EXHAUSTED,
            "CHAT_MUTED": S.PERMISSION_DENIED,
            "CHAT_REMOVED": S.PERMISSION_DENIED,
            "NOT_A_MODERATOR": S.PERMISSION_DENIED,
            "UNKNOWN_PLAYER": NOT_FOUND,
            **UNIMPLEMENTED,
        },
    ),
    "ai": (
        ["services/ai", "libs/aiproto"],
        {
            "AMOUNT_OUT_OF_RANGE": INVALID,
            "BAD_ACTION": INVALID,
            "BAD_BOARD": INVALID,
            "BAD_CARDS": INVALID,
            "BAD_DIFFICULTY": INVALID,
            "BAD_HOLE_CARDS": INVALID,
            "BAD_LEGAL_ACTIONS": INVALID,
            "BAD_SEATS": INVALID,
            "BAD_STREET": INVALID,
            "BAD_STRUCTURE": INVALID,
            "BAD_VARIANT": INVALID,
            "DUPLICATE_CARD": INVALID,
            "DUPLICATE_SEAT": INVALID,
            "MISSING_FIELD": INVALID,
            "NOT_YOUR_TURN": INVALID,
        },
    ),
}
