"""Messages of chosen subscriptions handed straight from nats-py's protocol parser to a function.

A table's full load reads one message per commit (10,000 events are about 5,000 messages). For
every message nats-py 2.16 parses the header block into a dict, builds a ``Msg``, puts it on the
subscription's queue, and the subscription's task takes it off and awaits the callback, which
parses the reply subject into a ``Metadata`` object: about half of the read's time. A raw
handler instead gets the subject, the reply subject, the payload and the header block as
bytes, in the parser's own call (nothing queued, no task switch), and takes what it needs.
``libs.eventstore.jspublish`` takes the acknowledgements of JetStream publishes (appends, and the
table's public projection: one per commit) the same way.

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

import inspect
from collections.abc import Callable
from typing import Any

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
