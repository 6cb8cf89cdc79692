"""Which lobby replica reads a feed of the public projection (public_feed.py) now: the holder of
that feed's lease (a NATS KV entry, libs/eventstore/lease.py), so that the feed's messages in
flight, a batch of them, are all with one replica at a time and are handled in order.

The holder renews its lease every third of the TTL while it reads; a replica that loses it (it
could not renew it in time) stops before its batch's next message, and that message and the
rest are redelivered to the next holder when their ack wait is out. A replica
that takes the lease first waits until the consumer has no message in flight (the last holder's
batch acknowledged), or for the ack wait (and a margin) at most: its messages are then delivered
again, before any later one."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable

import structlog
from nats.aio.client import Client as NATS

from libs.eventstore.lease import LeaseLost, Leases
from libs.platform.tasks import honour_cancel

log = structlog.get_logger("lobby.feed_lease")

BUCKET = "holdem_lobby_feed_leases"
TTL_SECONDS = 6.0
#: After the ack wait, JetStream's check of expired messages (which then go before any other).
EXPIRY_MARGIN_SECONDS = 2.0
#: How long a stopping replica tries to give the lease up.
RELEASE_SECONDS = 2.0
#: How often a replica without the lease asks for it.
WAIT_SECONDS = 1.0


class FeedLease:
    def __init__(
        self,
        nc: NATS,
        feed: str,
        in_flight: Callable[[], Awaitable[int]],
        ack_wait: float,
        ttl: float = TTL_SECONDS,
    ) -> None:
        owner = f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.leases = Leases(nc, owner, bucket=BUCKET, ttl=ttl)
        self.feed = feed
        self.in_flight = in_flight  # the consumer's messages delivered and not acknowledged
        self.ack_wait = ack_wait
        self._started = False

    async def held(self) -> bool:
        """Whether this replica still holds the feed: renewed recently enough, or renewed now
        (which fails if the lease lapsed, even if nobody took it since)."""
        if self.leases.fresh(self.feed):
            return True
        try:
            await self.leases.renew(self.feed)
        except Exception as exc:  # lost, or NATS did not answer: not surely ours
            log.warning("feed lease not renewed", feed=self.feed, error=str(exc)[:200])
            return False
        return True

    async def take(self) -> None:
        """Wait until this replica holds the feed and the last holder's batch is done."""
        if not self._started:
            await self.leases.start()
            self._started = True
        while not await self.leases.acquire(self.feed):
            await asyncio.sleep(WAIT_SECONDS)
        log.info("feed taken", feed=self.feed, owner=self.leases.owner)
        deadline = time.monotonic() + self.ack_wait + EXPIRY_MARGIN_SECONDS
        while time.monotonic() < deadline and await self.in_flight() > 0:
            await asyncio.sleep(min(WAIT_SECONDS, self.leases.ttl / 3))
            await self.leases.renew(self.feed)

    async def keep(self) -> None:
        """Renew the lease for ever (run beside the reading; ends when the lease is lost)."""
        while True:
            await asyncio.sleep(self.leases.ttl / 3)
            try:
                await self.leases.renew(self.feed)
            except LeaseLost:
                honour_cancel()  # stopped meanwhile: nothing to say
                log.warning("feed lease lost", feed=self.feed)
                return
            except Exception as exc:  # NATS slow or away: ``held`` tries again before a commit
                honour_cancel()
                log.warning("feed lease not renewed", feed=self.feed, error=str(exc)[:200])
            honour_cancel()  # a renewal that swallowed the stop

    async def release(self) -> None:
        """Give the feed up (best effort, bounded: a lease left behind expires in a TTL)."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.leases.release(self.feed), RELEASE_SECONDS)
