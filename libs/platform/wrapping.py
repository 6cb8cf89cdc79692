"""How the platform's layers wrap a method: a :data:`Layer` takes a method's full name and its
handler and returns the handler wrapped; :func:`wrap` composes layers (the one place that does),
:func:`wrap_behaviour` and :func:`around` are what a layer builds with (for single-response and
streaming methods alike), and :class:`WrappingServer` is the server as ``add_*_to_server`` sees
it: whatever is registered on it reaches the real server wrapped, once per method when it is
registered, not on every call (grpc.aio's server interceptors cost about 0.12 ms a call for
being there at all, and rebuilt their wrappers on every call). The layers themselves:
``libs.platform.layers``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import grpc

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
Behaviour = Callable[..., Any]  # (request or request iterator, context) -> response(s)
#: (the method's full name, "/package.Service/Method"; its handler) -> the handler wrapped.
Layer: TypeAlias = Callable[[str, "Handler"], "Handler"]


def wrap(layers: Sequence[Layer], method: str, handler: Handler) -> Handler:
    """``handler`` inside ``layers``, the first outermost."""
    for layer in reversed(layers):
        handler = layer(method, handler)
    return handler


def wrap_behaviour(
    handler: Handler,
    unary: Callable[[Behaviour], Behaviour],
    streaming: Callable[[Behaviour], Behaviour],
    deserializer: Callable[[bytes], Any] | None = None,
) -> Handler:
    """The same handler with its behaviour wrapped (``unary`` for single responses), and its
    request deserializer replaced when ``deserializer`` is given."""
    des, ser = deserializer or handler.request_deserializer, handler.response_serializer
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), des, ser)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), des, ser)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(streaming(handler.unary_stream), des, ser)
    if handler.stream_stream is not None:
        return grpc.stream_stream_rpc_method_handler(streaming(handler.stream_stream), des, ser)
    return handler


async def stream_of(behaviour: Behaviour, request: Any, context: Any) -> AsyncIterator[Any]:
    """Iterate a streaming behaviour written either as an async generator or with context.write."""
    result = behaviour(request, context)
    if inspect.isasyncgen(result) or hasattr(result, "__aiter__"):
        async for item in result:
            yield item
    elif inspect.isawaitable(result):
        await result


def status_name(context: Any, failure: BaseException | None) -> str:
    """The status a finished call ends with: the one set on its context (abort, set_code), else
    OK when it returned, CANCELLED when it was cancelled (or, a stream, closed after its client
    left), UNKNOWN when an exception escaped."""
    code = context.code()
    if code is not None:
        return str(getattr(code, "name", code))
    if failure is None:
        return "OK"
    # GeneratorExit: grpc closed a stream the client left while it was suspended at a yield
    if isinstance(failure, (asyncio.CancelledError, GeneratorExit)):
        return "CANCELLED"
    return "UNKNOWN"


def around(
    handler: Handler,
    begin: Callable[[Any], Any],
    end: Callable[[Any, Any, BaseException | None], None],
) -> Handler:
    """``handler`` with ``begin(context)`` run before each call and ``end(context, begun,
    failure)`` after it, whichever way it finished (``failure``: what escaped, or None)."""

    def unary(behaviour: Behaviour) -> Behaviour:
        async def around(request: Any, context: Any) -> Any:
            begun = begin(context)
            failure: BaseException | None = None
            try:
                return await behaviour(request, context)
            except BaseException as exc:
                failure = exc
                raise
            finally:
                end(context, begun, failure)

        return around

    def streaming(behaviour: Behaviour) -> Behaviour:
        async def around(request: Any, context: Any) -> AsyncIterator[Any]:
            begun = begin(context)
            failure: BaseException | None = None
            try:
                async for item in stream_of(behaviour, request, context):
                    yield item
            except BaseException as exc:
                failure = exc
                raise
            finally:
                end(context, begun, failure)

        return around

    return wrap_behaviour(handler, unary, streaming)


class _Wrapped:
    """Each method's handler wrapped once: a method registered both ways (generated code adds a
    generic handler and the same handlers as registered ones) is wrapped once."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        self.layers = tuple(layers)
        self.handlers: dict[str, tuple[Handler, Handler]] = {}  # method -> (original, wrapped)

    def __call__(self, method: str, handler: Handler) -> Handler:
        known = self.handlers.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = wrap(self.layers, method, handler)
        self.handlers[method] = (handler, wrapped)
        return wrapped


class _WrappedGenericHandler(grpc.GenericRpcHandler):
    """A generic handler whose answers are wrapped: a generic handler cannot list its methods, so
    each is wrapped when first asked for, then reused."""

    def __init__(self, inner: grpc.GenericRpcHandler, wrapped: _Wrapped) -> None:
        self.inner = inner
        self.wrapped = wrapped

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        handler = self.inner.service(handler_call_details)
        if handler is None:
            return None
        return self.wrapped(handler_call_details.method, handler)


class WrappingServer(grpc.aio.Server):
    """``server`` as ``add_*_to_server`` functions see it: the handlers registered through it are
    registered on ``server`` inside ``layers`` (registered method handlers when they are added,
    a generic handler's methods on their first call), every other operation is ``server``'s."""

    def __init__(self, server: grpc.aio.Server, layers: Sequence[Layer]) -> None:
        self.server = server
        self.wrapped = _Wrapped(layers)

    def add_generic_rpc_handlers(
        self, generic_rpc_handlers: Iterable[grpc.GenericRpcHandler]
    ) -> None:
        self.server.add_generic_rpc_handlers(
            [_WrappedGenericHandler(handler, self.wrapped) for handler in generic_rpc_handlers]
        )

    def add_registered_method_handlers(
        self, service_name: str, method_handlers: Mapping[str, Handler]
    ) -> None:
        self.server.add_registered_method_handlers(
            service_name,
            {
                name: self.wrapped(f"/{service_name}/{name}", handler)
                for name, handler in method_handlers.items()
            },
        )

    def add_insecure_port(self, address: str) -> int:
        return self.server.add_insecure_port(address)

    def add_secure_port(self, address: str, server_credentials: grpc.ServerCredentials) -> int:
        return self.server.add_secure_port(address, server_credentials)

    async def start(self) -> None:
        await self.server.start()

    async def stop(self, grace: float | None) -> None:
        await self.server.stop(grace)

    async def wait_for_termination(self, timeout: float | None = None) -> bool:
        return await self.server.wait_for_termination(timeout)
