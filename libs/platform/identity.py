"""Signed service tokens: how one holdem service proves to another which service it is.

Every call a service makes to another carries a short token in the metadata header
``x-holdem-service`` (:data:`SERVICE_TOKEN_HEADER`)::

    v2.<kid>.<service>.<expiry>.<signature>

``service`` is the caller's identity (one of :data:`IDENTITIES`: the six services and ``tools``
for the CLI and tests), ``kid`` names the key that signed it, ``expiry`` is the Unix second after
which it is refused, and ``signature`` the unpadded URL-safe base64 of the Ed25519 signature of
``v2.<kid>.<service>.<expiry>``.

Each identity has its own Ed25519 key pair. A service holds only its own private key
(``HOLDEM_SERVICE_KEY``, :class:`ServiceKey`, ``kid:base64`` of the 32-byte private key) and the
public keys of every identity (``HOLDEM_SERVICE_PUBLIC_KEYS``, :class:`PublicKeys`,
``identity:kid:base64,...``). A token is checked against the public keys listed for the identity
it claims, so a key signs for one identity only: the table's private key cannot make a token that
says ``gateway``. A public key is listed under one identity only (parsing refuses it twice).

Rotation: an identity may have several public keys (told apart by ``kid``), each verifies; its
service signs with the one private key it is given. Add the new public key everywhere, then give
the service its new private key, then drop the old public key (docs/operations.md).

A :class:`ServiceSigner` mints a token valid :data:`TOKEN_LIFETIME_SECONDS` and reuses it until
half of that is gone (one signature per few minutes, not per call). A :class:`ServiceVerifier`
answers the verified identity or None (missing, malformed, unknown identity or key, bad
signature, expired, or an expiry further ahead than a signer would ever set); tokens it verified
are cached until they expire, so a call costs one dictionary lookup.

What it proves: the caller holds that identity's private key. A compromised service can sign
only as itself; what it cannot do is speak as another service.
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

#: The metadata header carrying the token.
SERVICE_TOKEN_HEADER = "x-holdem-service"
#: Who may hold an identity: the services, and ``tools`` (CLI, tests, benchmarks).
SERVICE_IDENTITIES: tuple[str, ...] = (
    "gateway",
    "lobby",
    "table",
    "dealer",
    "evaluator",
    "ai",
    "tournament",
)
TOOLS = "tools"
IDENTITIES: tuple[str, ...] = (*SERVICE_IDENTITIES, TOOLS)
TOKEN_LIFETIME_SECONDS = 300
#: A token whose expiry lies further ahead than a lifetime plus this is refused (clock skew).
MAX_CLOCK_SKEW_SECONDS = 30
#: Longer headers are refused without parsing (the real ones are about 120 characters).
MAX_TOKEN_CHARS = 256
CACHE_LIMIT = 4096
#: Public keys HOLDEM_SERVICE_PUBLIC_KEYS may list (all identities together).
MAX_PUBLIC_KEYS = 64
KEY_BYTES = 32
_VERSION = "v2"
_KID = re.compile(r"[A-Za-z0-9_-]{1,32}")
#: v2.<kid>.<identity>.<expiry>.<86 characters: the 64-byte signature, unpadded base64>
_TOKEN = re.compile(r"v2\.([A-Za-z0-9_-]{1,32})\.([a-z]{1,16})\.([0-9]{1,12})\.([A-Za-z0-9_-]{86})")

Clock = Callable[[], float]


class ServiceKeyError(ValueError):
    """A service key or public key list that cannot be used; the message never holds a secret."""


def _check_identity(service: str) -> None:
    if service not in IDENTITIES:
        raise ValueError(f"unknown identity {service[:32]!r}; known: {', '.join(IDENTITIES)}")


def _check_kid(kid: str) -> None:
    if not _KID.fullmatch(kid):
        raise ServiceKeyError(f"key id {kid[:32]!r} must be 1-32 of A-Z a-z 0-9 '_' '-'")


def _key_bytes(kid: str, text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ServiceKeyError(f"key {kid!r}: the {what} is not base64") from None
    if len(raw) != KEY_BYTES:
        raise ServiceKeyError(f"key {kid!r}: the {what} must be {KEY_BYTES} bytes (Ed25519)")
    return raw


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _public_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True, repr=False)
class ServiceKey:
    """One identity's private signing key and its id: ``kid:base64`` (32 bytes)."""

    kid: str
    private: Ed25519PrivateKey

    @classmethod
    def generate(cls, kid: str) -> ServiceKey:
        _check_kid(kid)
        return cls(kid, Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> ServiceKey:
        kid, sep, secret = text.strip().partition(":")
        if not sep or not secret:
            raise ServiceKeyError("expected kid:base64key (one Ed25519 private key)")
        _check_kid(kid)
        return cls(kid, Ed25519PrivateKey.from_private_bytes(_key_bytes(kid, secret, "key")))

    def format(self) -> str:
        """``kid:base64`` of the private key: a secret."""
        raw = self.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return f"{self.kid}:{_b64(raw)}"

    def public_entry(self, identity: str) -> str:
        """This key's public half as one entry of HOLDEM_SERVICE_PUBLIC_KEYS."""
        _check_identity(identity)
        return f"{identity}:{self.kid}:{_b64(_public_bytes(self.private.public_key()))}"

    def __repr__(self) -> str:
        return f"ServiceKey(kid={self.kid!r})"


class PublicKeys:
    """The public keys of every identity: ``identity:kid:base64[,identity:kid:base64...]``."""

    def __init__(self, entries: Iterable[tuple[str, str, Ed25519PublicKey]]) -> None:
        keys: dict[tuple[str, str], Ed25519PublicKey] = {}
        seen: dict[bytes, str] = {}
        for identity, kid, key in entries:
            try:
                _check_identity(identity)
            except ValueError as exc:
                raise ServiceKeyError(str(exc)) from None
            _check_kid(kid)
            if (identity, kid) in keys:
                raise ServiceKeyError(f"{identity}:{kid} is listed twice")
            raw = _public_bytes(key)
            if raw in seen:
                raise ServiceKeyError(
                    f"{identity}:{kid} is the same public key as {seen[raw]}: "
                    "a key belongs to one identity"
                )
            seen[raw] = f"{identity}:{kid}"
            keys[(identity, kid)] = key
        if not keys:
            raise ServiceKeyError("no public key given (expected identity:kid:base64[,...])")
        if len(keys) > MAX_PUBLIC_KEYS:
            raise ServiceKeyError(f"at most {MAX_PUBLIC_KEYS} public keys")
        self._keys = keys

    @classmethod
    def parse(cls, text: str) -> PublicKeys:
        entries: list[tuple[str, str, Ed25519PublicKey]] = []
        for part in text.split(","):
            if not part.strip():
                continue
            fields = part.strip().split(":")
            if len(fields) != 3 or not all(fields):
                raise ServiceKeyError(f"{part.strip()[:40]!r} is not identity:kid:base64")
            identity, kid, key = fields
            _check_kid(kid)
            raw = _key_bytes(kid, key, "public key")
            entries.append((identity, kid, Ed25519PublicKey.from_public_bytes(raw)))
        return cls(entries)

    @classmethod
    def of(cls, keys: Mapping[str, Iterable[ServiceKey]]) -> PublicKeys:
        """The public halves of private keys, per identity."""
        return cls(
            (identity, key.kid, key.private.public_key())
            for identity, private_keys in keys.items()
            for key in private_keys
        )

    def get(self, identity: str, kid: str) -> Ed25519PublicKey | None:
        return self._keys.get((identity, kid))

    def holds(self, identity: str, key: ServiceKey) -> bool:
        """Whether ``key``'s public half is listed for ``identity`` under its kid."""
        public = self.get(identity, key.kid)
        return public is not None and _public_bytes(public) == _public_bytes(
            key.private.public_key()
        )

    def identities(self) -> set[str]:
        return {identity for identity, _ in self._keys}

    def format(self) -> str:
        return ",".join(
            f"{identity}:{kid}:{_b64(_public_bytes(key))}"
            for (identity, kid), key in self._keys.items()
        )

    def __repr__(self) -> str:
        return f"PublicKeys({sorted(self._keys)!r})"


def _payload(kid: str, service: str, expiry: int) -> bytes:
    return f"{_VERSION}.{kid}.{service}.{expiry}".encode()


def sign(key: ServiceKey, service: str, expiry: int) -> str:
    """A token saying ``service``, valid until ``expiry`` (Unix s), signed with ``key``."""
    _check_identity(service)
    signature = key.private.sign(_payload(key.kid, service, expiry))
    encoded = base64.urlsafe_b64encode(signature).decode().rstrip("=")
    return f"{_VERSION}.{key.kid}.{service}.{expiry}.{encoded}"


class ServiceSigner:
    """The token of one identity, minted again when half its lifetime is gone."""

    def __init__(
        self,
        key: ServiceKey,
        service: str,
        *,
        lifetime_seconds: int = TOKEN_LIFETIME_SECONDS,
        clock: Clock = time.time,
    ) -> None:
        _check_identity(service)
        if not 1 <= lifetime_seconds <= TOKEN_LIFETIME_SECONDS:
            raise ValueError(f"lifetime_seconds must be 1..{TOKEN_LIFETIME_SECONDS}")
        self.key = key
        self.service = service
        self.lifetime_seconds = lifetime_seconds
        self.clock = clock
        self._token = ""
        self._renew_at = 0.0

    def token(self) -> str:
        now = self.clock()
        if now >= self._renew_at:
            expiry = int(now) + self.lifetime_seconds
            self._token = sign(self.key, self.service, expiry)
            self._renew_at = now + self.lifetime_seconds / 2
        return self._token


def _signature_bytes(text: str) -> bytes | None:
    raw = base64.urlsafe_b64decode(text + "==")
    # one spelling per signature: the last character's unused bits must be zero
    if base64.urlsafe_b64encode(raw).decode().rstrip("=") != text:
        return None
    return raw


class ServiceVerifier:
    """Which identity a token proves, or None. Verified tokens are cached until they expire."""

    def __init__(self, keys: PublicKeys, *, clock: Clock = time.time) -> None:
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
        kid, service, expiry_text, signature_text = match.groups()
        public = self.keys.get(service, kid)  # only the keys of the identity it claims
        expiry = int(expiry_text)
        if public is None:
            return None
        if not now <= expiry <= now + TOKEN_LIFETIME_SECONDS + MAX_CLOCK_SKEW_SECONDS:
            return None
        signature = _signature_bytes(signature_text)
        if signature is None:
            return None
        try:
            public.verify(signature, _payload(kid, service, expiry))
        except InvalidSignature:
            return None
        if len(self._verified) >= CACHE_LIMIT:
            self._verified.clear()  # only tokens with a valid signature get here: rare
        self._verified[token] = (service, expiry)
        return service


@dataclass(frozen=True, repr=False)
class ServiceKeySet:
    """One private key per identity, all of one kid: a new deployment's (or a dev stack's)."""

    keys: Mapping[str, ServiceKey]

    @classmethod
    def generate(cls, kid: str) -> ServiceKeySet:
        return cls({identity: ServiceKey.generate(kid) for identity in IDENTITIES})

    def key(self, identity: str) -> ServiceKey:
        _check_identity(identity)
        return self.keys[identity]

    def public_keys(self) -> PublicKeys:
        return PublicKeys.of({identity: [key] for identity, key in self.keys.items()})

    def __repr__(self) -> str:
        return f"ServiceKeySet({sorted(self.keys)!r})"
