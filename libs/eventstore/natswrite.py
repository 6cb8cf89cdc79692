"""A publish written to the socket in the caller's own call: the same checks, errors and bytes
on the wire as nats-py 2.16's ``publish``, with the header block built in one join
(``header_block``: a third of the CPU of a publish) and no wake-up of nats-py's flusher task
when nothing is queued before it (a turn of the event loop each). Anything nats-py would write
differently (headers to strip or escape, a client without the internals used) goes through
nats-py itself.
"""

from __future__ import annotations

import re
from typing import Any

import nats.errors
from nats.protocol.command import hpub_cmd

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
