"""libs.platform.identity: a service token proves its identity only when signed with a private
key whose public half is listed for that identity, unexpired and not too far ahead; one
service's key cannot speak for another; verified tokens are cached; a service without its key
refuses to start."""

from __future__ import annotations

import base64
import io
import stat
import time
from pathlib import Path

import pytest

from libs.cli.main import main as cli_main
from libs.devstack.identity import cli_service_key, stack_service_key, write_service_key
from libs.devstack.services import DEV_SERVICE_KEYS, service_key_env
from libs.platform.config import load_platform_config
from libs.platform.configvars import ConfigError
from libs.platform.identity import (
    IDENTITIES,
    MAX_CLOCK_SKEW_SECONDS,
    TOKEN_LIFETIME_SECONDS,
    TOOLS,
    PublicKeys,
    ServiceKey,
    ServiceKeyError,
    ServiceKeySet,
    ServiceSigner,
    ServiceVerifier,
    sign,
)
from libs.platform.server import run_service
from services.dealer.__main__ import SPEC as DEALER_SPEC

NOW = 1_800_000_000.0
KEYS = ServiceKeySet.generate("k1")  # one private key per identity
PUBLIC = KEYS.public_keys()
TABLE = KEYS.key("table")


def verifier(now: float = NOW, keys: PublicKeys = PUBLIC) -> ServiceVerifier:
    return ServiceVerifier(keys, clock=lambda: now)


def seed_key(kid: str, seed: bytes) -> ServiceKey:
    return ServiceKey.parse(f"{kid}:{base64.b64encode(seed).decode()}")


def test_a_token_proves_its_service_until_it_expires() -> None:
    token = sign(TABLE, "table", int(NOW) + 60)
    assert token.startswith("v2.k1.table.")
    assert verifier().verify(token) == "table"
    assert verifier(NOW + 60).verify(token) == "table"
    assert verifier(NOW + 61).verify(token) is None


def test_every_identity_signs_with_its_own_key_and_only_as_itself() -> None:
    expiry = int(NOW) + 60
    check = verifier()
    for signer in IDENTITIES:
        key = KEYS.key(signer)
        assert check.verify(sign(key, signer, expiry)) == signer
        for claimed in IDENTITIES:
            if claimed != signer:  # a valid signature, by the wrong identity's key
                assert check.verify(sign(key, claimed, expiry)) is None, (signer, claimed)


def test_the_table_key_cannot_make_a_gateway_token_even_with_the_gateways_kid() -> None:
    gateway_kid = KEYS.key("gateway").kid
    as_gateway = ServiceKey(gateway_kid, TABLE.private)  # table's key, labelled as the gateway's
    assert verifier().verify(sign(as_gateway, "gateway", int(NOW) + 60)) is None


def test_forged_tampered_unknown_and_odd_tokens_prove_nothing() -> None:
    good = sign(TABLE, "table", int(NOW) + 60)
    forged = sign(ServiceKey.generate("k1"), "table", int(NOW) + 60)  # right kid, wrong key
    as_dealer = good.replace(".table.", ".dealer.")  # the signature covers the name
    later = good.replace(str(int(NOW) + 60), str(int(NOW) + 90))  # and the expiry
    unknown_kid = sign(ServiceKey("k9", TABLE.private), "table", int(NOW) + 60)
    flipped = good[:-1] + ("A" if good[-1] != "A" else "B")  # one bit of the signature
    old_format = "v1.k1.table.1800000060." + "A" * 43  # the HMAC tokens of before
    check = verifier()
    for token in (
        forged,
        as_dealer,
        later,
        unknown_kid,
        flipped,
        old_format,
        "",
        "v2",
        "x" * 5000,
        good + "=",
        good + "A",
        None,
    ):
        assert check.verify(token) is None, token
    assert check.verify(good) == "table"


def test_a_signature_has_one_spelling() -> None:
    good = sign(TABLE, "table", int(NOW) + 60)
    last = good[-1]
    # the last of 86 characters carries 2 bits and 4 unused ones: 15 other letters decode to
    # the same 64 bytes, and each is refused
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    index = alphabet.index(last)
    twins = [alphabet[(index & ~15) | low] for low in range(16) if (index & ~15) | low != index]
    assert len(twins) == 15
    for twin in twins:
        assert verifier().verify(good[:-1] + twin) is None


def test_a_token_that_would_live_longer_than_a_signer_makes_it_is_refused() -> None:
    too_far = int(NOW) + TOKEN_LIFETIME_SECONDS + MAX_CLOCK_SKEW_SECONDS + 1
    assert verifier().verify(sign(TABLE, "table", too_far)) is None
    assert verifier().verify(sign(TABLE, "table", too_far - 1)) == "table"


def test_rotation_every_listed_key_of_an_identity_verifies() -> None:
    new_table = ServiceKey.generate("k2")
    rotating = PublicKeys.parse(f"{PUBLIC.format()},{new_table.public_entry('table')}")
    old_token = sign(TABLE, "table", int(NOW) + 60)
    new_token = sign(new_table, "table", int(NOW) + 60)
    assert verifier(keys=rotating).verify(old_token) == "table"
    assert verifier(keys=rotating).verify(new_token) == "table"
    assert verifier().verify(new_token) is None  # not yet rolled out: refused
    # ... and once the old key is dropped, its tokens are refused
    done = PublicKeys.parse(
        ",".join(e for e in rotating.format().split(",") if not e.startswith("table:k1:"))
    )
    assert verifier(keys=done).verify(old_token) is None
    assert verifier(keys=done).verify(new_token) == "table"
    # the new kid signs nothing for another identity
    assert verifier(keys=rotating).verify(sign(new_table, "gateway", int(NOW) + 60)) is None


def test_a_public_key_belongs_to_one_identity() -> None:
    table_public = PUBLIC.format().split(",")[IDENTITIES.index("table")].split(":")[2]
    with pytest.raises(ServiceKeyError, match="a key belongs to one identity"):
        PublicKeys.parse(f"{PUBLIC.format()},gateway:k7:{table_public}")
    with pytest.raises(ServiceKeyError, match="listed twice"):
        PublicKeys.parse(f"{PUBLIC.format()},{ServiceKey.generate('k1').public_entry('table')}")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "no public key"),
        ("table:k1", "not identity:kid:base64"),
        ("root:k1:" + "A" * 43 + "=", "unknown identity"),
        ("table:k 1:" + "A" * 43 + "=", "key id"),
        ("table:k1:not base64!", "not base64"),
        ("table:k1:" + base64.b64encode(b"x" * 16).decode(), "must be 32 bytes"),
    ],
)
def test_bad_public_key_lists_are_refused(text: str, problem: str) -> None:
    with pytest.raises(ServiceKeyError, match=problem):
        PublicKeys.parse(text)


def test_bad_private_keys_are_refused_without_echoing_the_secret() -> None:
    secret = base64.b64encode(b"s" * 31).decode()
    for text in (f"k1:{secret}", "k1", f"bad kid:{secret}", "k1:%%%%"):
        with pytest.raises(ServiceKeyError) as caught:
            ServiceKey.parse(text)
        assert secret not in str(caught.value)
    key = seed_key("k1", b"s" * 32)
    assert ServiceKey.parse(key.format()).format() == key.format()  # a round trip
    assert "s" * 8 not in repr(key) and key.format() not in repr(key)


def test_only_known_identities_are_signed() -> None:
    with pytest.raises(ValueError, match="unknown identity"):
        sign(TABLE, "player", int(NOW) + 60)
    with pytest.raises(ValueError, match="unknown identity"):
        ServiceSigner(TABLE, "root")


def test_a_cached_token_still_expires() -> None:
    now = [NOW]
    check = ServiceVerifier(PUBLIC, clock=lambda: now[0])
    token = sign(KEYS.key("ai"), "ai", int(NOW) + 10)
    assert check.verify(token) == "ai"
    assert check.verify(token) == "ai"  # from the cache
    now[0] = NOW + 11
    assert check.verify(token) is None


def test_the_signer_reuses_its_token_until_half_its_life_is_gone() -> None:
    now = [NOW]
    signer = ServiceSigner(KEYS.key("lobby"), "lobby", lifetime_seconds=100, clock=lambda: now[0])
    first = signer.token()
    now[0] = NOW + 49
    assert signer.token() == first
    now[0] = NOW + 50
    renewed = signer.token()
    assert renewed != first
    assert ServiceVerifier(PUBLIC, clock=lambda: now[0]).verify(renewed) == "lobby"


def test_verifying_a_cached_token_is_cheap() -> None:
    """Not a timing assertion: prints the cost per call (docs/hardening.md quotes it)."""
    signer = ServiceSigner(TABLE, "table")
    check = ServiceVerifier(PUBLIC)
    token = signer.token()
    rounds = 20_000
    started = time.perf_counter()
    for _ in range(rounds):
        assert check.verify(token) == "table"
    cached = (time.perf_counter() - started) / rounds * 1e6
    fresh_rounds = 2_000
    started = time.perf_counter()
    for _ in range(fresh_rounds):
        ServiceVerifier(PUBLIC).verify(token)
    fresh = (time.perf_counter() - started) / fresh_rounds * 1e6
    started = time.perf_counter()
    for i in range(fresh_rounds):
        sign(TABLE, "table", int(NOW) + i)
    signing = (time.perf_counter() - started) / fresh_rounds * 1e6
    print(
        f"verify: {cached:.2f} us cached, {fresh:.2f} us uncached; sign: {signing:.2f} us (Ed25519)"
    )


def test_a_service_without_its_key_refuses_to_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_service(DEALER_SPEC, argv=[], environ={}) == 2
    err = capsys.readouterr().err
    assert "HOLDEM_SERVICE_KEY: is required but not set" in err
    assert "HOLDEM_SERVICE_PUBLIC_KEYS: is required but not set" in err
    public_only = {"HOLDEM_SERVICE_PUBLIC_KEYS": PUBLIC.format()}
    assert run_service(DEALER_SPEC, argv=[], environ=public_only) == 2
    assert "HOLDEM_SERVICE_KEY: is required but not set" in capsys.readouterr().err


def test_a_service_given_another_identitys_key_refuses_to_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = service_key_env("dealer") | {"HOLDEM_SERVICE_KEY": DEV_SERVICE_KEYS.key("table").format()}
    assert run_service(DEALER_SPEC, argv=[], environ=env) == 2
    err = capsys.readouterr().err
    assert (
        "HOLDEM_SERVICE_KEY: its public key is not listed in HOLDEM_SERVICE_PUBLIC_KEYS as " in err
    )
    assert DEV_SERVICE_KEYS.key("table").format().split(":")[1] not in err  # no secret echoed
    # a key whose public half is not rolled out yet: the same
    with pytest.raises(ConfigError, match="dealer:new"):
        load_platform_config(
            "dealer",
            service_key_env("dealer") | {"HOLDEM_SERVICE_KEY": ServiceKey.generate("new").format()},
        )
    platform, _ = load_platform_config("dealer", service_key_env("dealer"))
    assert platform.service_key.format() == DEV_SERVICE_KEYS.key("dealer").format()


def test_a_stack_keeps_only_the_tools_key_for_the_cli_owner_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOLDEM_SERVICE_KEY", raising=False)
    monkeypatch.setenv("HOLDEM_STACK_DIR", str(tmp_path / "stack"))
    own_tools_key = DEV_SERVICE_KEYS.key(TOOLS).format()
    assert stack_service_key(tmp_path / "stack") is None
    assert cli_service_key() == own_tools_key  # no stack: this process's own keys
    key = ServiceKey.generate("stack").format()
    path = write_service_key(tmp_path / "stack", key)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert cli_service_key() == key
    other = ServiceKey.generate("env").format()
    monkeypatch.setenv("HOLDEM_SERVICE_KEY", other)
    assert cli_service_key() == other  # the environment wins


def test_holdem_service_keys_makes_a_key_pair_per_identity(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli_main(["service-keys", "new", "--kid", "prod1"]) == 0
    lines = dict(
        line.split("=", 1) for line in capsys.readouterr().out.splitlines() if "=" in line[:40]
    )
    public = PublicKeys.parse(lines.pop("HOLDEM_SERVICE_PUBLIC_KEYS"))
    assert public.identities() == set(IDENTITIES)
    for identity in IDENTITIES:
        key = ServiceKey.parse(lines[f"HOLDEM_SERVICE_KEY_{identity.upper()}"])
        assert key.kid == "prod1"
        assert [i for i in IDENTITIES if public.holds(i, key)] == [identity]
    # a rotation of one identity: its new public entry, from the new key or from any private key
    assert cli_main(["service-keys", "new", "--kid", "k2", "--identity", "table"]) == 0
    out = capsys.readouterr().out.splitlines()
    new_key = ServiceKey.parse(out[1].split("=", 1)[1])
    assert out[-1] == new_key.public_entry("table")
    monkeypatch.setattr("sys.stdin", io.StringIO(f"HOLDEM_SERVICE_KEY={new_key.format()}\n"))
    assert cli_main(["service-keys", "public", "--identity", "table"]) == 0
    assert capsys.readouterr().out.strip() == new_key.public_entry("table")
    monkeypatch.setattr("sys.stdin", io.StringIO("k2:short"))
    assert cli_main(["service-keys", "public", "--identity", "table"]) == 2
