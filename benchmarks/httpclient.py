"""A minimal keep-alive HTTP/1.1 client on asyncio streams, for the benchmark of unary calls over
Connect (``benchmarks.gateway``): one connection per benchmark client, as a browser keeps one;
POST a body, read the status, the headers and the body (Content-Length or chunked)."""

from __future__ import annotations

import asyncio


class ConnectError(RuntimeError):
    """A call answered with another status than 200."""


class KeepAlive:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        """The body of a 200 answer to a unary Connect call (``ConnectError`` otherwise)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        lines = [f"POST {path} HTTP/1.1", f"host: {self.host}:{self.port}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        lines.append(f"content-length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
            elif name.lower() == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        data = await self._chunked() if chunked else await self.reader.readexactly(length)
        if status != 200:
            raise ConnectError(f"HTTP {status}: {data[:200]!r}")
        return data

    async def _chunked(self) -> bytes:
        assert self.reader is not None
        parts: list[bytes] = []
        while True:
            size = int((await self.reader.readline()).split(b";")[0], 16)
            chunk = await self.reader.readexactly(size + 2)
            if size == 0:
                return b"".join(parts)
            parts.append(chunk[:-2])

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
