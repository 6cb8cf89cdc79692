"""Wrapping chosen RPCs of a servicer class so that an exception they raise is turned into
another: the one mechanism under ``unavailable_on_failure`` (a failed dependency is UNAVAILABLE)
and the gateway's ``echoes_clipped`` (a relayed message repeats little of the request).

``on_error(name, exc, request)`` is called inside the ``except`` block: it raises the exception
to end the call with (``raise ... from ...`` as it chooses), or returns to let ``exc`` go on
unchanged. Unary and server-streaming methods both; a stream is closed (its own clean-up) when
the call ends, not when the generator is collected."""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, TypeVar

__all__ = ["OnError", "translate_errors"]

C = TypeVar("C", bound=type)
#: ``(rpc name, the exception, the request)``: raises the replacement, or returns.
OnError = Callable[[str, BaseException, Any], None]


def _wrapped(
    name: str,
    method: Callable[..., Any],
    catch: tuple[type[BaseException], ...],
    on_error: OnError,
) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def streaming(self: Any, request: Any, context: Any) -> AsyncIterator[Any]:
            stream = method(self, request, context)
            try:
                async for item in stream:
                    yield item
            except catch as exc:
                on_error(name, exc, request)
                raise
            finally:
                await stream.aclose()

        return streaming

    @functools.wraps(method)
    async def unary(self: Any, request: Any, context: Any) -> Any:
        try:
            return await method(self, request, context)
        except catch as exc:
            on_error(name, exc, request)
            raise

    return unary


def translate_errors(
    methods: Iterable[str], catch: tuple[type[BaseException], ...], on_error: OnError
) -> Callable[[C], C]:
    """A class decorator: each of ``methods`` has what it raises of ``catch`` go through
    ``on_error``."""

    def decorate(cls: C) -> C:
        for name in methods:
            setattr(cls, name, _wrapped(name, getattr(cls, name), catch, on_error))
        return cls

    return decorate
