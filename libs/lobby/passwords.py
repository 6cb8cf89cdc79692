"""Passwords: argon2id through argon2-cffi (the encoded hash carries its own parameters, so they
can be raised later and old hashes still verify), and the minimum strength a new password needs.

Passwords never reach a log: only this module and the lobby's use cases hold them, and only the
hash is stored.
"""

from __future__ import annotations

import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from libs.errors import InvalidArgument

WEAK_PASSWORD = "WEAK_PASSWORD"
MIN_LENGTH = 8
MAX_LENGTH = 256

# OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane).
HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1, hash_len=32, salt_len=16)

#: The most common passwords of public breach lists, compared case-insensitively.
COMMON = frozenset(
    """
    12345678 123456789 1234567890 12345678910 password password1 password123 passw0rd qwertyui
    qwertyuiop qwerty123 qwerty12 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx abcd1234 abcdefgh
    11111111 00000000 22222222 88888888 87654321 98765432 11223344 12341234 123123123 iloveyou
    sunshine princess football baseball superman batman trustno1 welcome1 welcome123 letmein1
    letmein123 admin123 administrator changeme monkey123 dragon123 master123 michelle jennifer
    computer internet starwars whatever corvette mercedes liverpool chelsea1 arsenal1 pokerface
    poker123 holdem123 texasholdem password! p@ssw0rd p@ssword qwerty1234 asdfghjkl asdfasdf
    zxcvbnm1 zxcvbnma aaaaaaaa 1234qwer q1w2e3r4 q1w2e3r4t5 secret123 google123 lovelove
    loveyou1 iloveyou1 shadow12 hello123 freedom1 whatever1 ninja123 master12
    """.split()  # noqa: SIM905
)


def check_strength(password: str) -> None:
    """Refuse (INVALID_ARGUMENT, WEAK_PASSWORD) a password too short or long, made of control,
    format or only blank characters, of one repeated character, or on the common list."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise InvalidArgument(
            WEAK_PASSWORD, f"a password has {MIN_LENGTH} to {MAX_LENGTH} characters"
        )
    if any(unicodedata.category(c)[0] == "C" for c in password):
        raise InvalidArgument(WEAK_PASSWORD, "a password has no control or format characters")
    if not password.strip() or len(set(password)) < 3:
        raise InvalidArgument(WEAK_PASSWORD, "this password is too easy to guess")
    if password.lower() in COMMON:
        raise InvalidArgument(WEAK_PASSWORD, "this password is one of the most common ones")


def hash_password(password: str) -> str:
    """The argon2id encoded hash (salt and parameters included). CPU-bound: run in a thread."""
    return HASHER.hash(password)


def verify_password(encoded: str, password: str) -> bool:
    """Whether ``password`` matches; False for a malformed hash. CPU-bound: run in a thread."""
    try:
        return HASHER.verify(encoded, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


#: Verified against for unknown usernames, so a login takes as long whether or not they exist.
DUMMY_HASH = HASHER.hash("not a password of anyone")
