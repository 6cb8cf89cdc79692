"""The checks every command handler starts with: ids and times well formed, the tournament
created and not over, a saga's key seen before (a retry decides nothing)."""

from __future__ import annotations

import math

from libs.errors import InvalidArgument, NotFound, PreconditionFailed, echo

from . import errors as TE
from .state import Status, TournamentState

MAX_ID = 128


def check_id(name: str, value: str) -> None:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_ID:
        raise InvalidArgument(TE.INVALID_COMMAND, f"{name} must be 1..{MAX_ID} characters")


def check_time(now: float) -> None:
    if not isinstance(now, int | float) or not math.isfinite(now) or now < 0:
        raise InvalidArgument(TE.INVALID_COMMAND, "now must be a time in seconds (>= 0)")


def require_created(s: TournamentState) -> None:
    if s.status is Status.NEW:
        raise NotFound(TE.TOURNAMENT_NOT_FOUND, f"no tournament {echo(s.tournament_id)}")


def require_not_over(s: TournamentState) -> None:
    if s.over:
        raise PreconditionFailed(TE.TOURNAMENT_OVER, f"the tournament is {s.status.value}")


def seen_key(s: TournamentState, key: str, player_id: str) -> bool:
    """Whether ``key`` was decided already (for this player: a retry, which decides nothing)."""
    owner = s.keys.get(key)
    if owner is None:
        return False
    if owner != player_id:
        raise InvalidArgument(TE.INVALID_COMMAND, "this key was used for another player")
    return True
