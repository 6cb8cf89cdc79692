"""libs.auth.keys: HOLDEM_TOKEN_KEYS is read strictly, the first key signs, secrets never shown."""

from __future__ import annotations

import base64

import pytest

from libs.auth.keys import KeyRing, KeyRingError, SigningKey, format_keys
from libs.platform.configkeys import TOKEN_KEYS
from libs.platform.configvars import ConfigError, parse_env

SECRET_A = bytes(range(32))
SECRET_B = bytes(range(100, 140))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_the_first_key_signs_and_every_key_verifies() -> None:
    ring = KeyRing.parse(f"new:{b64(SECRET_B)}, old:{b64(SECRET_A)}")
    assert ring.signing == SigningKey("new", SECRET_B)
    assert ring.get("old") == SigningKey("old", SECRET_A)
    assert [k.kid for k in ring] == ["new", "old"]


def test_url_safe_and_unpadded_secrets_are_accepted() -> None:
    text = format_keys(SigningKey("k1", SECRET_B))
    assert "=" not in text
    assert KeyRing.parse(text).signing.secret == SECRET_B


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "no key given"),
        ("k1", "is not kid:base64secret"),
        (f"bad kid:{b64(SECRET_A)}", "key id"),
        (f"{'k' * 33}:{b64(SECRET_A)}", "key id"),
        ("k1:not*base64", "not base64"),
        (f"k1:{b64(b'short')}", "at least 32"),
        (f"k1:{b64(SECRET_A)},k1:{b64(SECRET_B)}", "listed twice"),
    ],
)
def test_bad_key_lists_are_refused_with_the_reason(text: str, reason: str) -> None:
    with pytest.raises(KeyRingError) as caught:
        KeyRing.parse(text)
    assert reason in str(caught.value)


def test_errors_and_reprs_never_show_a_secret() -> None:
    secret = b64(b"s" * 20)
    with pytest.raises(KeyRingError) as caught:
        KeyRing.parse(f"k1:{secret}")
    assert secret not in str(caught.value)
    ring = KeyRing.parse(f"k1:{b64(SECRET_A)}")
    assert b64(SECRET_A) not in repr(ring) and str(SECRET_A) not in repr(ring.signing)


def test_the_setting_is_required_and_validated_at_start() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_env([TOKEN_KEYS], {})
    assert caught.value.problems == (("HOLDEM_TOKEN_KEYS", "is required but not set"),)
    with pytest.raises(ConfigError) as caught:
        parse_env([TOKEN_KEYS], {"HOLDEM_TOKEN_KEYS": f"k1:{b64(b'x' * 8)}"})
    (name, problem), *_ = caught.value.problems
    assert name == "HOLDEM_TOKEN_KEYS" and "at least 32" in problem
    values = parse_env([TOKEN_KEYS], {"HOLDEM_TOKEN_KEYS": f"k1:{b64(SECRET_A)}"})
    assert values[TOKEN_KEYS].signing.kid == "k1"
