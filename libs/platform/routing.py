"""A channel that sends each call to the replica that serves its key.

Replicas of a sharded service (the table service: services/table/ownership.py) each serve part of
the keys, and answer UNAVAILABLE with error code NOT_OWNER for the others. One channel to one
address (a Kubernetes Service pins a caller to one pod) would get NOT_OWNER for every key held
elsewhere. ``RoutedChannel`` is used wherever a ``grpc.aio.Channel`` is (the generated stubs and
their call sites stay as they are): each unary call is sent by its request's ``key`` field
(``table_id``) to the owner's address (``Owners``, e.g. libs/eventstore/owners.py), on a channel
per replica made like the default one. On NOT_OWNER, or UNAVAILABLE from a replica gone, the owner
is looked up afresh and the call made again on it, a bounded number of times, within the call's
deadline; an owner that lets a call run out its deadline is looked up afresh by the next. With no
owner known the call goes to the default channel (the configured address): the replica that gets it
adopts an unheld key, as without routing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

import grpc
import structlog

from libs.platform.errors import error_code_of

log = structlog.get_logger("platform.routing")

NOT_OWNER = "NOT_OWNER"  # the table service's refusal of a key another replica serves


class Owners(Protocol):
    async def address(self, key: str) -> str | None: ...

    def forget(self, key: str) -> None: ...


class RoutedChannel(grpc.aio.Channel):
    """Routes unary-unary calls by ``request.<key>``; calls of other kinds, and requests with
    no key, go to ``default``. ``connect(address)`` makes the channel to one replica (same
    options, identity, TLS as ``default``); ``default_address`` is ``default``'s target, so an
    owner announced at that address reuses it."""

    def __init__(
        self,
        default: grpc.aio.Channel,
        default_address: str,
        owners: Owners,
        connect: Callable[[str], grpc.aio.Channel],
        *,
        key: str = "table_id",
        attempts: int = 4,
        backoff_seconds: float = 0.05,
    ) -> None:
        self.default = default
        self.default_address = default_address
        self.owners = owners
        self._connect = connect
        self.key = key
        self.attempts = max(1, attempts)
        self.backoff_seconds = backoff_seconds
        self._channels: dict[str, grpc.aio.Channel] = {}
        self.rerouted = 0  # calls made again on another owner after a refusal

    def channel(self, address: str | None) -> grpc.aio.Channel:
        if address is None or address == self.default_address:
            return self.default
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = self._connect(address)
        return channel

    async def route(self, key: str) -> tuple[str | None, grpc.aio.Channel]:
        address = await self.owners.address(key) if key else None
        return address, self.channel(address)

    # ---- grpc.aio.Channel ---------------------------------------------------------------------

    def unary_unary(
        self,
        method: str,
        request_serializer: Any = None,
        response_deserializer: Any = None,
        _registered_method: bool | None = False,
    ) -> Any:
        return _RoutedUnaryUnary(self, method, request_serializer, response_deserializer)

    def unary_stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self.default.unary_stream(method, *args, **kwargs)

    def stream_unary(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self.default.stream_unary(method, *args, **kwargs)

    def stream_stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        return self.default.stream_stream(method, *args, **kwargs)

    async def close(self, grace: float | None = None) -> None:
        channels = [*self._channels.values(), self.default]
        self._channels.clear()
        await asyncio.gather(*(c.close(grace) for c in channels), return_exceptions=True)

    async def __aenter__(self) -> RoutedChannel:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close(None)

    def get_state(self, try_to_connect: bool = False) -> grpc.ChannelConnectivity:
        return self.default.get_state(try_to_connect)

    async def wait_for_state_change(self, last_observed_state: grpc.ChannelConnectivity) -> None:
        await self.default.wait_for_state_change(last_observed_state)

    async def channel_ready(self) -> None:
        await self.default.channel_ready()


#: an owner that did not answer in time: kept in the cache, every call would wait on it until
#: the cache's age ran out (30 s), long after another replica took its shards over
_SILENT = (grpc.StatusCode.DEADLINE_EXCEEDED,)


def _refused(exc: grpc.aio.AioRpcError, address: str | None) -> bool:
    """The call may go to another owner: this one refused the key (NOT_OWNER), or the replica
    routed to could not be reached (it may be gone and its keys adopted by another)."""
    if exc.code() != grpc.StatusCode.UNAVAILABLE:
        return False
    return error_code_of(exc) == NOT_OWNER or address is not None


class _RoutedUnaryUnary:
    def __init__(
        self, routed: RoutedChannel, method: str, serializer: Any, deserializer: Any
    ) -> None:
        self.routed = routed
        self.method = method
        self.serializer = serializer
        self.deserializer = deserializer
        self._callables: dict[int, Any] = {}  # id(channel) -> its multicallable

    def _callable(self, channel: grpc.aio.Channel) -> Any:
        found = self._callables.get(id(channel))
        if found is None:
            registered: dict[str, Any] = {"_registered_method": True}  # as the stubs pass it
            found = self._callables[id(channel)] = channel.unary_unary(
                self.method,
                request_serializer=self.serializer,
                response_deserializer=self.deserializer,
                **registered,
            )
        return found

    def __call__(self, request: Any, *, timeout: float | None = None, **kwargs: Any) -> Any:
        return self._call(request, timeout, kwargs)

    async def _call(self, request: Any, timeout: float | None, kwargs: dict[str, Any]) -> Any:
        routed = self.routed
        key = str(getattr(request, routed.key, "") or "")
        deadline = None if timeout is None else time.monotonic() + timeout
        for attempt in range(routed.attempts):
            address, channel = await routed.route(key)
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await self._callable(channel)(request, timeout=left, **kwargs)
            except grpc.aio.AioRpcError as exc:
                if key and address is not None and exc.code() in _SILENT:
                    # an owner that answered nothing in the call's time (cut off, stopped):
                    # looked up afresh by the next call, which finds the replica that
                    # adopted its shard once its lease lapsed (no time left for this one)
                    routed.owners.forget(key)
                last = attempt == routed.attempts - 1
                if not key or last or not _refused(exc, address):
                    raise
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                routed.owners.forget(key)
                routed.rerouted += 1
                log.debug("call_rerouted", key=key, address=address, code=error_code_of(exc))
                await asyncio.sleep(routed.backoff_seconds * 2**attempt)
        raise AssertionError("unreachable")  # the last attempt returns or raises
