"""Connecting to NATS the same way everywhere: one server or every node of a cluster.

``HOLDEM_NATS_URL`` holds one URL or a cluster's nodes comma-separated; nats-py wants a list, so
``connect_nats`` splits it. The client reconnects without end (a node that dies is replaced by
another node of the pool, or by the same one when it is back) and tries again soon, so a
killed node costs a few hundred milliseconds, not nats-py's default two seconds per round.
"""

from __future__ import annotations

import logging
from typing import Any

import nats
import nats.errors
from nats.aio.client import Client as NATS

from libs.platform.config import split_urls

__all__ = ["connect_nats", "nats_servers"]

RECONNECT_WAIT_SECONDS = 0.25
log = logging.getLogger("holdem.nats")


def nats_servers(url: str) -> list[str]:
    """The server URLs of ``HOLDEM_NATS_URL`` (one, or a cluster's nodes comma-separated)."""
    servers = split_urls(url)
    if not servers:
        raise ValueError("no NATS server URL given")
    return servers


async def _quiet_errors(exc: Exception) -> None:
    """nats-py's default prints a traceback for every failed reconnect attempt (a node that is
    down): those are expected while it fails over, so they are logged at debug level."""
    expected = isinstance(
        exc, (OSError, nats.errors.UnexpectedEOF, nats.errors.StaleConnectionError)
    )
    level = logging.DEBUG if expected else logging.WARNING
    log.log(level, "nats: %s: %s", type(exc).__name__, exc)


async def connect_nats(url: str, **options: Any) -> NATS:
    """A connected client for ``url`` (one URL or several); ``options`` go to nats-py."""
    settings: dict[str, Any] = {
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": RECONNECT_WAIT_SECONDS,
        "connect_timeout": 2,
        "error_cb": _quiet_errors,
    }
    settings.update(options)
    return await nats.connect(servers=nats_servers(url), **settings)
