"""A username's credentials (stream ``holdem.lobby.account.<hash of the lower-cased name>``): the
first commit on that stream claims the username (expected sequence 0), so two registrations of
one name can never both succeed. It names the player id, whose own stream (libs/lobby/wallet.py)
is written next; a registration cut short between the two is completed by the next attempt."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from libs.errors import AlreadyExists, echo
from libs.lobby.codec import decode_events, decode_state, encode_events, encode_state

USERNAME_TAKEN = "USERNAME_TAKEN"


@dataclass(frozen=True)
class AccountOpened:
    player_id: str
    username: str
    display_name: str
    guest: bool
    password_hash: str  # argon2id encoded hash (parameters included); "" for guests
    at: float
    bot: bool = False


EVENT_TYPES: dict[str, type[AccountOpened]] = {"AccountOpened": AccountOpened}


@dataclass
class Account:
    key: str
    player_id: str = ""
    username: str = ""
    display_name: str = ""
    guest: bool = False
    password_hash: str = ""
    created_at: float = 0.0
    bot: bool = False

    @property
    def exists(self) -> bool:
        return bool(self.player_id)


def account_key(username: str) -> str:
    """Stream id of a username's account: case-insensitive, safe as a subject token."""
    return hashlib.sha256(username.strip().lower().encode()).hexdigest()[:40]


def initial(key: str) -> Account:
    return Account(key)


def evolve(state: Account, event: AccountOpened) -> Account:
    return Account(
        state.key,
        event.player_id,
        event.username,
        event.display_name,
        event.guest,
        event.password_hash,
        event.at,
        event.bot,
    )


def open_account(
    state: Account,
    player_id: str,
    username: str,
    display_name: str,
    guest: bool,
    password_hash: str,
    now: float,
    bot: bool = False,
) -> list[AccountOpened]:
    if state.exists:
        raise AlreadyExists(USERNAME_TAKEN, f"username {echo(username)} is taken")
    return [AccountOpened(player_id, username, display_name, guest, password_hash, now, bot)]


def encode(events: list[AccountOpened]) -> bytes:
    return encode_events(events)


def decode(data: bytes) -> list[AccountOpened]:
    return decode_events(data, EVENT_TYPES)


def encode_account(a: Account) -> bytes:
    return encode_state(a)


def decode_account(data: bytes) -> Account:
    return decode_state(data, Account)
