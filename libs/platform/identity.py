"""Signed service tokens: how one holdem service proves to another which service it is.

Every call a service makes to another carries a short token in the metadata header
``x-holdem-service`` (:data:`SERVICE_TOKEN_HEADER`)::

    v1.<kid>.<service>.<expiry>.<signature>

``kid`` names the key of ``HOLDEM_SERVICE_KEYS`` that signed it (the same ``kid:base64secret``
key-ring format and rotation as the player-token keys, :mod:`libs.auth.keys`), ``service`` is the
caller's name (one of :data:`IDENTITIES`: the six services and ``tools`` for the CLI and tests),
``expiry`` the Unix second after which it is refused, and ``signature`` the unpadded URL-safe
base64 of HMAC-SHA256(secret, ``v1.<kid>.<service>.<expiry>``).

A :class:`ServiceSigner` mints a token valid :data:`TOKEN_LIFETIME_SECONDS` and reuses it until
half of that is gone (one HMAC per few minutes, not per call). A :class:`ServiceVerifier` answers
the verified service name or None (missing, malformed, unknown key, bad signature, expired, or an
expiry further ahead than a signer would ever set); tokens it verified are cached until they
expire, so a call costs one dictionary lookup.

What it proves: the caller holds the service key. Every service holds the same key ring, so a
service that is itself compromised could sign as another; what the tokens keep out is everything
without the key (players, anything else on the network, a test or tool not given the key).
Per-service asymmetric keys or mutual TLS would close that gap (docs/hardening.md, "Next").
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from collections.abc import Callable

from libs.auth.keys import KeyRing

#: The metadata header carrying the token.
SERVICE_TOKEN_HEADER = "x-holdem-service"
#: Who may hold an identity: the services, and ``tools`` (CLI, tests, benchmarks).
SERVICE_IDENTITIES: tuple[str, ...] = ("gateway", "lobby", "table", "dealer", "evaluator", "ai")
TOOLS = "tools"
IDENTITIES: tuple[str, ...] = (*SERVICE_IDENTITIES, TOOLS)
TOKEN_LIFETIME_SECONDS = 300
#: A token whose expiry lies further ahead than a lifetime plus this is refused (clock skew).
MAX_CLOCK_SKEW_SECONDS = 30
#: Longer headers are refused without parsing (the real ones are about 80 characters).
MAX_TOKEN_CHARS = 256
CACHE_LIMIT = 4096
_VERSION = "v1"
_TOKEN = re.compile(r"v1\.([A-Za-z0-9_-]{1,32})\.([a-z]{1,16})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})")

Clock = Callable[[], float]


def _signature(secret: bytes, kid: str, service: str, expiry: int) -> str:
    payload = f"{_VERSION}.{kid}.{service}.{expiry}".encode()
    digest = hmac.new(secret, payload, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _check_identity(service: str) -> None:
    if service not in IDENTITIES:
        raise ValueError(f"unknown identity {service!r}; known: {', '.join(IDENTITIES)}")


def sign(keys: KeyRing, service: str, expiry: int) -> str:
    """A token saying ``service``, valid until ``expiry`` (Unix s), signed by the first key."""
    _check_identity(service)
    kid = keys.signing.kid
    signature = _signature(keys.signing.secret, kid, service, expiry)
    return f"{_VERSION}.{kid}.{service}.{expiry}.{signature}"


class ServiceSigner:
    """The token of one identity, minted again when half its lifetime is gone."""

    def __init__(
        self,
        keys: KeyRing,
        service: str,
        *,
        lifetime_seconds: int = TOKEN_LIFETIME_SECONDS,
        clock: Clock = time.time,
    ) -> None:
        _check_identity(service)
        if not 1 <= lifetime_seconds <= TOKEN_LIFETIME_SECONDS:
            raise ValueError(f"lifetime_seconds must be 1..{TOKEN_LIFETIME_SECONDS}")
        self.keys = keys
        self.service = service
        self.lifetime_seconds = lifetime_seconds
        self.clock = clock
        self._token = ""
        self._renew_at = 0.0

    def token(self) -> str:
        now = self.clock()
        if now >= self._renew_at:
            expiry = int(now) + self.lifetime_seconds
            self._token = sign(self.keys, self.service, expiry)
            self._renew_at = now + self.lifetime_seconds / 2
        return self._token


class ServiceVerifier:
    """Which service a token proves, or None. Verified tokens are cached until they expire."""

    def __init__(self, keys: KeyRing, *, clock: Clock = time.time) -> None:
        self.keys = keys
        self.clock = clock
        self._verified: dict[str, tuple[str, int]] = {}

    def verify(self, token: str | None) -> str | None:
        if not token:
            return None
        now = self.clock()
        cached = self._verified.get(token)
        if cached is not None:
            service, expiry = cached
            if now <= expiry:
                return service
            del self._verified[token]
            return None
        if len(token) > MAX_TOKEN_CHARS:
            return None
        match = _TOKEN.fullmatch(token)
        if match is None:
            return None
        kid, service, expiry_text, signature = match.groups()
        key = self.keys.get(kid)
        expiry = int(expiry_text)
        if key is None or service not in IDENTITIES:
            return None
        if not now <= expiry <= now + TOKEN_LIFETIME_SECONDS + MAX_CLOCK_SKEW_SECONDS:
            return None
        if not hmac.compare_digest(signature, _signature(key.secret, kid, service, expiry)):
            return None
        if len(self._verified) >= CACHE_LIMIT:
            self._verified.clear()  # only tokens with a valid signature get here: rare
        self._verified[token] = (service, expiry)
        return service
