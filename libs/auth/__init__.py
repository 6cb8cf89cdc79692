"""Player bearer tokens: signed by the lobby, verified by the gateway without a lobby round trip
(contract-13 §4).

- :mod:`.keys`: the key ring from ``HOLDEM_TOKEN_KEYS`` (``kid:base64secret`` comma-separated;
  the first key signs, every key verifies, so a retired key keeps working until its tokens
  expire).
- :mod:`.tokens`: issuing and verifying tokens (HMAC-SHA256, JWT compact form) carrying the
  player id, username, display name, guest flag, key id, issue and expiry times and a unique
  token id (``jti``). Pure: no I/O, the caller passes the time.
- :mod:`.revocation`: logout. A revoked ``jti`` is a key of the NATS KV bucket
  ``holdem_revoked`` whose entries age out once no token they name can still be valid; the
  lobby writes it, the gateway keeps a watched in-memory copy (services/gateway/revocations.py).
  libs.auth imports nothing of libs.platform (which reads the key ring from its settings).
"""

from .keys import KeyRing, KeyRingError, SigningKey
from .tokens import (
    MAX_TOKEN_CHARS,
    InvalidToken,
    TokenClaims,
    issue,
    issue_for,
    verify,
)

__all__ = [
    "MAX_TOKEN_CHARS",
    "InvalidToken",
    "KeyRing",
    "KeyRingError",
    "SigningKey",
    "TokenClaims",
    "issue",
    "issue_for",
    "verify",
]
