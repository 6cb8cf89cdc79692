"""Calling services of the dev stack with an identity (libs.platform.identity).

The services this process starts (``service_env``) verify callers with ``DEV_SERVICE_KEYS``;
tools and tests call them as ``tools`` (or as another service, to test a policy) with::

    with channel_as(dealer.address, "table") as channel:
        DealerServiceStub(channel).RevealSeed(...)

    async with aio_channel_as(lobby.address) as channel:
        ...

A stack started by ``holdem stack up`` in another process writes its key ring to
``<stack dir>/service-keys`` (mode 0600); the CLI's commands call as ``tools`` with
:func:`cli_service_keys`: HOLDEM_SERVICE_KEYS if set, else that file, else this process's own
keys (services it started itself).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import grpc

from libs.auth.keys import KeyRing
from libs.platform.clients import signed_aio_channel, signed_channel
from libs.platform.identity import TOOLS, ServiceSigner

from .services import DEV_SERVICE_KEYS

__all__ = [
    "SERVICE_KEYS_FILE",
    "aio_channel_as",
    "channel_as",
    "cli_service_keys",
    "signer_as",
    "stack_service_keys",
    "write_service_keys",
]

SERVICE_KEYS_FILE = "service-keys"


def signer_as(service: str = TOOLS, keys: str | None = None) -> ServiceSigner:
    """A signer of ``service``'s tokens with ``keys`` (default: this run's DEV_SERVICE_KEYS)."""
    return ServiceSigner(KeyRing.parse(keys or DEV_SERVICE_KEYS), service)


def channel_as(
    address: str, service: str = TOOLS, *, keys: str | None = None, **kwargs: Any
) -> grpc.Channel:
    """A blocking channel to ``address`` whose calls say they come from ``service``."""
    return signed_channel(address, signer_as(service, keys), **kwargs)


def aio_channel_as(
    address: str, service: str = TOOLS, *, keys: str | None = None, **kwargs: Any
) -> grpc.aio.Channel:
    """An asyncio channel to ``address`` whose calls say they come from ``service``."""
    return signed_aio_channel(address, signer_as(service, keys), **kwargs)


def write_service_keys(directory: Path, keys: str) -> Path:
    """Keep a stack's service key ring in ``directory`` for tools run later (owner-only)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SERVICE_KEYS_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(keys + "\n")
    return path


def stack_service_keys(directory: Path) -> str | None:
    """HOLDEM_SERVICE_KEYS if set, else the key ring a stack wrote to ``directory``, else None."""
    if os.environ.get("HOLDEM_SERVICE_KEYS"):
        return os.environ["HOLDEM_SERVICE_KEYS"]
    try:
        return (directory / SERVICE_KEYS_FILE).read_text().strip() or None
    except OSError:
        return None


def cli_service_keys() -> str:
    """The keys a CLI command signs with: HOLDEM_SERVICE_KEYS, else those of the stack in
    $HOLDEM_STACK_DIR (default ./.stack), else this process's own (DEV_SERVICE_KEYS)."""
    directory = Path(os.environ.get("HOLDEM_STACK_DIR") or Path.cwd() / ".stack")
    return stack_service_keys(directory) or DEV_SERVICE_KEYS
