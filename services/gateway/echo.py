"""What the gateway tells a client repeats at most :data:`MAX_ECHO` characters of what the
client sent (issue 9). Its own messages echo nothing; the validation layer cuts what it quotes;
this guard covers the messages it relays from the lobby and the table, which may quote an id
whole (the edge lets ids of 64 characters through): every longer run of a request's own text in
a relayed message is cut to its first MAX_ECHO characters and an ellipsis. The status and the
trailing metadata (``x-error-code``, retry hints) are kept as they were."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message

from libs.platform.servicers import translate_errors

__all__ = ["MAX_ECHO", "clip_echoes", "echoes_clipped"]

MAX_ECHO = 32

C = TypeVar("C", bound=type)


def _texts(message: Message) -> Iterator[str]:
    for field, value in message.ListFields():
        items = value if field.is_repeated else (value,)
        for item in items:
            if isinstance(item, str):
                yield item
            elif isinstance(item, Message):
                yield from _texts(item)


def clip_echoes(details: str, request: Message) -> str:
    """``details`` with every run of more than MAX_ECHO characters of a text field of
    ``request`` cut to its first MAX_ECHO characters."""
    for text in _texts(request):
        for length in range(min(len(text), len(details)), MAX_ECHO, -1):
            if text[:length] in details:
                details = details.replace(text[:length], text[:MAX_ECHO] + "...")
                break
    return details


def _clipped(exc: grpc.aio.AioRpcError, request: Message) -> grpc.aio.AioRpcError:
    details = exc.details() or ""
    clipped = clip_echoes(details, request)
    if clipped == details:
        return exc
    return grpc.aio.AioRpcError(
        exc.code(), exc.initial_metadata(), exc.trailing_metadata(), clipped
    )


def echoes_clipped(methods: Iterable[str]) -> Callable[[C], C]:
    """A class decorator: the relayed messages of each of ``methods`` are clipped."""

    def on_error(name: str, exc: BaseException, request: Any) -> None:
        assert isinstance(exc, grpc.aio.AioRpcError)
        raise _clipped(exc, request) from None

    return translate_errors(methods, (grpc.aio.AioRpcError,), on_error)
