"""Structured logs (structlog): one JSON object per line, with the service name and, inside a
request, the request id (from the ``x-request-id`` metadata or generated) bound via contextvars so
every line logged while serving that call carries it, in this service and (propagated by
:mod:`libs.platform.clients`) in the services it calls.

Every call served logs a line (``libs.platform.layers``), so a line is made cheaply: loggers are
built once, on their first use after ``configure_logging`` (not at every call), and lines are
rendered by orjson (the standard library's encoder for what orjson cannot encode).
"""

from __future__ import annotations

import json
import logging
import sys
import uuid
from collections.abc import Iterable
from typing import Any, TextIO

import orjson
import structlog
from structlog.typing import EventDict, WrappedLogger

REQUEST_ID_HEADER = "x-request-id"
_MAX_REQUEST_ID = 128

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}


def _dumps(event: Any, default: Any = None, **_: Any) -> str:
    """One line of JSON (structlog's renderer passes its fallback for unknown types)."""
    try:
        return orjson.dumps(event, default=default, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # e.g. an int beyond 64 bits: the standard encoder takes anything
        return json.dumps(event, default=default)


def configure_logging(
    service: str, level: str = "info", fmt: str = "json", stream: TextIO | None = None
) -> None:
    """Configure structlog for the whole process (call once, at start: a logger used before is
    built with the configuration then in force, and kept)."""
    numeric = _LEVELS[level]

    def add_service(_: WrappedLogger, __: str, event: EventDict) -> EventDict:
        event.setdefault("service", service)
        return event

    renderer: Any = (
        structlog.processors.JSONRenderer(serializer=_dumps)
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            add_service,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(stream or sys.stderr),
        cache_logger_on_first_use=True,
    )
    # Libraries using stdlib logging (grpc, asyncio) still reach stderr, at the same threshold.
    logging.basicConfig(
        level=numeric, stream=stream or sys.stderr, format="%(levelname)s %(name)s %(message)s"
    )


def get_logger(name: str | None = None) -> structlog.stdlib.BoundLogger:
    logger: structlog.stdlib.BoundLogger = structlog.get_logger(name)
    return logger


def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id_from_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The caller's request id when it sent a sane one, else a fresh one."""
    for key, value in metadata or ():
        if key.lower() == REQUEST_ID_HEADER and isinstance(value, str):
            candidate = value.strip()
            if candidate and len(candidate) <= _MAX_REQUEST_ID and candidate.isprintable():
                return candidate
    return new_request_id()


def current_request_id() -> str | None:
    value = structlog.contextvars.get_contextvars().get("request_id")
    return value if isinstance(value, str) else None
