"""Who may not speak or read. Two kinds:

- a player's own mutes: the players whose messages they no longer see (anywhere), at most
  ``MAX_MUTES``; muting oneself is refused (INVALID_ARGUMENT);
- a moderator's sanction of a player in a scope (``lobby`` or ``table.<id>``, rooms.py) until a
  time: ``MUTE`` (may read, may not post) or ``REMOVE`` (neither). ``RESTORE`` lifts it.

Pure: what is kept is plain data (a sorted list of ids; a sanction's action and end), encoded
by the gateway into its buckets."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from libs.errors import InvalidArgument, PermissionDenied, ResourceExhausted

MUTE_SELF = "CHAT_MUTE_SELF"
TOO_MANY_MUTES = "CHAT_TOO_MANY_MUTES"
CHAT_MUTED = "CHAT_MUTED"
CHAT_REMOVED = "CHAT_REMOVED"
MAX_MUTES = 500
#: Longest sanction (a week) and the one given when none is said (an hour).
MAX_SANCTION_SECONDS = 7 * 24 * 3600
DEFAULT_SANCTION_SECONDS = 3600


class Action(enum.Enum):
    MUTE = "mute"
    REMOVE = "remove"
    RESTORE = "restore"


def muted(current: list[str], viewer: str, target: str, mute: bool) -> list[str]:
    """``viewer``'s mutes after muting (or unmuting) ``target``."""
    if target == viewer:
        raise InvalidArgument(MUTE_SELF, "you cannot mute yourself")
    kept = set(current)
    if mute:
        kept.add(target)
    else:
        kept.discard(target)
    if len(kept) > MAX_MUTES:
        raise ResourceExhausted(
            TOO_MANY_MUTES, f"at most {MAX_MUTES} players muted: unmute someone first"
        )
    return sorted(kept)


@dataclass(frozen=True)
class Sanction:
    action: Action
    until: float  # seconds since the epoch

    def active(self, now: float) -> bool:
        return self.action is not Action.RESTORE and now < self.until


def sanction(action: Action, duration_seconds: int, now: float) -> Sanction:
    """The sanction a moderator gives for ``duration_seconds`` (0: the default hour)."""
    if not 0 <= duration_seconds <= MAX_SANCTION_SECONDS:
        raise InvalidArgument(
            "CHAT_BAD_DURATION",
            f"a sanction lasts at most {MAX_SANCTION_SECONDS} s, not {duration_seconds}",
        )
    seconds = duration_seconds or DEFAULT_SANCTION_SECONDS
    return Sanction(action, 0.0 if action is Action.RESTORE else now + seconds)


def may_post(found: Sanction | None, now: float) -> None:
    """Refuse a post under an active sanction (PERMISSION_DENIED saying until when)."""
    if found is None or not found.active(now):
        return
    left = int(found.until - now) + 1
    if found.action is Action.REMOVE:
        raise PermissionDenied(
            CHAT_REMOVED, f"a moderator removed you from this chat for {left} s more"
        )
    raise PermissionDenied(CHAT_MUTED, f"a moderator muted you in this chat for {left} s more")


def may_read(found: Sanction | None, now: float) -> None:
    """Refuse reading under an active removal."""
    if found is not None and found.active(now) and found.action is Action.REMOVE:
        left = int(found.until - now) + 1
        raise PermissionDenied(
            CHAT_REMOVED, f"a moderator removed you from this chat for {left} s more"
        )
