"""JetStream publishes whose acknowledgements come through the parser hook (``natsraw``): nats-py's
``request`` builds a ``Msg`` for the answer, queues it to its inbox subscription's task, whose
callback resolves a future that ``asyncio.wait_for`` (another future and a timer) waits on: most
of the client's CPU of a JetStream publish with its acknowledgement. ``RawRequests`` answers
requests from one wildcard inbox taken by a raw handler; ``js_publish`` and ``JetStreamPublisher``
publish through it with nats-py's headers, acknowledgements and errors (and through nats-py's
own ``publish`` where nats-py has no hook).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

import nats.errors
import orjson
import structlog
from nats.js import api
from nats.js.errors import APIError, NoStreamResponseError

from .natsheaders import EXPECTED_STREAM
from .natsraw import RawHandler, raw_handlers
from .natswrite import publish, publish_now

log = structlog.get_logger("eventstore.publish")

#: What a request's answer is handed to: its payload and header block, or the error.
Answer = tuple[bytes, bytes | None]
AnswerCallback = Callable[["Answer | BaseException"], None]


class AnswerLost(nats.errors.TimeoutError):
    """The connection was lost (or closed) while a request waited for its answer: none can come
    (the server answers to the inbox of the connection that asked, and a server that died took
    the request with it), so the request fails at once instead of at its timeout. Like a
    timeout, its outcome is unknown (an append may have landed): a ``nats.errors.TimeoutError``,
    handled as one (retried with the same message id, which JetStream deduplicates)."""

    def __str__(self) -> str:
        return "nats: connection lost before the answer came (the request may have been applied)"


class _Waiting:
    """One request waiting for its answer: a future to resolve, or a callback to call."""

    __slots__ = ("callback", "deadline", "future")

    def __init__(
        self,
        future: asyncio.Future[Answer] | None,
        callback: AnswerCallback | None,
        deadline: float,
    ) -> None:
        self.future = future
        self.callback = callback
        self.deadline = deadline

    def settle(self, result: Answer | BaseException) -> None:
        if self.future is not None:
            if not self.future.done():
                if isinstance(result, BaseException):
                    self.future.set_exception(result)
                else:
                    self.future.set_result(result)
        elif self.callback is not None:
            self.callback(result)


class RawRequests:
    """Requests on one connection whose answers come to one wildcard inbox taken by a raw
    handler. nats-py's ``request`` also builds a ``Msg``, queues it to its inbox subscription's
    task, whose callback resolves a future that ``asyncio.wait_for`` (another future and a
    timer) waits on: most of the client's CPU of a JetStream publish with its acknowledgement.
    Here a request is a future (``request``) or a callback called in the parser's own call
    (``request_nowait``), and one timer per connection, not one per request, expires those
    whose time ran out."""

    def __init__(self, nc: Any, handlers: dict[int, RawHandler]) -> None:
        self._nc = nc
        self._handlers = handlers
        self._prefix = ""
        self._waiting: dict[bytes, _Waiting] = {}
        self._count = 0
        self._subscribing: asyncio.Lock | None = None
        self._sweep: asyncio.TimerHandle | None = None
        self._sweep_at = 0.0
        self._watch_disconnects()

    def _watch_disconnects(self) -> None:
        """Fail every waiting request when the connection is lost: nats-py calls its
        disconnected callback once the old socket is closed, before it connects again (and
        at close). Chained onto the connection's own callback, which still runs."""
        if not hasattr(self._nc, "_disconnected_cb"):
            return
        previous = self._nc._disconnected_cb

        async def disconnected() -> None:
            self.fail_all(AnswerLost())
            if previous is not None:
                await previous()

        self._nc._disconnected_cb = disconnected

    def fail_all(self, error: BaseException) -> None:
        """Settle every waiting request with ``error`` (their answers cannot come)."""
        waiting, self._waiting = self._waiting, {}
        _settle_each(waiting.values(), error)

    @property
    def ready(self) -> bool:
        """The inbox is subscribed (``request_nowait`` can be used)."""
        return bool(self._prefix)

    async def _inbox_prefix(self) -> str:
        if not self._prefix:
            if self._subscribing is None:
                self._subscribing = asyncio.Lock()
            async with self._subscribing:
                if not self._prefix:
                    prefix = self._nc.new_inbox()
                    sub = await self._nc.subscribe(f"{prefix}.*")  # no callback, no task
                    self._handlers[sub._id] = self._answer
                    self._prefix = prefix
        return self._prefix

    def _wait(
        self,
        loop: asyncio.AbstractEventLoop,
        timeout: float,
        future: asyncio.Future[Answer] | None,
        callback: AnswerCallback | None,
    ) -> tuple[str, bytes]:
        self._count += 1
        inbox = f"{self._prefix}.{self._count}"
        key = inbox.encode()
        deadline = loop.time() + timeout
        self._waiting[key] = _Waiting(future, callback, deadline)
        # The sweep runs at the earliest deadline it knows of; a request answered in time
        # leaves it be (it finds nothing to expire and sleeps until the next deadline).
        if self._sweep is None or deadline < self._sweep_at:
            if self._sweep is not None:
                self._sweep.cancel()
            self._sweep_at = deadline
            self._sweep = loop.call_at(deadline, self._expire_due, loop)
        return inbox, key

    def _expire_due(self, loop: asyncio.AbstractEventLoop) -> None:
        self._sweep = None
        now = loop.time()
        due = [key for key, w in self._waiting.items() if w.deadline <= now]
        overdue = [self._waiting.pop(key) for key in due]
        # the next sweep is set before any callback runs: one that raises stops no other expiry
        if self._waiting:
            self._sweep_at = min(w.deadline for w in self._waiting.values())
            self._sweep = loop.call_at(self._sweep_at, self._expire_due, loop)
        _settle_each(overdue, nats.errors.TimeoutError())

    async def request(
        self, subject: str, payload: bytes, headers: dict[str, str], timeout: float
    ) -> Answer:
        """The answer's payload and header block; ``nats.errors.TimeoutError`` when none came
        within ``timeout`` seconds."""
        if not self._prefix:
            await self._inbox_prefix()
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Answer] = loop.create_future()
        inbox, key = self._wait(loop, timeout, answer, None)
        try:
            await publish(self._nc, subject, payload, inbox, headers)
            return await answer
        finally:
            self._waiting.pop(key, None)

    def request_nowait(
        self,
        subject: str,
        payload: bytes,
        headers: dict[str, str],
        timeout: float,
        callback: AnswerCallback,
    ) -> bool:
        """Send the request now and hand its answer (or ``nats.errors.TimeoutError``) to
        ``callback``, in the parser's call; False, and nothing sent, when it cannot be written
        to the socket at once (no inbox yet, the connection not up, earlier commands queued):
        then use ``request``."""
        if not self._prefix:
            return False
        loop = asyncio.get_running_loop()
        inbox, key = self._wait(loop, timeout, None, callback)
        try:
            sent = publish_now(self._nc, subject, payload, inbox, headers)
        except BaseException:
            self._waiting.pop(key, None)
            raise
        if not sent:
            self._waiting.pop(key, None)
        return sent

    def _answer(self, subject: bytes, reply: bytes, data: bytes, block: bytes | None) -> None:
        waiting = self._waiting.pop(subject, None)
        if waiting is not None:
            waiting.settle((data, block))


def _settle_each(waiting: Iterable[_Waiting], error: BaseException) -> None:
    """Settle each of ``waiting`` with ``error``; a callback that raises is logged and stops
    none of the others (each would otherwise wait for good)."""
    for one in waiting:
        try:
            one.settle(error)
        except Exception:
            log.exception("request_callback_failed")


class JetStreamPublisher:
    """JetStream publishes of one connection, their acknowledgements taken through the parser
    hook (``RawRequests`` and ``js_publish``), which is set up at the first publish (a
    connection that only reads gets no hook); nats-py's own ``publish`` where nats-py has no
    hook. The same acknowledgements and errors either way."""

    def __init__(self, nc: Any, timeout: float) -> None:
        self._nc = nc
        self._js = nc.jetstream(timeout=timeout)
        self._timeout = timeout
        self._requests: RawRequests | None = None
        self._checked = False

    def _raw(self) -> RawRequests | None:
        if not self._checked:
            handlers = raw_handlers(self._nc)
            self._requests = None if handlers is None else RawRequests(self._nc, handlers)
            self._checked = True
        return self._requests

    async def publish(
        self, subject: str, payload: bytes, *, stream: str, headers: dict[str, str]
    ) -> api.PubAck:
        requests = self._raw()
        if requests is None:
            ack: api.PubAck = await self._js.publish(
                subject, payload, stream=stream, headers=headers
            )
            return ack
        return await js_publish(
            requests,
            subject,
            payload,
            stream=stream,
            headers=headers,
            timeout=self._timeout,
        )

    async def request(self, subject: str, payload: bytes, headers: dict[str, str]) -> bytes:
        """A plain request on this connection (no JetStream checks; an atomic batch's commit);
        its answer's payload. Through the raw path it fails at once with ``AnswerLost`` when the
        connection drops (nats-py's own ``request`` waits for its timeout whatever becomes of
        the connection); ``nats.errors.TimeoutError`` when no answer came in time."""
        requests = self._raw()
        if requests is None:
            msg = await self._nc.request(subject, payload, headers=headers, timeout=self._timeout)
            return bytes(msg.data)
        data, _ = await requests.request(subject, payload, headers, self._timeout)
        return data

    def publish_nowait(
        self,
        subject: str,
        payload: bytes,
        *,
        stream: str,
        headers: dict[str, str],
        callback: Callable[[api.PubAck | BaseException], None],
    ) -> bool:
        """``publish``, sent now, its acknowledgement (or the error ``publish`` would raise)
        handed to ``callback`` in the parser's call; False, and nothing sent, when that is not
        possible now (use ``publish``)."""
        requests = self._raw()
        if requests is None or not requests.ready:
            return False

        def answered(result: Answer | BaseException) -> None:
            if isinstance(result, BaseException):
                callback(result)
                return
            try:
                ack = _acknowledgement(*result)
            except Exception as exc:
                callback(exc)
                return
            callback(ack)

        headers[EXPECTED_STREAM] = stream
        return requests.request_nowait(subject, payload, headers, self._timeout, answered)


_NO_RESPONDERS = b"503"
#: The fields of an ordinary acknowledgement, read without nats-py's generic ``from_response``.
_PLAIN_ACK = frozenset({"stream", "seq", "duplicate", "domain"})


def _status(block: bytes | None) -> bytes:
    """The inline status of a header block (``NATS/1.0 503``), b"" if it has none."""
    if block is None or block[8:9] != b" ":
        return b""
    return block[9:12]


def _acknowledgement(data: bytes, block: bytes | None) -> api.PubAck:
    """The acknowledgement of a JetStream publish from its answer, or the error nats-py's
    ``JetStreamContext.publish`` raises for it."""
    if not data and _status(block) == _NO_RESPONDERS:
        raise NoStreamResponseError
    response = orjson.loads(data)
    if "error" in response:
        raise APIError.from_error(response["error"])
    if response.keys() <= _PLAIN_ACK:
        return api.PubAck(
            stream=response["stream"],
            seq=response["seq"],
            domain=response.get("domain"),
            duplicate=response.get("duplicate"),
        )
    return api.PubAck.from_response(response)


async def js_publish(
    requests: RawRequests,
    subject: str,
    payload: bytes,
    *,
    stream: str,
    headers: dict[str, str],
    timeout: float,
) -> api.PubAck:
    """nats-py's ``JetStreamContext.publish(subject, payload, stream=..., headers=...)``
    through ``requests``: the same headers, the same acknowledgement, the same errors
    (``NoStreamResponseError`` when no stream listens, ``APIError`` subclasses for what the
    stream refuses, ``nats.errors.TimeoutError``)."""
    headers[EXPECTED_STREAM] = stream  # the name itself (api.Header's member is a str enum)
    data, block = await requests.request(subject, payload, headers, timeout)
    return _acknowledgement(data, block)
