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
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable
from typing import Any

import nats.errors
from nats.js import api
from nats.js.errors import APIError, NoStreamResponseError
from nats.protocol.command import hpub_cmd

from .natsheaders import EXPECTED_STREAM

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
    setattr(nc, _ATTRIBUTE, table)
    return table


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


class RawRequests:
    """Requests on one connection whose answers come to one wildcard inbox taken by a raw
    handler: a future and a timer per request. nats-py's ``request`` also builds a ``Msg``,
    queues it to its inbox subscription's task, whose callback resolves a future that
    ``asyncio.wait_for`` (another future and a timer) waits on: most of the client's CPU of a
    JetStream publish with its acknowledgement."""

    def __init__(self, nc: Any, handlers: dict[int, RawHandler]) -> None:
        self._nc = nc
        self._handlers = handlers
        self._prefix = ""
        self._answers: dict[bytes, asyncio.Future[tuple[bytes, bytes | None]]] = {}
        self._count = 0
        self._subscribing: asyncio.Lock | None = None

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

    async def request(
        self, subject: str, payload: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[bytes, bytes | None]:
        """The answer's payload and header block; ``nats.errors.TimeoutError`` when none came
        within ``timeout`` seconds."""
        prefix = self._prefix or await self._inbox_prefix()
        self._count += 1
        inbox = f"{prefix}.{self._count}"
        key = inbox.encode()
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[bytes, bytes | None]] = loop.create_future()
        self._answers[key] = answer
        timer = loop.call_later(timeout, _expire, answer)
        try:
            await publish(self._nc, subject, payload, inbox, headers)
            return await answer
        finally:
            timer.cancel()
            del self._answers[key]

    def _answer(self, subject: bytes, reply: bytes, data: bytes, block: bytes | None) -> None:
        answer = self._answers.get(subject)
        if answer is not None and not answer.done():
            answer.set_result((data, block))


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
)


def _has_internals(nc: Any) -> bool:
    """``nc`` has what ``publish`` uses of nats-py 2.16's client (else nats-py publishes)."""
    known: bool | None = getattr(nc, "_holdem_publish_internals", None)
    if known is None:
        known = all(hasattr(nc, name) for name in _INTERNALS)
        nc._holdem_publish_internals = known
    return known


async def publish(
    nc: Any, subject: str, payload: bytes, reply: str, headers: dict[str, str]
) -> None:
    """``nc.publish(subject, payload, reply=reply, headers=headers)``: the same checks, errors
    and bytes on the wire, with the header block built by ``header_block``."""
    block = header_block(headers) if headers and _has_internals(nc) else None
    if (
        block is None
        or not subject
        or _SUBJECT_INVALID.search(subject)
        or _SUBJECT_INVALID.search(reply)
    ):
        await nc.publish(subject, payload, reply=reply, headers=headers)
        return
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
    await nc._send_command(hpub_cmd(subject, reply, block, payload))
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

    async def publish(
        self, subject: str, payload: bytes, *, stream: str, headers: dict[str, str]
    ) -> api.PubAck:
        if not self._checked:
            handlers = raw_handlers(self._nc)
            self._requests = None if handlers is None else RawRequests(self._nc, handlers)
            self._checked = True
        if self._requests is None:
            ack: api.PubAck = await self._js.publish(
                subject, payload, stream=stream, headers=headers
            )
            return ack
        return await js_publish(
            self._requests,
            subject,
            payload,
            stream=stream,
            headers=headers,
            timeout=self._timeout,
        )


def _expire(answer: asyncio.Future[tuple[bytes, bytes | None]]) -> None:
    if not answer.done():
        answer.set_exception(nats.errors.TimeoutError())


_NO_RESPONDERS = b"503"


def _status(block: bytes | None) -> bytes:
    """The inline status of a header block (``NATS/1.0 503``), b"" if it has none."""
    if block is None or block[8:9] != b" ":
        return b""
    return block[9:12]


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
    if not data and _status(block) == _NO_RESPONDERS:
        raise NoStreamResponseError
    response = json.loads(data)
    if "error" in response:
        raise APIError.from_error(response["error"])
    return api.PubAck.from_response(response)
