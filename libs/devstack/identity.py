"""Calling services of the dev stack with an identity (libs.platform.identity).

The services this process starts (``ServiceProcess``, ``service_env``) each sign with their own
key of ``DEV_SERVICE_KEYS`` and verify callers with its public keys; tools and tests call them
as ``tools`` (or as another service, to test a policy: with that service's private key from the
same set) with::

    with channel_as(dealer.address, "table") as channel:
        DealerServiceStub(channel).RevealSeed(...)

    async with aio_channel_as(lobby.address) as channel:
        ...

A stack started by ``holdem stack up`` in another process writes the private key of ``tools``
(only that one) to ``<stack dir>/service-key`` (mode 0600); the CLI's commands call as ``tools``
with :func:`cli_service_key`: HOLDEM_SERVICE_KEY if set (the tools key an operator gave the
CLI), else that file, else this process's own (services it started itself).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import grpc

from libs.platform.clients import signed_aio_channel, signed_channel
from libs.platform.identity import TOOLS, ServiceKey, ServiceSigner
from libs.platform.tls import CA_FILE, TlsFiles, load_dir, load_tls

from .services import DEV_SERVICE_KEYS, SERVICE_KEY_VAR

__all__ = [
    "SERVICE_KEY_FILE",
    "aio_channel_as",
    "channel_as",
    "cli_gateway_ca",
    "cli_service_key",
    "cli_tls",
    "default_stack_dir",
    "signer_as",
    "stack_service_key",
    "write_service_key",
]

SERVICE_KEY_FILE = "service-key"
#: Where ``holdem stack up --tls`` keeps its CA and the identities' pairs, in its state dir.
STACK_TLS_DIR = "tls"


def default_stack_dir() -> Path:
    """The state dir of the local stack the CLI talks to: $HOLDEM_STACK_DIR, else ./.stack."""
    return Path(os.environ.get("HOLDEM_STACK_DIR") or Path.cwd() / ".stack")


def signer_as(service: str = TOOLS, key: str | None = None) -> ServiceSigner:
    """A signer of ``service``'s tokens with the private ``key`` (``kid:base64``; default:
    ``service``'s key of this run's DEV_SERVICE_KEYS)."""
    return ServiceSigner(ServiceKey.parse(key) if key else DEV_SERVICE_KEYS.key(service), service)


def channel_as(
    address: str,
    service: str = TOOLS,
    *,
    key: str | None = None,
    tls: TlsFiles | None = None,
    peer: str = "",
) -> grpc.Channel:
    """A blocking channel to ``address`` whose calls say they come from ``service`` (with
    ``tls``: ``service``'s certificate, to a callee whose certificate names ``peer``)."""
    return signed_channel(address, signer_as(service, key), tls=tls, service=peer)


def aio_channel_as(
    address: str,
    service: str = TOOLS,
    *,
    key: str | None = None,
    tls: TlsFiles | None = None,
    peer: str = "",
    **kwargs: Any,
) -> grpc.aio.Channel:
    """An asyncio channel to ``address`` whose calls say they come from ``service`` (with
    ``tls``: ``service``'s certificate, to a callee whose certificate names ``peer``)."""
    return signed_aio_channel(address, signer_as(service, key), tls=tls, service=peer, **kwargs)


def write_service_key(directory: Path, key: str) -> Path:
    """Keep the private key of a stack's ``tools`` for tools run later (owner-only)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SERVICE_KEY_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    os.chmod(path, 0o600)  # also when the file was there before with other bits
    return path


def stack_service_key(directory: Path) -> str | None:
    """HOLDEM_SERVICE_KEY if set, else the tools key a stack wrote to ``directory``, else None."""
    if os.environ.get(SERVICE_KEY_VAR):
        return os.environ[SERVICE_KEY_VAR]
    try:
        return (directory / SERVICE_KEY_FILE).read_text().strip() or None
    except OSError:
        return None


def cli_tls() -> TlsFiles | None:
    """The TLS files a CLI command calls services with, as ``tools``: HOLDEM_TLS_CA/CERT/KEY if
    set (what an operator gave the CLI), else the ``tls`` directory of the stack in
    $HOLDEM_STACK_DIR (default ./.stack) when it runs with ``--tls``, else None (plaintext)."""
    files = load_tls(os.environ)
    if files is not None:
        return files
    directory = default_stack_dir() / STACK_TLS_DIR
    return load_dir(directory, TOOLS) if (directory / CA_FILE).is_file() else None


def cli_gateway_ca() -> bytes | None:
    """The CA a player's client trusts for the local stack's gateway (see ``cli_tls``)."""
    files = cli_tls()
    return None if files is None else files.ca


def cli_service_key() -> str:
    """The private key a CLI command signs with as ``tools``: HOLDEM_SERVICE_KEY, else the one
    of the stack in $HOLDEM_STACK_DIR (default ./.stack), else this process's own."""
    directory = default_stack_dir()
    return stack_service_key(directory) or DEV_SERVICE_KEYS.key(TOOLS).format()
