"""The key variables several services read: the keys of player tokens (``HOLDEM_TOKEN_KEYS``,
libs.auth) and the service identities' keys (``HOLDEM_SERVICE_KEY``, ``HOLDEM_SERVICE_PUBLIC_KEYS``,
libs.platform.identity), each parsed into its key type. No message about a bad value repeats the
secret.
"""

from __future__ import annotations

from libs.auth.keys import KeyRing, KeyRingError
from libs.platform.configvars import Var, VarType
from libs.platform.identity import PublicKeys, ServiceKey, ServiceKeyError


def _parse_token_keys(raw: str) -> KeyRing:
    try:
        return KeyRing.parse(raw)
    except KeyRingError as exc:  # its messages never contain a secret
        raise ValueError(str(exc)) from None


#: Keys of player tokens (libs.auth, contract-13 §4): read by the lobby (signs) and the gateway
#: (verifies). A secret: it belongs in the Kubernetes Secret, never in a ConfigMap.
TOKEN_KEYS: Var[KeyRing] = Var(
    "HOLDEM_TOKEN_KEYS",
    VarType("kid:base64secret[,kid:base64secret...]", _parse_token_keys),
    None,
    "keys of player tokens, a secret: the first signs, every one verifies (rotation: "
    "docs/operations.md); secrets of at least 32 bytes",
)

#: HOLDEM_TOKEN_KEYS for a service that may run without it: ``ephemeral`` (or unset) reads as None.
EPHEMERAL_KEYS = "ephemeral"


def _optional_keys(raw: str) -> KeyRing | None:
    return None if raw.strip() in ("", EPHEMERAL_KEYS) else TOKEN_KEYS.type.parse(raw)


#: HOLDEM_TOKEN_KEYS as the lobby (signs with the first key) and the gateway (verifies with every
#: key) read it. ``ephemeral``: the lobby signs with a random key of its own process, which no
#: gateway can verify (tests, a lone lobby); a gateway then verifies no token, so every call that
#: needs one is UNAUTHENTICATED (both log a warning at start).
OPTIONAL_TOKEN_KEYS: Var[KeyRing | None] = Var(
    TOKEN_KEYS.name,
    VarType(f"{TOKEN_KEYS.type.description} or {EPHEMERAL_KEYS}", _optional_keys),
    EPHEMERAL_KEYS,
    TOKEN_KEYS.help,
)


def _parse_service_key(raw: str) -> ServiceKey:
    try:
        return ServiceKey.parse(raw)
    except ServiceKeyError as exc:  # its messages never contain a secret
        raise ValueError(str(exc)) from None


def _parse_public_keys(raw: str) -> PublicKeys:
    try:
        return PublicKeys.parse(raw)
    except ServiceKeyError as exc:
        raise ValueError(str(exc)) from None


#: This service's own private key (libs.platform.identity): it signs this service's calls to
#: other services. Required: a service without it refuses to start (it could not prove who it
#: is). A secret held by this service only.
SERVICE_KEY: Var[ServiceKey] = Var(
    "HOLDEM_SERVICE_KEY",
    VarType("kid:base64key", _parse_service_key),
    None,
    "this service's own Ed25519 private key (32 bytes), a secret of this service only: signs "
    "its calls to other services (docs/hardening.md)",
)

#: The public keys of every identity: verify callers. Not a secret; the same for every service.
SERVICE_PUBLIC_KEYS: Var[PublicKeys] = Var(
    "HOLDEM_SERVICE_PUBLIC_KEYS",
    VarType("identity:kid:base64key[,identity:kid:base64key...]", _parse_public_keys),
    None,
    "public keys of the service identities (gateway, lobby, table, dealer, evaluator, ai, "
    "tournament, tools), the same for every service, not a secret: verify callers; several "
    "per identity while a key is rotated",
)
