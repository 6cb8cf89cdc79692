"""TLS for gRPC between services (mutual) and from clients to the gateway (server side only).

Off unless configured: every service reads ``HOLDEM_TLS_CA``, ``HOLDEM_TLS_CERT`` and
``HOLDEM_TLS_KEY`` (paths of PEM files: the CA that issued every service's certificate, this
service's certificate and its private key; all three or none). With them:

- every service but the gateway listens with TLS and **requires a client certificate** issued by
  that CA: nobody without one completes a handshake, so a service token
  (libs.platform.identity) can no longer be read off the wire and replayed;
- the gateway listens with TLS without asking players for a certificate (players prove who they
  are with their bearer tokens, now encrypted);
- a call to another service (``libs.platform.clients.connect_peer``) is made with this service's
  certificate and checks that the callee's certificate names the service it meant to call
  (``grpc.ssl_target_name_override`` = the service's name, e.g. ``table``): a dealer's address
  swapped for another service's fails the handshake instead of dealing to the wrong party.

Certificates name their service as a DNS subject alternative name (``table``; the ``tools``
identity for operators' commands), plus the host names and addresses they are reached at.
:func:`issue_set` makes a CA and one certificate per identity (``holdem tls-certs``; ``holdem
stack up --tls`` makes its own in ``.stack/tls``). Keys are ECDSA P-256; certificates last
``VALID_DAYS``.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import ssl
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = [
    "CA_FILE",
    "TLS_VARS",
    "TlsError",
    "TlsFiles",
    "cert_file",
    "channel_credentials",
    "issue_set",
    "key_file",
    "load_dir",
    "load_tls",
    "redis_options",
    "server_credentials",
    "ssl_context",
    "target_options",
]

CA_VAR, CERT_VAR, KEY_VAR = "HOLDEM_TLS_CA", "HOLDEM_TLS_CERT", "HOLDEM_TLS_KEY"
TLS_VARS = (CA_VAR, CERT_VAR, KEY_VAR)
CA_FILE = "ca.pem"
VALID_DAYS = 825
#: Hosts every certificate is valid for besides its service name (the local stack, tests).
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
MAX_PEM_BYTES = 64 * 1024


class TlsError(ValueError):
    """A TLS setting that cannot work (a missing or unreadable file, half the settings)."""


@dataclass(frozen=True)
class TlsFiles:
    """The PEM bytes one party needs: the CA it trusts, its certificate and its key."""

    ca: bytes
    cert: bytes
    key: bytes
    # where they were read from (NATS and Redis clients take paths): CA, certificate, key
    paths: tuple[str, str, str] = ("", "", "")

    def name(self) -> str:
        """The first DNS name of this party's certificate (its service)."""
        cert = x509.load_pem_x509_certificate(self.cert)
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        return names.get_values_for_type(x509.DNSName)[0]


def cert_file(identity: str) -> str:
    return f"{identity}.pem"


def key_file(identity: str) -> str:
    return f"{identity}.key"


def _read(var: str, path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_PEM_BYTES + 1)
    except OSError as exc:
        raise TlsError(f"{var}: cannot read {path[:200]!r}: {exc.strerror or exc}") from None
    if len(data) > MAX_PEM_BYTES or b"-----BEGIN" not in data:
        raise TlsError(f"{var}: {path[:200]!r} is not a PEM file")
    return data


def load_tls(environ: Mapping[str, str]) -> TlsFiles | None:
    """The files named by HOLDEM_TLS_CA/CERT/KEY in ``environ``, or None when none is set."""
    paths = {var: environ.get(var, "").strip() for var in TLS_VARS}
    given = [var for var, path in paths.items() if path]
    if not given:
        return None
    if len(given) != len(TLS_VARS):
        missing = ", ".join(var for var in TLS_VARS if var not in given)
        raise TlsError(f"TLS needs {', '.join(TLS_VARS)} together; missing: {missing}")
    ca, cert, key = (_read(var, paths[var]) for var in TLS_VARS)
    files = TlsFiles(ca, cert, key, (paths[CA_VAR], paths[CERT_VAR], paths[KEY_VAR]))
    try:
        files.name()
        serialization.load_pem_private_key(files.key, password=None)
    except (ValueError, TypeError, IndexError, x509.ExtensionNotFound) as exc:
        raise TlsError(f"{CERT_VAR}/{KEY_VAR}: not a usable certificate and key: {exc}") from None
    return files


def load_dir(directory: Path, identity: str) -> TlsFiles:
    """``identity``'s files in a directory written by :func:`issue_set`."""
    files = load_tls(tls_env(directory, identity))
    assert files is not None  # every path is given
    return files


def tls_env(directory: Path, identity: str) -> dict[str, str]:
    """HOLDEM_TLS_* pointing at ``identity``'s files in ``directory``."""
    return {
        CA_VAR: str(directory / CA_FILE),
        CERT_VAR: str(directory / cert_file(identity)),
        KEY_VAR: str(directory / key_file(identity)),
    }


def ssl_context(files: TlsFiles) -> ssl.SSLContext:
    """A client's TLS context for NATS (``tls://`` URLs): trust the CA only, present the
    certificate (servers that verify clients ask for it)."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=files.ca.decode())
    context.load_cert_chain(files.paths[1], files.paths[2])
    return context


def redis_options(url: str, files: TlsFiles | None) -> dict[str, Any]:
    """redis-py's options for ``url``: with a ``rediss://`` URL and ``files``, trust the CA only
    and present the certificate; nothing otherwise."""
    if files is None or not url.startswith("rediss://"):
        return {}
    ca, cert, key = files.paths
    return {"ssl_ca_certs": ca, "ssl_certfile": cert, "ssl_keyfile": key}


def server_credentials(files: TlsFiles, *, require_client_cert: bool) -> grpc.ServerCredentials:
    return grpc.ssl_server_credentials(
        [(files.key, files.cert)],
        root_certificates=files.ca,
        require_client_auth=require_client_cert,
    )


def channel_credentials(
    files: TlsFiles | None = None, ca: bytes | None = None
) -> grpc.ChannelCredentials:
    """Credentials of a caller: with ``files``, its own certificate too (mutual TLS); with only
    ``ca``, a client that trusts that CA (a player's client to a TLS gateway)."""
    if files is not None:
        return grpc.ssl_channel_credentials(files.ca, files.key, files.cert)
    return grpc.ssl_channel_credentials(ca)


def target_options(service: str) -> list[tuple[str, str]]:
    """Channel options that make the handshake check the callee's certificate names
    ``service`` (whatever host the address has); none for "" (the address's host is checked)."""
    return [("grpc.ssl_target_name_override", service)] if service else []


# ---- issuing ------------------------------------------------------------------------------------


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _alt_names(names: Iterable[str]) -> list[x509.GeneralName]:
    out: list[x509.GeneralName] = []
    for name in dict.fromkeys(names):
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            out.append(x509.DNSName(name))
    return out


def issue_set(
    directory: Path,
    identities: Sequence[str],
    hosts: Iterable[str] = LOOPBACK_HOSTS,
    *,
    days: int = VALID_DAYS,
    now: dt.datetime | None = None,
) -> Path:
    """Write a new CA (``ca.pem``; its key is not kept: nothing more can be issued under it) and
    a certificate and key per identity (``<identity>.pem``, ``<identity>.key``, owner-only) to
    ``directory``. Each certificate names its identity first, then ``hosts``; it serves both as
    a server and a client certificate."""
    start = (now or dt.datetime.now(dt.UTC)) - dt.timedelta(minutes=5)
    end = start + dt.timedelta(days=days)
    ca_key = _key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "holdem services CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    _write(directory / CA_FILE, ca.public_bytes(serialization.Encoding.PEM), 0o644)
    for identity in identities:
        key = _key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, identity)]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start)
            .not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName(_alt_names([identity, *hosts])), False)
            .add_extension(
                x509.ExtendedKeyUsage(
                    [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
                ),
                critical=False,
            )
            .sign(ca_key, hashes.SHA256())
        )
        _write(
            directory / cert_file(identity), cert.public_bytes(serialization.Encoding.PEM), 0o644
        )
        _write(directory / key_file(identity), _pem_key(key), 0o600)
    return directory


def _write(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(path, mode)
