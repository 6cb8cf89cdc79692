"""Messages of chosen subscriptions handed straight from nats-py's protocol parser to a function.

A table's full load reads one message per commit (10,000 events are about 5,000 messages). For
every message nats-py 2.16 parses the header block into a dict, builds a ``Msg``, puts it on the
subscription's queue, and the subscription's task takes it off and awaits the callback, which
parses the reply subject into a ``Metadata`` object: about half of the read's time. A raw
handler instead gets the subject, the reply subject, the payload and the header block as
bytes, in the parser's own call (nothing queued, no task switch), and takes what it needs.
``RawRequests`` and ``js_publish`` do the same for the acknowledgements of JetStream publishes
(the table's public projection: one per commit).

``raw_handlers(nc)`` gives connection ``nc``'s table of handlers by subscription id (``sub._id``)
and installs the hook once, as an instance attribute (nats-py itself and every other connection
are untouched; messages of subscriptions without a handler take nats-py's path unchanged). With
a nats-py that has no such hook it gives None, and the caller reads the ordinary way.

With the optional C reader (``_frames``), the parser's buffer is read first: the complete
frames at its start that belong to raw handlers are taken in one C call and handed over; the
first thing that is not one, and all after it, goes through nats-py's parser as before (a stream
read of 5,000 messages spends about a third of its time in nats-py's parser otherwise).
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable
from typing import Any

import nats.errors
import orjson
from nats.js import api
from nats.js.errors import APIError, NoStreamResponseError
from nats.protocol.command import hpub_cmd

from .natsheaders import EXPECTED_STREAM

try:
    from . import _frames
except ImportError:  # built without a C compiler: nats-py's parser reads every frame
    _frames = None  # type: ignore[assignment]

#: nats-py's parser state between frames (``nats.protocol.parser.AWAITING_CONTROL_LINE``)
_AWAITING_CONTROL_LINE = 1

#: ``handler(subject, reply, payload, header_block)``: called in the parser's own call, must
#: not block.
RawHandler = Callable[[bytes, bytes, bytes, bytes | None], None]

_ATTRIBUTE = "_holdem_raw_handlers"


def raw_handlers(nc: Any) -> dict[int, RawHandler] | None:
    """Connection ``nc``'s raw handlers by subscription id (None: this nats-py has no hook)."""
    handlers: dict[int, RawHandler] | None = getattr(nc, _ATTRIBUTE, None)
    if handlers is not None:
        return handlers
    process = getattr(nc, "_process_msg", None)
    stats = getattr(nc, "stats", None)
    if not inspect.iscoroutinefunction(process) or not isinstance(stats, dict):
        return None
    try:
        parameters = list(inspect.signature(process).parameters)
    except (TypeError, ValueError):
        return None
    if parameters != ["sid", "subject", "reply", "data", "headers"]:
        return None
    table: dict[int, RawHandler] = {}

    async def _process_msg(
        sid: int, subject: bytes, reply: bytes, data: bytes, headers: bytes | None
    ) -> None:
        handler = table.get(sid)
        if handler is None:
            await process(sid, subject, reply, data, headers)
            return
        stats["in_msgs"] += 1
        stats["in_bytes"] += len(data)
        handler(subject, reply, data, headers)

    nc._process_msg = _process_msg
    _read_frames_first(nc, table, stats, _process_msg)
    setattr(nc, _ATTRIBUTE, table)
    return table


def _read_frames_first(
    nc: Any, table: dict[int, RawHandler], stats: dict[str, int], process: Callable[..., Any]
) -> None:
    """Put the C frame reader in front of connection ``nc``'s parser (when built, and the
    parser is the one it knows: a ``buf`` bytearray, a ``state`` and an async ``parse``)."""
    parser = getattr(nc, "_ps", None)
    parse = getattr(parser, "parse", None)
    if (
        _frames is None
        or not isinstance(getattr(parser, "buf", None), bytearray)
        or getattr(parser, "state", None) != _AWAITING_CONTROL_LINE
        or not inspect.iscoroutinefunction(parse)
    ):
        return
    assert parser is not None and parse is not None
    take = _frames.take

    async def parse_frames_first(data: bytes = b"") -> None:
        if table and parser.state == _AWAITING_CONTROL_LINE:
            buf = parser.buf
            buf.extend(data)
            data = b""
            frames, used, hold = take(buf, table)
            if used:
                del buf[:used]
                for sid, subject, reply, payload, block in frames:
                    handler = table.get(sid)
                    if handler is None:  # gone with an earlier frame's handler: nats-py's way
                        await process(sid, subject, reply, payload, block)
                        continue
                    stats["in_msgs"] += 1
                    stats["in_bytes"] += len(payload)
                    handler(subject, reply, payload, block)
            if hold:  # a raw frame still arriving: taken here when the rest is in
                return
        await parse(data)

    parser.parse = parse_frames_first


#: The tokens of a JetStream delivery's reply subject: ``$JS.ACK.<stream>.<consumer>.
#: <delivered>.<stream seq>.<consumer seq>.<time>.<pending>`` (9), or with a domain and an
#: account hash before the stream (12, or 11 from older servers), as nats-py reads them.
_V1_TOKENS = 9
_V1_STREAM_SEQUENCE = 5
_V2_STREAM_SEQUENCE = 7


def stream_sequence(reply: bytes) -> int:
    """The stream sequence of a JetStream delivery from its reply subject (ValueError if the
    subject is not a JetStream acknowledgement subject)."""
    tokens = reply.split(b".")
    if len(tokens) >= 2 and tokens[0] == b"$JS" and tokens[1] == b"ACK":
        if len(tokens) == _V1_TOKENS:
            return int(tokens[_V1_STREAM_SEQUENCE])
        if len(tokens) >= 11:
            return int(tokens[_V2_STREAM_SEQUENCE])
    raise ValueError(f"not a JetStream delivery: {reply!r}")


#: What a request's answer is handed to: its payload and header block, or the error.
Answer = tuple[bytes, bytes | None]
AnswerCallback = Callable[["Answer | BaseException"], None]


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
        overdue = [key for key, w in self._waiting.items() if w.deadline <= now]
        for key in overdue:
            waiting = self._waiting.pop(key)
            waiting.settle(nats.errors.TimeoutError())
        if self._waiting:
            self._sweep_at = min(w.deadline for w in self._waiting.values())
            self._sweep = loop.call_at(self._sweep_at, self._expire_due, loop)

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


# Headers nats-py would write unchanged: names of its allowed characters, values of printable
# ASCII that neither start nor end with a space (nats-py strips values and turns line breaks
# in them into spaces; such values take its own path). Checked joined by line breaks, which
# neither may hold: one regular expression for all names, one for all values.
_PLAIN_NAMES = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:\n[!#$%&'*+\-.^_`|~0-9A-Za-z]+)*")
_PLAIN_VALUE = r"[!-~](?:[ -~]*[!-~])?"
_PLAIN_VALUES = re.compile(f"{_PLAIN_VALUE}(?:\n{_PLAIN_VALUE})*")
_SUBJECT_INVALID = re.compile(r"[ \t\r\n]")


def header_block(headers: dict[str, str]) -> bytes | None:
    """The header block nats-py 2.16 would build for ``headers``, in one join instead of its
    line-by-line checks (a third of the CPU of a publish); None when a header is not plain
    (nats-py then builds it)."""
    if any(type(name) is not str or type(value) is not str for name, value in headers.items()):
        return None  # e.g. a str enum, which a format string writes as "Enum.MEMBER"
    names, values = "\n".join(headers), "\n".join(headers.values())
    breaks = len(headers) - 1  # the joins' own: a name or value holding one is not plain
    if not (
        names.count("\n") == values.count("\n") == breaks
        and _PLAIN_NAMES.fullmatch(names)
        and _PLAIN_VALUES.fullmatch(values)
    ):
        return None
    text = "".join([f"{name}: {value}\r\n" for name, value in headers.items()])
    return b"NATS/1.0\r\n" + text.encode() + b"\r\n"


_INTERNALS = (
    "is_closed",
    "is_draining_pubs",
    "is_connected",
    "stats",
    "_max_pending_size",
    "_pending_data_size",
    "_max_payload",
    "_send_command",
    "_flush_queue",
    "_flush_pending",
    "_status",
    "CONNECTED",
    "_transport",
)


def _has_internals(nc: Any) -> bool:
    """``nc`` has what ``publish`` uses of nats-py 2.16's client (else nats-py publishes)."""
    known: bool | None = getattr(nc, "_holdem_publish_internals", None)
    if known is None:
        known = all(hasattr(nc, name) for name in _INTERNALS)
        nc._holdem_publish_internals = known
    return known


def _command(nc: Any, subject: str, payload: bytes, reply: str, block: bytes) -> bytes:
    """The HPUB command for a checked publish, with nats-py's checks and statistics."""
    if nc.is_closed:
        raise nats.errors.ConnectionClosedError
    if nc.is_draining_pubs:
        raise nats.errors.ConnectionDrainingError
    size = len(payload)
    if not nc.is_connected and (
        nc._max_pending_size <= 0 or size + nc._pending_data_size > nc._max_pending_size
    ):
        raise nats.errors.OutboundBufferLimitError
    if size > nc._max_payload:
        raise nats.errors.MaxPayloadError
    nc.stats["out_msgs"] += 1
    nc.stats["out_bytes"] += size
    return hpub_cmd(subject, reply, block, payload)


def _block(nc: Any, subject: str, reply: str, headers: dict[str, str]) -> bytes | None:
    """The header block when this publish can take the raw path (None: nats-py's)."""
    block = header_block(headers) if headers and _has_internals(nc) else None
    if (
        block is None
        or not subject
        or _SUBJECT_INVALID.search(subject)
        or _SUBJECT_INVALID.search(reply)
    ):
        return None
    return block


def _writable(nc: Any) -> bool:
    """The command can go to the socket now: connected, and nothing queued before it (so the
    order of commands on the wire stays nats-py's)."""
    return bool(nc._pending_data_size == 0 and nc._status == nc.CONNECTED and nc._transport)


def publish_now(nc: Any, subject: str, payload: bytes, reply: str, headers: dict[str, str]) -> bool:
    """Write ``publish(...)``'s command to the socket at once, without nats-py's flusher task;
    False (nothing sent) when that is not possible now."""
    block = _block(nc, subject, reply, headers)
    if block is None or not _writable(nc):
        return False
    nc._transport.write(_command(nc, subject, payload, reply, block))
    return True


async def publish(
    nc: Any, subject: str, payload: bytes, reply: str, headers: dict[str, str]
) -> None:
    """``nc.publish(subject, payload, reply=reply, headers=headers)``: the same checks, errors
    and bytes on the wire, with the header block built by ``header_block``, written to the
    socket at once when nothing is queued before it (nats-py wakes its flusher task for
    every publish: a turn of the event loop each)."""
    block = _block(nc, subject, reply, headers)
    if block is None:
        await nc.publish(subject, payload, reply=reply, headers=headers)
        return
    command = _command(nc, subject, payload, reply, block)
    if _writable(nc):
        nc._transport.write(command)
        return
    await nc._send_command(command)
    if nc._flush_queue is not None and nc._flush_queue.empty():
        await nc._flush_pending()


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
