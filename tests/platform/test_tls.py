"""libs.platform.tls: the files a deployment's TLS needs, issued and read back; the settings are
all three or none, and a service refuses to start on files it cannot use."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from cryptography import x509

from libs.cli.main import main as holdem
from libs.devstack.services import service_key_env
from libs.platform.config import load_platform_config
from libs.platform.configvars import ConfigError
from libs.platform.identity import IDENTITIES
from libs.platform.tls import (
    CA_FILE,
    TlsError,
    cert_file,
    issue_set,
    key_file,
    load_dir,
    load_tls,
    tls_env,
)


def test_a_set_has_a_ca_and_each_identity_named_in_its_certificate(tmp_path: Path) -> None:
    directory = issue_set(tmp_path / "tls", IDENTITIES, ["table.holdem.svc", "10.0.0.7"])
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    ca = x509.load_pem_x509_certificate((directory / CA_FILE).read_bytes())
    for identity in IDENTITIES:
        files = load_dir(directory, identity)
        assert files.name() == identity
        assert files.ca == (directory / CA_FILE).read_bytes()
        assert stat.S_IMODE((directory / key_file(identity)).stat().st_mode) == 0o600
        cert = x509.load_pem_x509_certificate(files.cert)
        cert.verify_directly_issued_by(ca)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert names.get_values_for_type(x509.DNSName) == [identity, "table.holdem.svc"]
        assert [str(a) for a in names.get_values_for_type(x509.IPAddress)] == ["10.0.0.7"]


def test_none_set_is_plaintext_and_half_set_is_refused(tmp_path: Path) -> None:
    assert load_tls({}) is None
    assert load_tls({"HOLDEM_TLS_CA": " "}) is None
    env = tls_env(issue_set(tmp_path, ["table"]), "table")
    for missing in env:
        partial = {k: v for k, v in env.items() if k != missing}
        with pytest.raises(TlsError, match=missing):
            load_tls(partial)


def test_unreadable_or_wrong_files_are_refused(tmp_path: Path) -> None:
    env = tls_env(issue_set(tmp_path, ["table", "dealer"]), "table")
    with pytest.raises(TlsError, match="cannot read"):
        load_tls({**env, "HOLDEM_TLS_CERT": str(tmp_path / "nope.pem")})
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(TlsError, match="not a PEM file"):
        load_tls({**env, "HOLDEM_TLS_KEY": str(tmp_path / "junk.pem")})
    (tmp_path / "bad.pem").write_text(
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
    )
    with pytest.raises(TlsError, match="not a usable certificate"):
        load_tls({**env, "HOLDEM_TLS_CERT": str(tmp_path / "bad.pem")})


def test_a_service_refuses_to_start_with_half_its_tls_settings(tmp_path: Path) -> None:
    env = tls_env(issue_set(tmp_path, ["table"]), "table")
    platform, _ = load_platform_config("table", {**service_key_env("table"), **env})
    assert platform.tls is not None and platform.tls.name() == "table"
    del env["HOLDEM_TLS_KEY"]
    with pytest.raises(ConfigError, match="HOLDEM_TLS_KEY"):
        load_platform_config("table", {**service_key_env("table"), **env})
    plain, _ = load_platform_config("table", service_key_env("table"))
    assert plain.tls is None


def test_tls_certs_writes_a_set_and_never_overwrites_one_unasked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "certs"
    assert holdem(["tls-certs", str(target), "--host", "gateway.example.com"]) == 0
    assert sorted(p.name for p in target.iterdir()) == sorted(
        [CA_FILE, *(cert_file(i) for i in IDENTITIES), *(key_file(i) for i in IDENTITIES)]
    )
    first = (target / CA_FILE).read_bytes()
    assert holdem(["tls-certs", str(target)]) == 2
    assert "not empty" in capsys.readouterr().err
    assert (target / CA_FILE).read_bytes() == first
    assert holdem(["tls-certs", str(target), "--force", "--identity", "gateway"]) == 0
    assert (target / CA_FILE).read_bytes() != first
