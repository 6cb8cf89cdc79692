"""A service's HTTP port beside its gRPC port (the gateway's, for browsers): :class:`HttpSite`
says where it listens and what it serves, :func:`site_app` puts together the ASGI application —
the service over Connect and gRPC-Web (``libs.platform.connect``: the gRPC server's own wrapped
handlers), allowed origins (CORS), a request body limit, a limit on server streams open at once,
and static files (the web client) with a strict Content-Security-Policy — and
:func:`start_http` runs it in the service's event loop (uvicorn), with TLS when the gRPC port has
it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mimetypes
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from google.protobuf.descriptor import ServiceDescriptor

from libs.platform.connect import connect_app, stream_paths
from libs.platform.tls import TlsFiles
from libs.platform.wrapping import Handler

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The page may load only its own scripts, styles and images and talk only to its own origin.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
ALLOWED_HEADERS = (
    "content-type, connect-protocol-version, connect-timeout-ms, authorization, x-request-id, "
    "x-grpc-web, x-user-agent, grpc-timeout"
)
EXPOSED_HEADERS = (
    "x-error-code, x-request-id, grpc-retry-pushback-ms, trailer-x-error-code, "
    "trailer-x-request-id, trailer-grpc-retry-pushback-ms, grpc-status, grpc-message"
)


@dataclass(frozen=True)
class HttpSite:
    """What a service serves on HTTP: ``service`` over Connect and gRPC-Web at ``listen``."""

    listen: str
    service: ServiceDescriptor
    allowed_origins: tuple[str, ...] = ()  # "*" allows any
    max_body_bytes: int = 1 << 20
    max_streams: int = 1000
    static_root: str = ""  # a directory of files served at "/" (index.html), or none


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


async def _respond(
    send: Send, status: int, body: bytes, content_type: str, extra: list[tuple[bytes, bytes]]
) -> None:
    headers = [(b"content-type", content_type.encode()), *extra]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _connect_error(send: Send, status: int, code: str, message: str, extra: Any) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    await _respond(send, status, body, "application/json", extra)


def site_app(site: HttpSite, handlers: Mapping[str, Handler]) -> App:
    """The ASGI application of ``site`` over the gRPC server's wrapped ``handlers``."""
    rpc = connect_app(site.service, handlers, site.max_body_bytes)
    prefix = f"/{site.service.full_name}/"
    streams = stream_paths(site.service)
    origins = frozenset(site.allowed_origins)
    root = Path(site.static_root).resolve() if site.static_root else None
    open_streams = 0

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal open_streams
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        origin = _header(scope, b"origin")
        cors: list[tuple[bytes, bytes]] = []
        own = f"{scope.get('scheme', 'http')}://{_header(scope, b'host')}"
        if origin and origin != own:  # the page's own origin needs no permission
            if "*" not in origins and origin not in origins:
                await _connect_error(
                    send, 403, "permission_denied", f"origin {origin!r} is not allowed", []
                )
                return
            cors = [
                (b"access-control-allow-origin", origin.encode()),
                (b"vary", b"Origin"),
                (b"access-control-expose-headers", EXPOSED_HEADERS.encode()),
            ]
        if method == "OPTIONS":
            await _respond(
                send,
                204,
                b"",
                "text/plain",
                [
                    *cors,
                    (b"access-control-allow-methods", b"POST, GET"),
                    (b"access-control-allow-headers", ALLOWED_HEADERS.encode()),
                    (b"access-control-max-age", b"600"),
                ],
            )
            return
        if not path.startswith(prefix):
            await _static(root, path, method, send)
            return
        length = _header(scope, b"content-length")
        if length.isdigit() and int(length) > site.max_body_bytes:
            await _connect_error(
                send, 413, "resource_exhausted", f"at most {site.max_body_bytes} bytes", cors
            )
            return
        if _header(scope, b"content-type").startswith("application/grpc") and not _header(
            scope, b"content-type"
        ).startswith("application/grpc-web"):
            await _connect_error(
                send, 415, "unimplemented", "gRPC is on the gRPC port; here Connect, gRPC-Web", cors
            )
            return

        async def with_cors(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and cors:
                message = {**message, "headers": [*message.get("headers", ()), *cors]}
            await send(message)

        if path not in streams:
            await rpc(scope, receive, with_cors)
            return
        if open_streams >= site.max_streams:
            await _connect_error(
                send, 429, "resource_exhausted", f"at most {site.max_streams} streams", cors
            )
            return
        open_streams += 1
        try:
            await rpc(scope, receive, with_cors)
        finally:
            open_streams -= 1

    return app


async def _static(root: Path | None, path: str, method: str, send: Send) -> None:
    headers = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff")]
    if root is None or method not in ("GET", "HEAD"):
        await _respond(send, 404, b"not found", "text/plain", headers)
        return
    target = (root / path.lstrip("/")).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        target = root / "index.html"  # the page's own routes
    if not target.is_file():
        await _respond(send, 404, b"not found", "text/plain", headers)
        return
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    body = target.read_bytes() if method == "GET" else b""
    await _respond(send, 200, body, kind, headers)


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: the service's (libs.platform.server) stops it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class RunningHttp:
    server: uvicorn.Server
    task: asyncio.Task[None]
    port: int

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task


async def start_http(app: App, listen: str, tls: TlsFiles | None) -> RunningHttp:
    """Serve ``app`` on ``listen`` (port 0: any free port, ``RunningHttp.port``)."""
    host, _, port = listen.rpartition(":")
    config = uvicorn.Config(
        app,
        host=host.strip("[]"),
        port=int(port),
        lifespan="off",
        log_config=None,
        access_log=False,
        ssl_certfile=tls.paths[1] if tls is not None else None,
        ssl_keyfile=tls.paths[2] if tls is not None else None,
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
            raise RuntimeError(f"cannot listen on {listen}")
        await asyncio.sleep(0.01)
    sockets = [s for srv in server.servers for s in srv.sockets]
    return RunningHttp(server, task, int(sockets[0].getsockname()[1]))
