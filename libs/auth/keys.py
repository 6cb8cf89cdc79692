"""The token key ring: which key signs new tokens and which keys are still accepted.

``HOLDEM_TOKEN_KEYS`` holds ``kid:secret`` pairs separated by commas, the secret in base64
(standard or URL-safe alphabet, padding optional), at least 32 bytes once decoded. The FIRST key
signs; every key listed verifies. Rotation without logging anyone out (docs/operations.md):
add the new key second and roll out (every replica now accepts it), move it first and roll out
(it signs; the old one only verifies), remove the old one after one token lifetime.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

#: A key id: what a token's header names; short, safe in logs and headers.
KID = re.compile(r"[A-Za-z0-9_-]{1,32}")
MIN_SECRET_BYTES = 32
MAX_KEYS = 16


class KeyRingError(ValueError):
    """``HOLDEM_TOKEN_KEYS`` is not a valid key list (the message never contains a secret)."""


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    secret: bytes

    def __repr__(self) -> str:  # never print a secret
        return f"SigningKey(kid={self.kid!r}, secret=<{len(self.secret)} bytes>)"


def _decode_secret(kid: str, text: str) -> bytes:
    cleaned = text.strip()
    padded = cleaned + "=" * (-len(cleaned) % 4)
    alphabet = b"-_" if ("-" in cleaned or "_" in cleaned) else None
    try:
        secret = base64.b64decode(padded, altchars=alphabet, validate=True)
    except (binascii.Error, ValueError):
        raise KeyRingError(f"key {kid!r}: the secret is not base64") from None
    if len(secret) < MIN_SECRET_BYTES:
        raise KeyRingError(
            f"key {kid!r}: the secret is {len(secret)} bytes, at least {MIN_SECRET_BYTES} needed"
        )
    return secret


@dataclass(frozen=True)
class KeyRing:
    """``signing`` signs new tokens; ``keys`` (signing key included) verify, by key id."""

    signing: SigningKey
    keys: Mapping[str, SigningKey]

    @classmethod
    def of(cls, *keys: SigningKey) -> KeyRing:
        if not keys:
            raise KeyRingError("at least one key is needed")
        by_kid: dict[str, SigningKey] = {}
        for key in keys:
            if not KID.fullmatch(key.kid):
                raise KeyRingError(f"key id {key.kid[:32]!r} must be 1-32 of A-Z a-z 0-9 '_' '-'")
            if key.kid in by_kid:
                raise KeyRingError(f"key id {key.kid!r} is listed twice")
            if len(key.secret) < MIN_SECRET_BYTES:
                raise KeyRingError(f"key {key.kid!r}: at least {MIN_SECRET_BYTES} bytes needed")
            by_kid[key.kid] = key
        if len(by_kid) > MAX_KEYS:
            raise KeyRingError(f"at most {MAX_KEYS} keys")
        return cls(keys[0], by_kid)

    @classmethod
    def parse(cls, text: str) -> KeyRing:
        """Read ``kid:base64secret[,kid:base64secret...]`` (blanks around items ignored)."""
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not items:
            raise KeyRingError("no key given (expected kid:base64secret[,kid:base64secret...])")
        keys = []
        for item in items:
            kid, sep, secret = item.partition(":")
            kid = kid.strip()
            if not sep:
                raise KeyRingError(f"{kid[:32]!r} is not kid:base64secret")
            if not KID.fullmatch(kid):
                raise KeyRingError(f"key id {kid[:32]!r} must be 1-32 of A-Z a-z 0-9 '_' '-'")
            keys.append(SigningKey(kid, _decode_secret(kid, secret)))
        return cls.of(*keys)

    def get(self, kid: str) -> SigningKey | None:
        return self.keys.get(kid)

    def __iter__(self) -> Iterator[SigningKey]:
        return iter(self.keys.values())

    def __repr__(self) -> str:
        return f"KeyRing(signing={self.signing.kid!r}, kids={sorted(self.keys)!r})"


def format_keys(*keys: SigningKey) -> str:
    """The ``HOLDEM_TOKEN_KEYS`` text for ``keys`` (the first signs)."""
    return ",".join(
        f"{k.kid}:{base64.urlsafe_b64encode(k.secret).decode().rstrip('=')}" for k in keys
    )
