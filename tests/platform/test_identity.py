"""libs.platform.identity: a service token proves its service only when signed with a key of the
ring, unexpired and not too far ahead; verified tokens are cached; a service without keys refuses
to start."""

from __future__ import annotations

import base64
import stat
import time
from pathlib import Path

import pytest

from libs.auth.keys import KeyRing
from libs.devstack.identity import cli_service_keys, stack_service_keys, write_service_keys
from libs.devstack.services import DEV_SERVICE_KEYS
from libs.platform.identity import (
    MAX_CLOCK_SKEW_SECONDS,
    TOKEN_LIFETIME_SECONDS,
    ServiceSigner,
    ServiceVerifier,
    sign,
)
from libs.platform.server import run_service
from services.dealer.__main__ import SPEC as DEALER_SPEC

NOW = 1_800_000_000.0


def ring(*pairs: tuple[str, bytes]) -> KeyRing:
    return KeyRing.parse(",".join(f"{kid}:{base64.b64encode(s).decode()}" for kid, s in pairs))


KEYS = ring(("k1", b"a" * 32))
OTHER = ring(("k1", b"b" * 32))  # same key id, another secret: a forger's


def verifier(now: float = NOW) -> ServiceVerifier:
    return ServiceVerifier(KEYS, clock=lambda: now)


def test_a_token_proves_its_service_until_it_expires() -> None:
    token = sign(KEYS, "table", int(NOW) + 60)
    assert verifier().verify(token) == "table"
    assert verifier(NOW + 60).verify(token) == "table"
    assert verifier(NOW + 61).verify(token) is None


def test_forged_tampered_and_odd_tokens_prove_nothing() -> None:
    good = sign(KEYS, "table", int(NOW) + 60)
    forged = sign(OTHER, "table", int(NOW) + 60)
    as_dealer = good.replace(".table.", ".dealer.")  # the signature covers the name
    later = good.replace(str(int(NOW) + 60), str(int(NOW) + 90))  # and the expiry
    unknown_kid = sign(ring(("k9", b"a" * 32)), "table", int(NOW) + 60)
    check = verifier()
    for token in (forged, as_dealer, later, unknown_kid, "", "v1", "x" * 5000, good + "=", None):
        assert check.verify(token) is None, token
    assert check.verify(good) == "table"


def test_a_token_that_would_live_longer_than_a_signer_makes_it_is_refused() -> None:
    too_far = int(NOW) + TOKEN_LIFETIME_SECONDS + MAX_CLOCK_SKEW_SECONDS + 1
    assert verifier().verify(sign(KEYS, "table", too_far)) is None
    assert verifier().verify(sign(KEYS, "table", too_far - 1)) == "table"


def test_every_key_of_the_ring_verifies_and_the_first_signs() -> None:
    rotated = ring(("new", b"n" * 32), ("k1", b"a" * 32))
    old_token = sign(KEYS, "gateway", int(NOW) + 60)
    assert ServiceVerifier(rotated, clock=lambda: NOW).verify(old_token) == "gateway"
    assert sign(rotated, "gateway", int(NOW) + 60).startswith("v1.new.gateway.")


def test_only_known_identities_are_signed() -> None:
    with pytest.raises(ValueError, match="unknown identity"):
        sign(KEYS, "player", int(NOW) + 60)
    with pytest.raises(ValueError, match="unknown identity"):
        ServiceSigner(KEYS, "root")


def test_a_cached_token_still_expires() -> None:
    now = [NOW]
    check = ServiceVerifier(KEYS, clock=lambda: now[0])
    token = sign(KEYS, "ai", int(NOW) + 10)
    assert check.verify(token) == "ai"
    assert check.verify(token) == "ai"  # from the cache
    now[0] = NOW + 11
    assert check.verify(token) is None


def test_the_signer_reuses_its_token_until_half_its_life_is_gone() -> None:
    now = [NOW]
    signer = ServiceSigner(KEYS, "lobby", lifetime_seconds=100, clock=lambda: now[0])
    first = signer.token()
    now[0] = NOW + 49
    assert signer.token() == first
    now[0] = NOW + 50
    renewed = signer.token()
    assert renewed != first
    assert ServiceVerifier(KEYS, clock=lambda: now[0]).verify(renewed) == "lobby"


def test_verifying_a_cached_token_is_cheap() -> None:
    """Not a timing assertion: prints the cost per call (docs/hardening.md quotes it)."""
    signer = ServiceSigner(KEYS, "table")
    check = ServiceVerifier(KEYS)
    token = signer.token()
    rounds = 20_000
    started = time.perf_counter()
    for _ in range(rounds):
        assert check.verify(token) == "table"
    cached = (time.perf_counter() - started) / rounds * 1e6
    started = time.perf_counter()
    for _ in range(rounds):
        ServiceVerifier(KEYS).verify(token)
    fresh = (time.perf_counter() - started) / rounds * 1e6
    print(f"verify: {cached:.2f} us cached, {fresh:.2f} us uncached (HMAC-SHA256)")


def test_a_service_without_service_keys_refuses_to_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_service(DEALER_SPEC, argv=[], environ={}) == 2
    err = capsys.readouterr().err
    assert "HOLDEM_SERVICE_KEYS: is required but not set" in err


def test_a_stack_keeps_its_service_keys_for_the_cli_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOLDEM_SERVICE_KEYS", raising=False)
    monkeypatch.setenv("HOLDEM_STACK_DIR", str(tmp_path / "stack"))
    assert stack_service_keys(tmp_path / "stack") is None
    assert cli_service_keys() == DEV_SERVICE_KEYS  # no stack: this process's own keys
    keys = "stack:" + base64.b64encode(b"s" * 32).decode()
    path = write_service_keys(tmp_path / "stack", keys)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert cli_service_keys() == keys
    monkeypatch.setenv("HOLDEM_SERVICE_KEYS", "env:" + "A" * 43)
    assert cli_service_keys() == "env:" + "A" * 43  # the environment wins
