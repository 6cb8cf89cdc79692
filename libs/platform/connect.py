"""A gRPC service over the Connect protocol and gRPC-Web, for browsers: :func:`connect_app` builds
an ASGI application (``connectrpc``) whose every method calls the very handler the gRPC server
runs, as the server's registrar wrapped it in the platform's layers (``libs.platform.layers``:
request id, metrics, error mapping, identity, validation, limits): no call has a second
implementation, and no layer is skipped. :class:`ConnectContext` stands in for the gRPC servicer
context the handlers and layers read (metadata from the HTTP headers, the peer, the deadline, the
trailing metadata, ``abort``); an abort becomes the Connect error of the same code, with the
trailing metadata (``x-error-code``, ``x-request-id``, the retry hint) as the response's trailers.

Requests reach the handler as the bytes the gRPC server would have got (the JSON codec converts),
so a request that does not decode is refused by the validation layer exactly as over gRPC.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, NoReturn

import grpc
from connectrpc.code import Code
from connectrpc.codec import Codec
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.request import RequestContext
from connectrpc.server import ConnectASGIApplication, Endpoint
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.json_format import MessageToJson, Parse, ParseError
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from libs.platform.wrapping import Handler, stream_of

#: Connect's code for each gRPC status (the same names).
CODES: dict[grpc.StatusCode, Code] = {
    status: Code[status.name.replace("CANCELLED", "CANCELED")]
    for status in grpc.StatusCode
    if status is not grpc.StatusCode.OK
}


class Aborted(grpc.aio.AbortError):
    """What ``ConnectContext.abort`` raises: the error layer lets an AbortError pass."""


class ConnectContext:
    """The part of ``grpc.aio.ServicerContext`` the handlers and the layers use, over one
    Connect request."""

    def __init__(self, request: RequestContext[Any, Any]) -> None:
        self.request = request
        self._metadata = tuple(
            (key.lower(), value) for key, value in request.request_headers.allitems()
        )
        timeout_ms = request.timeout_ms
        self._deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        self._trailing: tuple[tuple[str, str], ...] = ()
        self._code: grpc.StatusCode | None = None
        self._details = ""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        address = self.request.client_address or "unknown"
        host = address.rpartition(":")[0]
        return f"ipv6:[{host}]:0" if ":" in host else f"ipv4:{address}"

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def set_trailing_metadata(self, metadata: Sequence[tuple[str, str]]) -> None:
        self._trailing = tuple(metadata)

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailing

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Sequence[tuple[str, str]] = (),
    ) -> NoReturn:
        self._code, self._details = code, details
        if trailing_metadata:
            self._trailing = tuple(trailing_metadata)
        raise Aborted()

    def finish(self) -> None:
        """Hand the trailing metadata to the HTTP response (Connect sends it as trailers)."""
        trailers = self.request.response_trailers
        for key, value in self._trailing:
            trailers.add(key, str(value))

    def error(self) -> ConnectError:
        code = CODES.get(self._code or grpc.StatusCode.UNKNOWN, Code.UNKNOWN)
        return ConnectError(code, self._details)


class _RawProto(Codec[Message, bytes]):
    """Binary requests stay bytes (the handler's own deserializer reads them); responses are
    the handler's messages."""

    def name(self) -> str:
        return "proto"

    def encode(self, message: Message) -> bytes:
        return message.SerializeToString()

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> bytes:
        return bytes(data)


class _Json(Codec[Message, bytes]):
    """JSON requests are read into the method's request type and passed on as its bytes."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        return MessageToJson(message, indent=None).encode()

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> bytes:
        message = message_class()
        try:
            Parse(bytes(data), message, ignore_unknown_fields=True)
        except ParseError as exc:
            problem = f"the request is not valid JSON: {exc}"
            raise ConnectError(Code.INVALID_ARGUMENT, problem) from None
        return bytes(message.SerializeToString())


def _unary(handler: Handler) -> Any:
    behaviour: Any = handler.unary_unary
    deserialize = handler.request_deserializer

    async def call(request: bytes, ctx: RequestContext[Any, Any]) -> Any:
        context = ConnectContext(ctx)
        try:
            return await behaviour(deserialize(request) if deserialize else request, context)
        except Aborted:
            raise context.error() from None
        finally:
            context.finish()

    return call


def _server_stream(handler: Handler) -> Any:
    behaviour: Any = handler.unary_stream
    deserialize = handler.request_deserializer

    async def call(request: bytes, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        context = ConnectContext(ctx)
        try:
            parsed = deserialize(request) if deserialize else request
            async for item in stream_of(behaviour, parsed, context):
                yield item
        except Aborted:
            raise context.error() from None
        finally:
            context.finish()

    return call


class _ServiceApp(ConnectASGIApplication[object]):
    def __init__(self, path: str, endpoints: Mapping[str, Any], read_max_bytes: int) -> None:
        self._path = path
        super().__init__(
            service=object(),
            endpoints=lambda _: endpoints,
            read_max_bytes=read_max_bytes,
            codecs=[_RawProto(), _Json()],
        )

    @property
    def path(self) -> str:
        return self._path


def stream_paths(service: ServiceDescriptor) -> frozenset[str]:
    """The URL paths of the service's server-streaming methods."""
    return frozenset(
        f"/{service.full_name}/{m.name}" for m in service.methods if m.server_streaming
    )


def connect_app(
    service: ServiceDescriptor, handlers: Mapping[str, Handler], read_max_bytes: int
) -> ConnectASGIApplication[object]:
    """``service`` over Connect and gRPC-Web, each method served by ``handlers[path]`` (the
    gRPC server's wrapped handler of that method: ``/package.Service/Method``)."""
    endpoints: dict[str, Any] = {}
    for method in service.methods:
        path = f"/{service.full_name}/{method.name}"
        handler = handlers[path]
        info: MethodInfo[Any, Any] = MethodInfo(
            name=method.name,
            service_name=service.full_name,
            input=GetMessageClass(method.input_type),
            output=GetMessageClass(method.output_type),
            idempotency_level=IdempotencyLevel.UNKNOWN,
            stream_type=StreamType.SERVER_STREAM if method.server_streaming else StreamType.UNARY,
        )
        if method.server_streaming:
            endpoints[path] = Endpoint.server_stream(info, _server_stream(handler))
        else:
            endpoints[path] = Endpoint.unary(info, _unary(handler))
    return _ServiceApp(f"/{service.full_name}", endpoints, read_max_bytes)
