"""A faster parser for the header block of every message a NATS connection receives.

Reading a table's stream is one message per commit, each with the headers JetStream stored with
it (``Nats-Msg-Id``, ``Nats-Expected-Last-Subject-Sequence``). nats-py 2.16 parses each block in
``Client._parse_header_lines``, and checks every header name for whitespace one character at a
time in a generator (``any(c.isspace() for c in key)``): about a fifth of a full table load went
there. ``parse_header_lines`` gives exactly the same dict (tests/eventstore/test_natsheaders.py
compares the two on awkward input), with that check done by ``str.split`` in C.
``use_fast_headers`` makes one connection use it (an instance attribute: nats-py itself and
every other connection are untouched); with a nats-py that has no such hook it does nothing.
"""

from __future__ import annotations

import re
from typing import Any

_CRLF = b"\r\n"


def parse_header_lines(raw: bytes) -> dict[str, str]:
    """``Name: Value`` lines, as nats-py's ``Client._parse_header_lines`` parses them: a line
    without a colon, a name that is not ASCII or holds whitespace, is skipped."""
    out: dict[str, str] = {}
    for line in raw.split(_CRLF):
        if not line:
            continue
        name, sep, value = line.partition(b":")
        if not sep:
            continue
        try:
            key = name.strip().decode("ascii")
        except UnicodeDecodeError:
            continue
        # whitespace anywhere in the name (str.isspace's whitespace, which str.split splits on)
        if key and key.split() != [key]:
            continue
        out[key] = value.strip().decode("utf-8", "replace")
    return out


_STATUS_LINE = b"NATS/1.0"
_FIRST_HEADER = len(_STATUS_LINE) + len(_CRLF)


#: The headers of a guarded JetStream append (the names nats-py's ``api.Header`` members hold).
MSG_ID, EXPECTED_LAST, EXPECTED_STREAM = (
    "Nats-Msg-Id",
    "Nats-Expected-Last-Subject-Sequence",
    "Nats-Expected-Stream",
)
# The block every commit of a table stream carries (the headers of a guarded append, as
# JetStream stores them): read by one regular expression, a third of the line-by-line cost
# (which was a third of a full table load's read). Values of printable ASCII without spaces
# only, so decoding and stripping them is what the general parser would do.
_GUARDED_APPEND = re.compile(
    rb"NATS/1\.0\r\n"
    + MSG_ID.encode()
    + rb": ([!-~]+)\r\n"
    + EXPECTED_LAST.encode()
    + rb": ([!-~]+)\r\n"
    + EXPECTED_STREAM.encode()
    + rb": ([!-~]+)\r\n\r\n"
)


def headers_of_block(block: bytes | None) -> dict[str, str]:
    """The headers of a message whose header block is ``block`` (as the parser hands it over:
    ``NATS/1.0`` and its lines), the dict nats-py gives as ``msg.headers`` (or {} for None).
    ValueError for a block with an inline status (``NATS/1.0 404 ...``), which only the
    server's status messages carry."""
    if not block:
        return {}
    ours = _GUARDED_APPEND.fullmatch(block)
    if ours is not None:  # the common case, by one regular expression
        msg_id, expected, stream = ours.groups()
        return {
            MSG_ID: msg_id.decode(),
            EXPECTED_LAST: expected.decode(),
            EXPECTED_STREAM: stream.decode(),
        }
    if block[len(_STATUS_LINE) : len(_STATUS_LINE) + 1] == b" ":
        raise ValueError(f"a status header block: {block[:80]!r}")
    if len(block) <= _FIRST_HEADER:
        return {}
    return parse_header_lines(block[_FIRST_HEADER:])


def status_of_block(block: bytes | None) -> str:
    """The status code of a status message's header block (``NATS/1.0 503 ...``), or ''."""
    first = (block or b"").split(_CRLF, 1)[0]
    said = first[len(_STATUS_LINE) :].split() if first.startswith(_STATUS_LINE + b" ") else []
    return said[0].decode("ascii", "replace") if said else ""


def use_fast_headers(nc: Any) -> None:
    """Make connection ``nc`` parse header blocks with ``parse_header_lines``."""
    if callable(getattr(type(nc), "_parse_header_lines", None)):
        nc._parse_header_lines = parse_header_lines
