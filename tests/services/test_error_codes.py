"""Every error code a service can answer with maps to the status it is meant to get.

The codes are collected from the code itself: every place a coded error (``DomainError`` or the
engine's ``PokerError`` families, or an exception class with a fixed ``code``) is built in the
modules a service runs, with the code it is given. Each must be UPPER_SNAKE, listed below with
its intended status, and mapped to that status by the service's error mapper. A new code without
an entry here fails; so does an entry no code path raises any more, and a mapper refinement that
no raised code uses (it could never match).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import pytest

from libs.errors import DomainError
from libs.platform.errors import ErrorMapper
from libs.poker.errors import PokerError
from tests.services.extras_codes import EXTRAS_CODES, EXTRAS_SOURCES

ROOT = Path(__file__).resolve().parents[2]
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")

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


@dataclass(frozen=True)
class Raised:
    code: str
    error: type[BaseException]
    where: str


def _module(path: Path) -> ModuleType:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return importlib.import_module(name.removesuffix(".__init__"))


def _resolve(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """The value of a name or dotted name in a module's namespace (else a LookupError)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in namespace:
            raise LookupError(node.id)
        return namespace[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_resolve(node.value, namespace), node.attr)
    raise LookupError(ast.unparse(node))


def _coded(cls: object) -> bool:
    if not isinstance(cls, type) or not issubclass(cls, BaseException):
        return False
    return issubclass(cls, (DomainError, PokerError)) or isinstance(getattr(cls, "code", None), str)


def raised_codes(sources: list[str]) -> list[Raised]:
    """Every coded error built in ``sources`` (files or folders), with its code."""
    files = sorted(
        f
        for source in sources
        for f in ((ROOT / source).rglob("*.py") if (ROOT / source).is_dir() else [ROOT / source])
    )
    found: list[Raised] = []
    for path in files:
        namespace = vars(_module(path))
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            try:
                cls = _resolve(node.func, namespace)
            except (LookupError, AttributeError):
                continue  # a local name or a method: not an error class
            if not _coded(cls):
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            fixed = next((vars(c)["code"] for c in cls.__mro__ if "code" in vars(c)), None)
            if isinstance(fixed, str):
                found.append(Raised(fixed, cls, where))
                continue
            argument = (
                node.args[0]
                if node.args
                else next((k.value for k in node.keywords if k.arg == "code"), None)
            )
            assert argument is not None, f"{where}: a coded error without a code"
            for expr, home in _code_expressions(argument, tree, namespace):
                try:
                    code = _resolve(expr, home)
                except (LookupError, AttributeError):
                    pytest.fail(f"{where}: the code {ast.unparse(expr)} is not a constant")
                assert isinstance(code, str), f"{where}: the code is not a string"
                found.append(Raised(code, cls, where))
    return found


def _code_expressions(
    argument: ast.expr, tree: ast.Module, namespace: dict[str, Any]
) -> list[tuple[ast.expr, dict[str, Any]]]:
    """The expressions a code argument comes from, each with the namespace it is read in:
    itself, or for ``Error(*reason)`` with ``reason = helper(...)`` the first item of every
    tuple ``helper`` returns (``helper`` defined in this module or imported into it)."""
    if not isinstance(argument, ast.Starred):
        return [(argument, namespace)]
    name = ast.unparse(argument.value)
    helpers = {
        node.value.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and [ast.unparse(t) for t in node.targets] == [name]
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
    }
    found: list[tuple[ast.expr, dict[str, Any]]] = []
    for helper in sorted(helpers):
        function = namespace.get(helper)
        home = inspect.getmodule(function)
        source = ast.parse(inspect.getsource(home)) if home is not None else tree
        found += [
            (ret.value.elts[0], vars(home) if home is not None else namespace)
            for node in ast.walk(source)
            if isinstance(node, ast.FunctionDef) and node.name == getattr(function, "__name__", "")
            for ret in ast.walk(node)
            if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple)
        ]
    assert found, f"cannot tell where the code {ast.unparse(argument)} comes from"
    return found


def mapper_of(service: str) -> ErrorMapper:
    server = importlib.import_module(f"services.{service}.server")
    factory = getattr(server, "error_mapper", ErrorMapper)
    mapper = factory()
    assert isinstance(mapper, ErrorMapper)
    return mapper


def status_of(mapper: ErrorMapper, raised: Raised) -> grpc.StatusCode:
    error = raised.error.__new__(raised.error)  # its own __init__ may take other arguments
    error.code = raised.code  # type: ignore[attr-defined]
    error.message = "m"  # type: ignore[attr-defined]
    return mapper.to_grpc(error).status


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_every_code_a_service_raises_maps_to_its_intended_status(service: str) -> None:
    sources, intended = SERVICES[service]
    raised = raised_codes(sources)
    mapper = mapper_of(service)
    assert raised, f"no coded errors found for {service}"
    for r in raised:
        assert UPPER_SNAKE.match(r.code), f"{r.where}: {r.code!r} is not UPPER_SNAKE"
        assert r.code in intended, f"{r.where}: {r.code} has no intended status in this test"
        assert status_of(mapper, r) == intended[r.code], f"{r.where}: {r.code}"
    codes = {r.code for r in raised}
    assert set(intended) <= codes, f"listed but never raised: {sorted(set(intended) - codes)}"
    assert set(mapper.codes) <= codes, "the mapper refines a code nothing raises"
    assert not mapper.types, "the mapper refines error classes: every coded error has a kind"
