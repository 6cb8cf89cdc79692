"""Connecting to NATS the same way everywhere: one server or every node of a cluster.

``HOLDEM_NATS_URL`` holds one URL or a cluster's nodes comma-separated; nats-py wants a list, so
``connect_nats`` splits it. The client reconnects without end (a node that dies is replaced by
another node of the pool, or by the same one when it is back) and tries again soon, so a
killed node costs a few hundred milliseconds, not nats-py's default two seconds per round.

Credentials come in the URL (``nats://user:password@host:port``, as the local stack, compose and
k8s give each service its own user). A client with a user takes its reply inboxes under
``_INBOX_<user>`` (``inbox_prefix``): servers with per-user permissions let each user subscribe
only to its own inboxes, so no user can read another's JetStream deliveries or replies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any
from urllib.parse import unquote, urlsplit

import nats
import nats.errors
from nats.aio.client import Client as NATS

from libs.platform.configvars import redact_url, split_urls
from libs.platform.tls import TlsFiles, ssl_context

__all__ = ["connect_nats", "inbox_prefix", "nats_servers", "nats_user"]

RECONNECT_WAIT_SECONDS = 0.25
# A server that stops answering (hung, frozen, a network path dropping packets) without closing
# the connection is noticed by unanswered pings: nats-py's defaults (every 120 s, two missed)
# left a service SERVING on a dead NATS for minutes. Every 5 s, two missed: NOT_SERVING within
# about 15 s, then reconnecting.
PING_INTERVAL_SECONDS = 5
MAX_OUTSTANDING_PINGS = 2
# Until its first connection a client tries without end too (a service waits for its NATS
# rather than exiting), so it says so: once at the first failed attempt, then at most this often.
WAITING_LOG_SECONDS = 10.0
log = logging.getLogger("holdem.nats")


def nats_servers(url: str) -> list[str]:
    """The server URLs of ``HOLDEM_NATS_URL`` (one, or a cluster's nodes comma-separated)."""
    servers = split_urls(url)
    if not servers:
        raise ValueError("no NATS server URL given")
    return servers


def nats_user(url: str) -> str | None:
    """The user named in ``HOLDEM_NATS_URL`` (its first URL), None without one."""
    try:
        user = urlsplit(nats_servers(url)[0]).username
    except ValueError:
        return None
    return unquote(user) if user else None


def inbox_prefix(user: str) -> str:
    """The reply-inbox prefix of a NATS user: the only one its permissions let it subscribe
    to (libs.devstack.access writes those permissions)."""
    return f"_INBOX_{user}"


class _ErrorLog:
    """nats-py's default prints a traceback for every failed reconnect attempt (a node that is
    down): those are expected while it fails over, so they are logged at debug level. Before
    the first connection they are not: a service whose NATS is down or wrong would otherwise
    wait without a word, so it warns, naming the servers, every ``WAITING_LOG_SECONDS``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.connected = False
        self._last_warning = -WAITING_LOG_SECONDS

    async def report(self, exc: Exception) -> None:
        if not self.connected and isinstance(exc, (OSError, TimeoutError, nats.errors.Error)):
            if time.monotonic() - self._last_warning >= WAITING_LOG_SECONDS:
                self._last_warning = time.monotonic()
                reason = str(exc) or type(exc).__name__
                log.warning(
                    "nats: waiting for %s (not connected yet: %s)", redact_url(self.url), reason
                )
            return
        expected = isinstance(
            exc, (OSError, nats.errors.UnexpectedEOF, nats.errors.StaleConnectionError)
        )
        level = logging.DEBUG if expected else logging.WARNING
        log.log(level, "nats: %s: %s", type(exc).__name__, exc)


async def connect_nats(url: str, tls: TlsFiles | None = None, **options: Any) -> NATS:
    """A connected client for ``url`` (one URL or several); ``options`` go to nats-py. ``tls``:
    the CA to trust and the certificate to present when the URL is ``tls://``."""
    settings: dict[str, Any] = {
        "max_reconnect_attempts": -1,
        "reconnect_time_wait": RECONNECT_WAIT_SECONDS,
        "connect_timeout": 2,
        "ping_interval": PING_INTERVAL_SECONDS,
        "max_outstanding_pings": MAX_OUTSTANDING_PINGS,
    }
    errors = _ErrorLog(url)
    settings["error_cb"] = errors.report
    user = nats_user(url)
    if user is not None:
        settings["inbox_prefix"] = inbox_prefix(user)
    if tls is not None and any(u.startswith("tls://") for u in nats_servers(url)):
        settings["tls"] = ssl_context(tls)
    settings.update(options)
    nc = await nats.connect(servers=nats_servers(url), **settings)
    errors.connected = True
    return nc


async def close_nats(nc: NATS, drain_seconds: float = 5.0) -> None:
    """Drain ``nc`` (deliver what is in flight, then close), for at most ``drain_seconds``;
    then close it regardless. nats-py's drain waits without end while the server is gone (its
    subscriptions' queues never empty and it keeps reconnecting), which held a stopping service
    past its SIGTERM for good when NATS died first."""
    with contextlib.suppress(Exception):  # a timeout, or a connection closed or never made
        await asyncio.wait_for(nc.drain(), drain_seconds)
    if not nc.is_closed:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(nc.close(), drain_seconds)


def nats_readiness(nc: NATS) -> str | None:
    """A service's readiness (``Mount.readiness``) when NATS holds what it serves: why it
    cannot serve now (NOT_SERVING), or None."""
    if not nc.is_connected:
        return "NATS is not connected"
    return None
