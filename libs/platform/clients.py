"""Channels to other services: a default deadline on every call and bounded retries.

Retries are done by gRPC itself from the channel's service config: only UNAVAILABLE is retried
(the call never reached a working server, so retrying cannot act twice), with exponential backoff
and a capped number of attempts, all within the call's deadline. The default deadline is added by
an interceptor to calls made without ``timeout=`` (a service-config timeout could only shorten a
per-call one, never extend it). The caller's request id travels along as ``x-request-id``, and
the calling service's signed token as ``x-holdem-service`` (libs.platform.identity): the callee
knows which service calls, and refuses it the methods it may not call.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any, NamedTuple

import grpc

from libs.platform.config import PlatformConfig
from libs.platform.identity import SERVICE_TOKEN_HEADER, ServiceSigner
from libs.platform.logging import REQUEST_ID_HEADER, current_request_id
from libs.platform.tls import TlsFiles, channel_credentials, target_options

MAX_ATTEMPTS_LIMIT = 5  # gRPC caps retry attempts at 5 anyway


def service_config(
    max_attempts: int,
    initial_backoff_seconds: float = 0.05,
    max_backoff_seconds: float = 1.0,
    backoff_multiplier: float = 2.0,
) -> str:
    """The gRPC service config (JSON) applied to every method of the channel."""
    if not 1 <= max_attempts <= MAX_ATTEMPTS_LIMIT:
        raise ValueError(f"max_attempts must be 1..{MAX_ATTEMPTS_LIMIT}, not {max_attempts}")
    method: dict[str, Any] = {"name": [{}]}
    if max_attempts > 1:
        method["retryPolicy"] = {
            "maxAttempts": max_attempts,
            "initialBackoff": f"{initial_backoff_seconds:.3f}s",
            "maxBackoff": f"{max_backoff_seconds:.3f}s",
            "backoffMultiplier": backoff_multiplier,
            "retryableStatusCodes": ["UNAVAILABLE"],
        }
    return json.dumps({"methodConfig": [method]})


def _with_defaults(
    details: grpc.aio.ClientCallDetails,
    timeout_seconds: float | None,
    signer: ServiceSigner | None = None,
) -> grpc.aio.ClientCallDetails:
    timeout = timeout_seconds if details.timeout is None else details.timeout
    metadata = grpc.aio.Metadata(*(details.metadata or ()))
    request_id = current_request_id()
    if request_id is not None and metadata.get(REQUEST_ID_HEADER) is None:
        metadata.add(REQUEST_ID_HEADER, request_id)
    if signer is not None:
        metadata.add(SERVICE_TOKEN_HEADER, signer.token())
    return grpc.aio.ClientCallDetails(
        details.method, timeout, metadata, details.credentials, details.wait_for_ready
    )


class CallDefaultsInterceptor(
    grpc.aio.UnaryUnaryClientInterceptor,
    grpc.aio.UnaryStreamClientInterceptor,
    grpc.aio.StreamUnaryClientInterceptor,
    grpc.aio.StreamStreamClientInterceptor,
):
    """Gives calls of every kind without ``timeout=`` the default deadline and propagates the
    request id bound in this context (see libs.platform.logging), so the logs of every service a
    call passes through carry the same ``request_id``. With a ``signer``, every call carries its
    service token. (``timeout_seconds`` None: no default deadline.)"""

    def __init__(self, timeout_seconds: float | None, signer: ServiceSigner | None = None) -> None:
        self.timeout_seconds = timeout_seconds
        self.signer = signer

    async def intercept_unary_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        return await continuation(
            _with_defaults(client_call_details, self.timeout_seconds, self.signer), request
        )

    async def intercept_unary_stream(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        return await continuation(
            _with_defaults(client_call_details, self.timeout_seconds, self.signer), request
        )

    async def intercept_stream_unary(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request_iterator: Any,
    ) -> Any:
        return await continuation(
            _with_defaults(client_call_details, self.timeout_seconds, self.signer), request_iterator
        )

    async def intercept_stream_stream(
        self,
        continuation: Callable[[grpc.aio.ClientCallDetails, Any], Awaitable[Any]],
        client_call_details: grpc.aio.ClientCallDetails,
        request_iterator: Any,
    ) -> Any:
        return await continuation(
            _with_defaults(client_call_details, self.timeout_seconds, self.signer), request_iterator
        )


def connect(
    target: str,
    *,
    timeout_seconds: float = 5.0,
    max_attempts: int = 3,
    initial_backoff_seconds: float = 0.05,
    max_backoff_seconds: float = 1.0,
    signer: ServiceSigner | None = None,
    tls: TlsFiles | None = None,
    service: str = "",
) -> grpc.aio.Channel:
    """A channel to ``target`` (host:port), its calls signed by ``signer`` when given: with
    ``tls``, mutual TLS to a peer whose certificate names ``service``; else plaintext (in-cluster).
    Create it inside the running event loop and ``await channel.close()`` when done."""
    config = service_config(max_attempts, initial_backoff_seconds, max_backoff_seconds)
    return aio_channel(
        target,
        tls,
        service,
        options=[("grpc.enable_retries", 1), ("grpc.service_config", config)],
        interceptors=[CallDefaultsInterceptor(timeout_seconds, signer)],
    )


def aio_channel(
    target: str,
    tls: TlsFiles | None,
    service: str,
    options: Sequence[tuple[str, Any]] = (),
    **kwargs: Any,
) -> grpc.aio.Channel:
    """A plain asyncio channel, or with ``tls`` a mutual-TLS one to a peer named ``service``."""
    if tls is None:
        return grpc.aio.insecure_channel(target, options=list(options), **kwargs)
    return grpc.aio.secure_channel(
        target,
        channel_credentials(tls),
        options=[*options, *target_options(service)],
        **kwargs,
    )


def sync_channel(
    target: str, tls: TlsFiles | None, service: str, options: Sequence[tuple[str, Any]] = ()
) -> grpc.Channel:
    """A plain blocking channel, or with ``tls`` a mutual-TLS one to a peer named ``service``."""
    if tls is None:
        return grpc.insecure_channel(target, options=list(options))
    return grpc.secure_channel(
        target, channel_credentials(tls), options=[*options, *target_options(service)]
    )


def connect_peer(
    platform: PlatformConfig, service: str, target: str | None = None
) -> grpc.aio.Channel:
    """A channel to another service at its HOLDEM_<SERVICE>_ADDR (or at ``target``, one replica
    of it), with the shared RPC settings, every call signed as this service
    (``platform.service``)."""
    return connect(
        target or platform.peer(service),
        timeout_seconds=platform.rpc_timeout_seconds,
        max_attempts=platform.rpc_max_attempts,
        signer=ServiceSigner(platform.service_key, platform.service),
        tls=platform.tls,
        service=service,
    )


# ---- blocking (non-asyncio) channels: tools and tests -----------------------------------------


class _Details(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: Any
    wait_for_ready: bool | None
    compression: Any


class _SyncDetails(_Details, grpc.ClientCallDetails):
    pass


class SyncServiceTokenInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds ``signer``'s token to every call of a blocking channel."""

    def __init__(self, signer: ServiceSigner) -> None:
        self.signer = signer

    def _details(self, details: Any) -> _SyncDetails:
        metadata = [*(details.metadata or ()), (SERVICE_TOKEN_HEADER, self.signer.token())]
        return _SyncDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(
        self, continuation: Any, details: Any, request_iterator: Iterator[Any]
    ) -> Any:
        return continuation(self._details(details), request_iterator)

    def intercept_stream_stream(
        self, continuation: Any, details: Any, request_iterator: Iterator[Any]
    ) -> Any:
        return continuation(self._details(details), request_iterator)


def signed_channel(
    target: str,
    signer: ServiceSigner,
    *,
    tls: TlsFiles | None = None,
    service: str = "",
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.Channel:
    """A blocking channel to ``target`` whose calls carry ``signer``'s token (with ``tls``:
    mutual TLS to a peer named ``service``)."""
    return grpc.intercept_channel(
        sync_channel(target, tls, service, options), SyncServiceTokenInterceptor(signer)
    )


def signed_aio_channel(
    target: str,
    signer: ServiceSigner,
    *,
    tls: TlsFiles | None = None,
    service: str = "",
    **kwargs: Any,
) -> grpc.aio.Channel:
    """An asyncio channel to ``target`` whose calls carry ``signer``'s token (no default
    deadline, no retries: a plain channel plus the identity; with ``tls``: mutual TLS to a peer
    named ``service``)."""
    return aio_channel(
        target, tls, service, interceptors=[CallDefaultsInterceptor(None, signer)], **kwargs
    )


def call_timeout(context: grpc.aio.ServicerContext[Any, Any], default: float) -> float:
    """Deadline for a downstream call made while serving ``context``: the default, shortened to
    what is left of the incoming call's own deadline (no point working for a caller who left)."""
    remaining = context.time_remaining()
    if remaining is None:
        return default
    return max(0.0, min(default, remaining))
